"""Schedules exported as SWF and as Batsim/evalys jobs.csv, each read back by its consumer's
conventions: the SWF through the project's own reader (every field and the header round-trip,
and the simulated waits are there), the CSV as evalys's ``JobSet.from_csv`` reads it (pandas,
``job_id`` and ``profile`` as strings, ``allocated_resources`` as an interval set) with the
columns and identities Batsim documents."""

from __future__ import annotations

import json
from itertools import pairwise

import numpy as np
import pandas as pd
import pytest

from market.cli.main import main
from market.inputs.swf import FIELDS, read_swf
from market.results.export import (
    EVALYS_COLUMNS,
    allocate_ids,
    evalys_frame,
    export_schedules,
    interval_set,
    schedule_rows,
    swf_header,
    swf_records,
)
from market.sim.model import GridMarket
from tests.conftest import synthetic_swf

#: Batsim's jobs.csv columns in its order (batsim docs/output-jobs.rst, src/export.cpp).
BATSIM = [
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
    "consumed_energy", "metadata",
]  # fmt: skip


def procset(text: str) -> set[int]:
    """procset's ``ProcSet.from_str`` (what evalys applies to allocated_resources): "0-3 7"."""
    ids: set[int] = set()
    for part in str(text).split():
        lo, _, hi = part.partition("-")
        ids.update(range(int(lo), int(hi or lo) + 1))
    return ids


@pytest.fixture(scope="module")
def market_run(tmp_path_factory):
    """The profit market (some jobs turned away), 40 jobs: (scenario, result)."""
    from market.inputs.scenario import load
    from tests.conftest import DEFAULT_SCENARIO

    scenario = load(DEFAULT_SCENARIO).with_overrides(
        {"variants": {}, "clients.0.workload.jobs": 40}
    )
    return scenario, GridMarket(scenario, seed=3).run()


@pytest.fixture(scope="module")
def trace_run(tmp_path_factory):
    """EASY replaying 120 synthetic trace jobs on 16 processors: (scenario, result)."""
    from market.inputs.scenario import validate

    path = synthetic_swf(tmp_path_factory.mktemp("t") / "s.swf", n=120)
    scenario = validate(
        {
            "name": "replay",
            "resource_providers": [{"name": "pool", "capacity": 16, "price": 0.0}],
            "service_providers": [{"name": "site", "scheduler": "easy", "admission": "accept_all"}],
            "clients": [{"name": "users", "workload": {"kind": "swf", "trace": str(path)}}],
        }
    )
    return scenario, GridMarket(scenario, seed=1).run()


def test_interval_sets_and_lowest_free_ids():
    assert interval_set([7, 0, 1, 2, 3]) == "0-3 7" and interval_set([]) == ""
    # job 0 holds 0-2 over [0, 10); job 1 takes 3 at 5; job 0 ends at 10 as job 2 starts and
    # gets its ids back (ends come first); job 3 never started
    start = np.array([0.0, 5.0, 10.0, np.nan])
    end = np.array([10.0, 20.0, 12.0, np.nan])
    assert allocate_ids(start, end, np.array([3, 1, 3, 2])) == [[0, 1, 2], [3], [0, 1, 2], []]


@pytest.mark.parametrize("name", ["run.swf", "run.swf.gz"])
def test_swf_export_round_trips_through_our_reader(market_run, tmp_path, name):
    scenario, result = market_run
    (path,) = export_schedules(tmp_path / name, "swf", [("only", scenario, result)])
    assert path == tmp_path / name
    rows = schedule_rows(result.jobs, "sp")
    back = read_swf(path)
    # every field round-trips, and so does the header
    expected = swf_records(rows, ["clients"])
    np.testing.assert_array_equal(back.records.to_numpy(), expected[list(FIELDS)].to_numpy())
    assert back.header == swf_header(scenario, "only", "sp", result.seed, rows)
    assert back.max_procs == 10 and back.header["MaxJobs"] == len(rows) == 40
    # the simulated schedule is in it: waits, run times and widths of the completed jobs
    done = rows["end"].notna().to_numpy()
    rec = back.records
    assert (rec["status"][done] == 1).all() and (rec["status"][~done] == 5).all()
    assert 0 < done.sum() < len(rows)  # some turned away, some ran
    start = np.round(rows["start"].to_numpy()[done] * 3600)
    np.testing.assert_array_equal(rec["submit"][done] + rec["wait"][done], start)
    np.testing.assert_allclose(
        rec["wait"][done], (rows["start"] - rows["arrival"])[done] * 3600, atol=1.0
    )
    np.testing.assert_allclose(
        rec["runtime"][done], (rows["end"] - rows["start"])[done] * 3600, atol=1.0
    )
    np.testing.assert_array_equal(rec["procs"][done], rows["processors"][done])
    assert rec["job"].tolist() == list(range(1, 41)) and rec["submit"].is_monotonic_increasing
    # the simulation's own selection keeps exactly the jobs that ran
    jobs, report = back.select()
    assert len(jobs) == done.sum() and report.no_runtime == (~done).sum()


