"""QBETS on recorded waits: conservative bounds on every real trace we have (VARQ TR 2007-09
§2.3), no information from after a job's submission, and ``gridmarket trace qbets``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from market.cli.main import main
from market.core.qbets import QBETS
from market.experiments.qbets_replay import qbets_accuracy, replay_waits
from market.inputs.swf import FIELDS, write_swf
from tests.conftest import require_trace

# Traces with recorded waits (NASA-iPSC has none: `trace qbets` says so).
TRACES = [
    "SDSC-SP2-1998-4.2-cln.swf.gz",
    "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "SDSC-Par-1996-3.1-cln.swf.gz",
]


@pytest.mark.parametrize("trace", TRACES)
def test_bounds_are_conservative_on_real_traces(trace):
    require_trace(trace)
    report = qbets_accuracy(trace, 0.95, 0.95)  # the whole trace: 1-2 s each
    assert report["correct_pct"] >= 95.0, report
    assert report["jobs"] > 0.99 * (report["jobs"] + report["no_bound"])
    assert 1.0 < report["median_tightness"] < 100.0  # docs/papers/varq.md


def synthetic_waits(n=600, seed=5):
    rng = np.random.default_rng(seed)
    submit = np.cumsum(rng.exponential(0.2, n))
    wait = rng.exponential(1.0, n) * (1 + 5 * (submit > submit[n // 2]))  # a shift half way
    nodes = rng.choice([1, 4, 16, 64], n)
    requested = rng.choice([0.5, 2.0, 8.0], n)
    return submit, wait, nodes, requested


def test_a_bound_never_uses_a_delay_known_only_after_the_submission():
    submit, wait, nodes, requested = synthetic_waits()
    bounds = replay_waits(submit, wait, nodes, requested, QBETS())
    cut = submit[400]
    # Change every delay not yet known at `cut` (jobs starting after it), keeping their starts
    # after it: no bound predicted at or before `cut` may change.
    later = submit + wait > cut
    changed = wait.copy()
    changed[later] = wait[later] * 3 + 10.0
    again = replay_waits(submit, changed, nodes, requested, QBETS())
    early = submit <= cut
    assert np.array_equal(bounds[early], again[early])
    assert not np.array_equal(bounds[~early], again[~early])  # the change is seen later


def test_a_job_never_sees_its_own_delay():
    # 100 jobs all submitted before any starts: nothing is known, so no job has a bound,
    # even though each one's own delay is known by the time the replay ends.
    submit = np.arange(100) * 0.001
    wait = np.full(100, 1.0)
    bounds = replay_waits(submit, wait, np.ones(100, int), np.ones(100), QBETS())
    assert np.isinf(bounds).all()


def swf_with_waits(path, n=400):
    submit, wait, nodes, requested = synthetic_waits(n)
    records = pd.DataFrame(-1.0, index=range(n), columns=list(FIELDS))
    records["job"] = np.arange(1, n + 1)
    records["submit"] = np.round(submit * 3600)
    records["wait"] = np.round(wait * 3600)
    records["runtime"] = 600.0
    records["procs"] = nodes
    records["req_time"] = requested * 3600
    records["status"] = 1
    return write_swf(path, records, {"MaxProcs": 64})


def test_trace_qbets_command_json(tmp_path, capsys):
    path = swf_with_waits(tmp_path / "w.swf")
    assert main(["trace", "qbets", str(path), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"correct_pct", "jobs", "median_tightness"} <= set(report)
    assert report["jobs"] + report["no_bound"] == 400


@pytest.mark.parametrize(
    ("flag", "field"), [("--quantile=1.5", "quantile"), ("--confidence=0", "confidence")]
)
def test_trace_qbets_bad_values_are_one_line_errors(tmp_path, capsys, flag, field):
    path = swf_with_waits(tmp_path / "w.swf", 50)
    assert main(["trace", "qbets", str(path), flag]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"gridmarket: error: {field}: must lie strictly between 0 and 1")
    assert "\n" not in err


def test_a_trace_too_short_for_any_bound_says_so_after_its_table(tmp_path, capsys):
    path = swf_with_waits(tmp_path / "w.swf")
    assert main(["trace", "qbets", str(path), "--first-jobs", "1"]) == 2
    out, err = capsys.readouterr()
    assert "jobs with a bound 0" in out  # the table, then why it has no numbers
    assert err == (
        f"gridmarket: error: {path}: no job got a bound (too little history: give more jobs, "
        "or a trace with more jobs in each class)\n"
    )
