"""The gridmarket command: output formats, the per-job table, and one-line errors on bad input."""

from __future__ import annotations

import errno
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from market.cli.main import main
from market.inputs.scenario import load, parse_overrides
from market.sim.model import GridMarket
from tests.conftest import DEFAULT_SCENARIO

SMALL = ["--set", "clients.0.workload.jobs=25"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_one_record_per_provider_and_variant_with_every_metric(capsys):
    code, out, err = run(capsys, "run", str(DEFAULT_SCENARIO), *SMALL, "--format", "json")
    assert code == 0 and err == ""
    records = json.loads(out)
    assert [r["variant"] for r in records] == list(load(DEFAULT_SCENARIO).variants)
    for key in ("provider", "scheduler", "admission", "profit", "profit_rate", "accepted_pct",
                "utilization", "mean_processors", "realised_pct", "revenue", "rent"):  # fmt: skip
        assert key in records[0]
    by_variant = {r["variant"]: r for r in records}
    reference = by_variant["FirstProfit, accept all"]
    assert reference["admission"] == "accept_all" and reference["accepted_pct"] == 100.0
    assert by_variant["FirstProfit"]["scheduler"] == "first_profit"
    assert by_variant["LJF"]["mean_processors"] == 1.0


def test_seed_and_set_change_the_run(capsys):
    base = json.loads(run(capsys, "run", str(DEFAULT_SCENARIO), *SMALL, "--format", "json")[1])
    seeded = json.loads(
        run(capsys, "run", str(DEFAULT_SCENARIO), *SMALL, "--seed", "9", "--format", "json")[1]
    )
    assert seeded[0]["seed"] == 9 and base[0]["seed"] == 1
    assert seeded[0]["profit"] != base[0]["profit"]
    dear = json.loads(
        run(
            capsys,
            "run",
            str(DEFAULT_SCENARIO),
            *SMALL,
            "--set",
            "resource_providers.0.price=12",
            "--format",
            "json",
        )[1]
    )
    assert dear[0]["accepted"] < base[0]["accepted"]


def test_table_and_csv(capsys):
    code, out, _ = run(capsys, "run", str(DEFAULT_SCENARIO), *SMALL)
    assert code == 0 and "profit/h" in out and "first_profit" in out
    code, out, _ = run(capsys, "run", str(DEFAULT_SCENARIO), *SMALL, "--format", "csv")
    lines = out.strip().splitlines()
    assert lines[0].startswith("variant,seed,provider,scheduler,admission")
    assert len(lines) == 1 + len(load(DEFAULT_SCENARIO).variants)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_jobs_out_writes_the_per_job_table(capsys, tmp_path, suffix):
    path = tmp_path / f"jobs{suffix}"
    code, _, _ = run(capsys, "run", str(DEFAULT_SCENARIO), *SMALL, "--jobs-out", str(path))
    assert code == 0
    jobs = pd.read_parquet(path) if suffix == ".parquet" else pd.read_csv(path)
    assert len(jobs) == len(load(DEFAULT_SCENARIO).variants) * 25
    assert {"variant", "job", "arrival", "accepted", "reason", "processors", "start", "end",
            "paid", "expected_profit"} <= set(jobs.columns)  # fmt: skip


BAD_INPUTS = [
    (["run", "missing.yaml"], "missing.yaml: no such scenario file"),
    (["run", str(DEFAULT_SCENARIO), "--set", "nonsense"], "not of the form key=value"),
    (["run", str(DEFAULT_SCENARIO), "--set", "clients.0.workload.jobs=-3"],
     "clients.0.workload.jobs: Input should be greater than or equal to 0"),
    (["run", str(DEFAULT_SCENARIO), "--set", "clients.5.name=x"], "clients.5: no item 5"),
    (["run", str(DEFAULT_SCENARIO), "--set", "service_providers.0.admission=maybe"],
     "unknown admission policy 'maybe'"),
    (["run", str(DEFAULT_SCENARIO), "--format", "xml"], "invalid choice: 'xml'"),
    (["run", str(DEFAULT_SCENARIO), "--seed", "-1"], "--seed: -1 is out of range (from 0 to"),
    (["run", str(DEFAULT_SCENARIO), "--seed", "18446744073709551616", "--jobs-out", "j.csv"],
     "--seed: 18446744073709551616 is out of range (from 0 to 9223372036854775807)"),
    (["run", str(DEFAULT_SCENARIO), "--seed", "1.5"], "--seed: invalid int value: '1.5'"),
    (["run", str(DEFAULT_SCENARIO), "--seed", "9" * 5000],  # named, not repeated
     "--seed: invalid int value: '" + "9" * 40 + "...' (5,000 characters)\n"),
    (["run", str(DEFAULT_SCENARIO), "--set", "seed=" + "9" * 5000],
     "--set: seed: line 1: a number of more than 4,300 digits"),
    (["run", str(DEFAULT_SCENARIO), "--set", "name=" + "[" * 60000 + "]" * 60000],
     "--set: name: nested too deeply"),
    (["dashboard", "--port", "70000"], "--port: 70000 is out of range (from 1 to 65535)"),
    (["dashboard", "--port", "0"], "--port: 0 is out of range"),
    (["trace", "info", "x.swf", "--processors", "-5"], "--processors: -5 is out of range"),
    (["run", str(DEFAULT_SCENARIO), "--set", "sample_interval=1e-9"],
     "--set: sample_interval: 1e-09 h takes more than 1,000,000 samples"),
    (["run", str(DEFAULT_SCENARIO), "--set", "clients.0.workload.mean_interarrival=.inf"],
     "--set: clients.0.workload.mean_interarrival: Input should be a finite number"),
    (["run", str(DEFAULT_SCENARIO), "--jobs-out", "jobs.txt"], "must end in .csv or .parquet"),
    (["run", str(DEFAULT_SCENARIO), "--jobs-out", "j" * 5000 + ".csv"],
     "--jobs-out: cannot write " + "j" * 100 + "... (5,004 characters) (File name too long)"),
    (["fly"], "invalid choice: 'fly'"),
    (["run", str(DEFAULT_SCENARIO), "--set", "clients.0.workload.kind=swf"],
     "(a new kind keeps the fields of the old one: set the whole mapping, "
     "clients.0.workload={kind: swf, ...})"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "message"), BAD_INPUTS)
def test_bad_input_gets_a_one_line_error(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("gridmarket: error: ")
    assert message in err


def test_the_console_script_reports_bad_files_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nservice_providers:\n  - name: sp\n    schedular: first_profit\n")
    proc = subprocess.run(
        [sys.executable, "-m", "market.cli.main", "run", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        f"gridmarket: error: {bad}: service_providers.0.schedular: unknown field, "
        "did you mean 'scheduler'?"
    )


def test_json_keeps_every_float_exactly(capsys):
    code, out, _ = run(capsys, "run", str(DEFAULT_SCENARIO), *SMALL, "--format", "json")
    assert code == 0
    records = {r["variant"]: r for r in json.loads(out)}
    scenario = load(DEFAULT_SCENARIO).with_overrides(parse_overrides(SMALL[1:]))
    compared = 0
    for label, variant in scenario.expand():
        expected = GridMarket(variant).run().summary.iloc[0]
        for key, value in expected.items():
            if isinstance(value, float) and math.isfinite(value):
                assert records[label][key] == value, (label, key)  # equal, not close
                compared += 1
            elif isinstance(value, float):
                assert records[label][key] is None  # NaN: null, as valid JSON
    assert compared > 50, "the floats were compared"


def test_a_failed_jobs_out_write_keeps_the_printed_summary(capsys, tmp_path, monkeypatch):
    target = tmp_path / "jobs.csv"  # writable when checked; the disk is full when written
    to_csv = pd.DataFrame.to_csv

    def full_disk(frame, path_or_buf=None, *args, **kwargs):
        if isinstance(path_or_buf, Path):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return to_csv(frame, path_or_buf, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_disk)
    code, out, err = run(
        capsys, "run", str(DEFAULT_SCENARIO), *SMALL, "--format", "csv", "--jobs-out", str(target)
    )
    assert code == 2
    assert out.startswith("variant,seed,provider") and len(out.strip().splitlines()) == 9
    assert (
        err == f"gridmarket: error: --jobs-out: cannot write {target} (No space left on device)\n"
    )


@pytest.mark.parametrize("option", ["--jobs-out", "--market-out"])
@pytest.mark.parametrize("where", ["under_a_file", "a_folder"])
def test_an_output_that_cannot_be_written_stops_before_the_run(capsys, tmp_path, option, where):
    blocker = tmp_path / "file"
    blocker.write_text("")
    target = blocker / "out.csv"  # its folder is a file
    if where == "a_folder":
        target = tmp_path / "out.csv"
        target.mkdir()
    code, out, err = run(capsys, "run", str(DEFAULT_SCENARIO), *SMALL, option, str(target))
    assert code == 2 and out == ""  # nothing run
    assert err.count("\n") == 1 and err.startswith(f"gridmarket: error: {option}: cannot write")
    assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".gridmarket-probe")]


def test_an_output_in_missing_folders_is_checked_without_making_them(tmp_path):
    from market.cli.output_paths import check_writable

    check_writable("--jobs-out", tmp_path / "a" / "b" / "jobs.csv")  # (the run makes them)
    assert list(tmp_path.iterdir()) == []


def test_version_and_names_on_the_search_path(capsys, tmp_path, monkeypatch):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("gridmarket ") and out.strip() != "gridmarket"
    monkeypatch.chdir(tmp_path)  # no scenarios here: the shipped one is found by name
    code, out, err = run(capsys, "run", "profit/default", *SMALL, "--format", "csv")
    assert code == 0 and err == "" and out.startswith("variant,seed")