def test_a_trace_replay_exports_its_waits(trace_run, tmp_path):
    scenario, result = trace_run
    (path,) = export_schedules(tmp_path / "replay.swf", "swf", [("EASY", scenario, result)])
    back = read_swf(path).records
    rows = schedule_rows(result.jobs, "site")
    assert len(back) == 119 and (back["status"] == 1).all()  # one trace job never ran
    # whole-second trace times stay whole: the run times are the trace's
    trace = read_swf(scenario.clients[0].workload.trace).records
    ran = trace[trace["runtime"] > 0]
    assert sorted(back["runtime"]) == sorted(ran["runtime"])
    assert back["wait"].sum() > 0  # EASY on 16 processors makes some jobs wait
    assert back["procs"].tolist() == rows["processors"].tolist()


def test_evalys_csv_reads_back_with_batsim_semantics(trace_run, tmp_path):
    scenario, result = trace_run
    (path,) = export_schedules(tmp_path / "jobs.csv", "evalys", [("EASY", scenario, result)])
    # as evalys's JobSet.from_csv reads it
    df = pd.read_csv(
        path, converters={"job_id": str, "profile": str, "allocated_resources": procset}
    )
    assert list(df.columns) == BATSIM == list(EVALYS_COLUMNS)
    assert (df["final_state"] == "COMPLETED_SUCCESSFULLY").all() and (df["success"] == 1).all()
    t = df
    np.testing.assert_allclose(t["execution_time"], t["finish_time"] - t["starting_time"])
    np.testing.assert_allclose(t["waiting_time"], t["starting_time"] - t["submission_time"])
    np.testing.assert_allclose(t["turnaround_time"], t["finish_time"] - t["submission_time"])
    np.testing.assert_allclose(t["stretch"], t["turnaround_time"] / t["execution_time"])
    assert (t["allocated_resources"].map(len) == t["requested_number_of_resources"]).all()
    # no processor id is held by two jobs at once, and ids fit in the machine (0-15)
    assert max(max(ids) for ids in t["allocated_resources"]) < 16
    for pid in range(16):
        spans = sorted(
            (s, f)
            for s, f, ids in zip(
                t["starting_time"], t["finish_time"], t["allocated_resources"], strict=True
            )
            if pid in ids
        )
        assert all(a[1] <= b[0] for a, b in pairwise(spans)), pid
    rows = schedule_rows(result.jobs, "site")
    np.testing.assert_allclose(t["submission_time"], rows["arrival"] * 3600)
    np.testing.assert_allclose(t["waiting_time"], (rows["start"] - rows["arrival"]) * 3600)
    assert json.loads(t["metadata"][0])["provider"] == "site"
    assert (t["workload_name"] == "users").all() and (t["consumed_energy"] == -1).all()


def test_evalys_rejected_jobs_have_empty_times(market_run):
    _, result = market_run
    frame = evalys_frame(schedule_rows(result.jobs, "sp"))
    rejected = frame["final_state"] == "REJECTED"
    assert rejected.any() and (frame.loc[rejected, "success"] == 0).all()
    times = ["starting_time", "execution_time", "finish_time", "waiting_time", "stretch"]
    assert frame.loc[rejected, times].isna().all().all()
    assert (frame.loc[rejected, "allocated_resources"] == "").all()


def test_cli_writes_one_file_per_variant_and_refuses_bad_names(tmp_path, capsys):
    from tests.conftest import DEFAULT_SCENARIO

    args = ["run", str(DEFAULT_SCENARIO), "--set", "clients.0.workload.jobs=20"]
    assert main([*args, "--jobs-out", str(tmp_path / "run.swf")]) == 0
    files = sorted(p.name for p in tmp_path.iterdir())
    assert "run-FirstProfit.swf" in files and "run-FirstProfit-accept-all.swf" in files
    assert main([*args, "--set", "variants={}", "--jobs-out", str(tmp_path / "j.csv"),
                 "--jobs-format", "evalys"]) == 0  # fmt: skip
    assert list(pd.read_csv(tmp_path / "j.csv").columns) == BATSIM
    capsys.readouterr()
    assert main([*args, "--jobs-out", str(tmp_path / "j.parquet"), "--jobs-format", "swf"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must end in .swf or .swf.gz for swf" in err
