"""Running a sweep: each saved row is the run of its scenario and seed, the same numbers on every
executor; Ctrl-C, SIGTERM, a kill or a failing run lose no finished run, resume runs the rest."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from market.cli.main import main
from market.experiments import batch, executors
from market.experiments.batch import (
    DaskCluster,
    InProcess,
    LocalProcesses,
    ResultsStore,
    SweepInterrupted,
    load_results,
    run_sweep,
)
from market.experiments.sweep import SUMMARY_METRICS, SweepPlan
from market.sim.model import GridMarket
from tests.conftest import ROOT
from tests.model.sweeps import LOAD, PRICE, VARIANTS, small, write


def ids(frame: pd.DataFrame) -> set[str]:
    return set(frame["run_id"])


def numbers(frame: pd.DataFrame) -> pd.DataFrame:
    """Everything but the wall time, which is the one column allowed to differ."""
    return frame.drop(columns="run_seconds")


# -- running, results and resume -------------------------------------------------------------------
def test_a_saved_row_is_the_run_of_its_scenario_and_seed(tmp_path):
    plan = SweepPlan.from_scenario(small())
    report = run_sweep(plan, tmp_path / "out", executor=InProcess())
    assert report.ran == [r.run_id for r in plan.runs] and not report.failed
    frame = load_results(tmp_path / "out")
    assert len(frame) == len(plan.runs)  # one service provider
    assert list(frame.columns[:5]) == ["run_id", "variant", "replication", "seed", LOAD]
    assert {"provider", "scheduler", "admission", *SUMMARY_METRICS, "finished"} <= set(frame)
    assert frame.attrs["parameters"] == [LOAD] and frame.attrs["variants"] == VARIANTS
    run = plan.runs[3]
    direct = GridMarket(run.scenario, seed=run.seed).run().summary.iloc[0]
    row = frame.set_index("run_id").loc[run.run_id]
    assert row["variant"] == run.variant and row[LOAD] == run.point[LOAD]
    for metric in SUMMARY_METRICS:
        assert row[metric] == direct[metric] or (np.isnan(row[metric]) and np.isnan(direct[metric]))
    assert (tmp_path / "out" / "manifest.json").exists()


def test_the_same_numbers_on_local_processes_and_a_dask_local_cluster(tmp_path, capsys):
    from distributed import LocalCluster

    scenario = small(replications=3)
    plan = SweepPlan.from_scenario(scenario)
    reference = numbers(load_results(_swept(plan, tmp_path / "in", InProcess())))
    processes = numbers(load_results(_swept(plan, tmp_path / "procs", LocalProcesses(2))))
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        dask = numbers(load_results(_swept(plan, tmp_path / "dask", DaskCluster(address))))
    pd.testing.assert_frame_equal(processes, reference)
    pd.testing.assert_frame_equal(dask, reference)
    # the command line's own local Dask cluster
    argv = ["sweep", str(write(scenario, tmp_path / "s.yaml")), "--scheduler", "local",
            "--workers", "2", "--out", str(tmp_path / "cli")]  # fmt: skip
    assert main(argv) == 0
    assert "on a local Dask cluster of 2 processes" in capsys.readouterr().out
    pd.testing.assert_frame_equal(numbers(load_results(tmp_path / "cli")), reference)


def _swept(plan, out, executor):
    report = run_sweep(plan, out, executor=executor)
    assert len(report.ran) == len(plan.runs)
    return out


def test_ctrl_c_saves_the_finished_runs_and_resume_runs_exactly_the_rest(tmp_path, monkeypatch):
    plan = SweepPlan.from_scenario(small(replications=3))
    calls = []
    real = executors.execute_run

    def interrupt_on_the_seventh(spec):
        calls.append(spec.run_id)
        if len(calls) == 7:
            raise KeyboardInterrupt
        return real(spec)

    monkeypatch.setattr(executors, "execute_run", interrupt_on_the_seventh)
    with pytest.raises(SweepInterrupted) as stop:
        run_sweep(plan, tmp_path, executor=InProcess())
    assert stop.value.report.ran == calls[:6]
    assert len(ResultsStore(tmp_path).parts()) == 1  # the small parts were merged
    saved = ids(load_results(tmp_path))
    assert saved == set(calls[:6])

    monkeypatch.setattr(executors, "execute_run", real)
    report = run_sweep(plan, tmp_path, executor=InProcess(), resume=True)
    assert set(report.ran) == {r.run_id for r in plan.runs} - saved
    assert report.skipped == 6
    final = load_results(tmp_path)
    assert len(final) == len(plan.runs) and ids(final) == {r.run_id for r in plan.runs}
    sessions = json.loads((tmp_path / "manifest.json").read_text())["sessions"]
    assert [s["interrupted"] for s in sessions] == [True, False]


def _start_sweep(scenario_file: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "market.cli.main", "sweep", str(scenario_file), "--workers", "1",
         "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _wait_for_parts(proc: subprocess.Popen, out: Path, count: int) -> None:
    deadline = time.monotonic() + 60
    while len(list((out / "runs").glob("part-*.parquet"))) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_a_killed_sweep_loses_no_finished_run_and_resume_runs_exactly_the_missing(tmp_path):
    scenario = small(jobs=40, replications=20)
    plan = SweepPlan.from_scenario(scenario)
    out = tmp_path / "out"
    proc = _start_sweep(write(scenario, tmp_path / "s.yaml"), out)
    _wait_for_parts(proc, out, 8)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = load_results(out)
    assert 8 <= len(before) < len(plan.runs)
    report = run_sweep(plan, out, executor=InProcess(), resume=True)
    assert set(report.ran) == {r.run_id for r in plan.runs} - ids(before)
    final = load_results(out)
    assert len(final) == len(plan.runs) and ids(final) == {r.run_id for r in plan.runs}
    pd.testing.assert_frame_equal(
        numbers(final[final.run_id.isin(ids(before))]).reset_index(drop=True),
        numbers(before).reset_index(drop=True),
    )


def test_sigterm_stops_a_sweep_like_ctrl_c(tmp_path):
    scenario = small(jobs=40, replications=20)
    out = tmp_path / "out"
    proc = _start_sweep(write(scenario, tmp_path / "s.yaml"), out)
    _wait_for_parts(proc, out, 3)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "gridmarket: interrupted: " in err and "--resume runs the other" in err
    assert len(ResultsStore(out).parts()) == 1


def test_resume_extends_a_sweep_and_refuses_another_one(tmp_path):
    run_sweep(SweepPlan.from_scenario(small()), tmp_path, executor=InProcess())
    with pytest.raises(batch.BatchError, match="already holds sweep results; add --resume"):
        run_sweep(SweepPlan.from_scenario(small()), tmp_path, executor=InProcess())
    again = run_sweep(SweepPlan.from_scenario(small()), tmp_path, executor=InProcess(), resume=True)
    assert again.ran == [] and again.skipped == 8
    more = SweepPlan.from_scenario(small(replications=3))
    report = run_sweep(more, tmp_path, executor=InProcess(), resume=True)
    assert set(report.ran) == {r.run_id for r in more.runs if r.replication == 2}
    with pytest.raises(batch.BatchError, match="holds 12 runs that are not in this sweep"):
        changed = small(replications=3).with_overrides({PRICE: 4.0})
        run_sweep(SweepPlan.from_scenario(changed), tmp_path, executor=InProcess(), resume=True)
    with pytest.raises(batch.BatchError, match="keeps metrics all, this sweep keeps"):
        fewer = small(replications=3, metrics=["profit"])
        run_sweep(SweepPlan.from_scenario(fewer), tmp_path, executor=InProcess(), resume=True)


def test_two_sweeps_never_write_one_directory(tmp_path):
    import fcntl

    tmp_path.joinpath(".lock").touch()
    with tmp_path.joinpath(".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another sweep holds it
        with pytest.raises(batch.BatchError, match="another sweep is writing to"):
            run_sweep(SweepPlan.from_scenario(small()), tmp_path, executor=InProcess())
    report = run_sweep(SweepPlan.from_scenario(small()), tmp_path, executor=InProcess())
    assert len(report.ran) == 8


def test_a_failing_run_is_logged_and_retried_by_resume(tmp_path, monkeypatch, capsys):
    plan = SweepPlan.from_scenario(small())
    bad = plan.runs[2]
    real = GridMarket.run

    def stall(self, *args, **kwargs):
        if self.seed == bad.seed and self.spec == bad.scenario:
            raise RuntimeError("the market stalled at t=0")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(GridMarket, "run", stall)
    report = run_sweep(plan, tmp_path, executor=InProcess())
    assert report.failed == [(bad.run_id, "RuntimeError: the market stalled at t=0")]
    assert len(report.ran) == len(plan.runs) - 1
    logged = [json.loads(line) for line in (tmp_path / "errors.jsonl").read_text().splitlines()]
    assert logged[0]["run_id"] == bad.run_id and "Traceback" in logged[0]["traceback"]
    code = main(["sweep", str(write(small(), tmp_path / "s.yaml")), "--workers", "1",
                 "--out", str(tmp_path / "cli")])  # fmt: skip
    _, err = capsys.readouterr()
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"gridmarket: error: 1 run failed, e.g. {bad.run_id}: RuntimeError")
    monkeypatch.undo()
    report = run_sweep(plan, tmp_path, executor=InProcess(), resume=True)
    assert report.ran == [bad.run_id]


def test_metrics_keeps_only_the_chosen_ones(tmp_path):
    plan = SweepPlan.from_scenario(small(metrics=["profit_rate", "accepted"]))
    run_sweep(plan, tmp_path, executor=InProcess())
    frame = load_results(tmp_path)
    assert list(frame.columns[5:]) == [
        "table", "provider", "scheduler", "admission", "profit_rate", "accepted", "finished",
        "run_seconds",
    ]  # fmt: skip
    assert frame["accepted"].dtype == np.int64


def test_the_loader_drops_what_a_kill_during_a_merge_duplicates(tmp_path):
    run_sweep(SweepPlan.from_scenario(small()), tmp_path, executor=InProcess())
    (part,) = ResultsStore(tmp_path).parts()
    (tmp_path / "runs" / "part-999999.parquet").write_bytes(part.read_bytes())
    assert len(load_results(tmp_path)) == 8
