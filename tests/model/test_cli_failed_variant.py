"""A trace that cannot be used, met by ``gridmarket run`` or ``sweep``: a missing one ends the
command before any run (nothing to lose), and a variant whose trace turns out unusable when
read ends ``run`` after the tables and files of the variants before it (nothing lost)."""

from __future__ import annotations

import pandas as pd

from market.cli.main import main
from tests.conftest import easy_trace_scenario


def test_a_variant_that_fails_keeps_the_tables_and_jobs_of_those_before_it(capsys, tmp_path):
    (tmp_path / "empty.swf").write_text("; MaxProcs: 16\n")
    empty = {"clients.0.workload.trace": str(tmp_path / "empty.swf")}
    path = easy_trace_scenario(tmp_path, variants={"A": {}, "B": {}, "C": empty, "D": {}})
    jobs = tmp_path / "jobs.csv"
    code = main(["run", path, "--format", "csv", "--jobs-out", str(jobs)])
    out, err = capsys.readouterr()
    assert code == 2
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["A", "B"]
    per_variant = pd.read_csv(jobs)["variant"].value_counts().to_dict()
    assert per_variant == {"A": 19, "B": 19}  # (job 2 of 20 was cancelled before it ran)
    assert err == (
        f"gridmarket: error: {path}: C: {tmp_path / 'empty.swf'}: no job records (an empty file, "
        "or a header only: cut short?) (printed: the 2 variants before it)\n"
    )


def test_a_missing_trace_in_any_variant_stops_run_before_the_first(capsys, tmp_path):
    path = easy_trace_scenario(
        tmp_path, variants={"A": {}, "B": {"clients.0.workload.trace": "NOPE-1.swf"}}
    )
    assert main(["run", path]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"gridmarket: error: {path}: B: trace 'NOPE-1.swf' not found (looked")


def test_a_missing_swept_trace_stops_the_sweep_before_any_run(capsys, tmp_path):
    good = str(tmp_path / "good.swf")
    sweep = {"parameters": {"clients.0.workload.trace": [good, "NOPE-1.swf"]}, "replications": 1}
    path = easy_trace_scenario(tmp_path, variants={}, sweep=sweep)
    out_dir = tmp_path / "out"
    assert main(["sweep", path, "--workers", "1", "--out", str(out_dir)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and not out_dir.exists() and err.count("\n") == 1
    assert err.startswith(
        f"gridmarket: error: {path}: t at clients.0.workload.trace=NOPE-1.swf: trace 'NOPE-1.swf'"
    )
