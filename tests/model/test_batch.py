"""Sweeps and batch runs: expansion and seeds, resuming after an interruption, the same numbers
on every executor, one-line errors for bad sweeps, and the report's figures."""

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
import yaml

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
from market.experiments.report import make_report
from market.experiments.sweep import SUMMARY_METRICS, Range, SweepPlan, SweepSpec, derive_seed
from market.inputs.scenario import Scenario, ScenarioError, load
from market.sim.model import GridMarket
from tests.conftest import DEFAULT_SCENARIO, ROOT

LOAD = "clients.0.workload.mean_interarrival"
PRICE = "resource_providers.0.price"
POLICIES = {
    "FirstProfit + PositiveOpportunity": {},
    "FirstProfit + accept all": {"service_providers.0.admission": "accept_all"},
}
VARIANTS = list(POLICIES)


def small(jobs: int = 20, **sweep) -> Scenario:
    """The default market with few jobs, two policies and the given sweep."""
    spec = {"parameters": {LOAD: [0.1, 0.3]}, "replications": 2, **sweep}
    return load(DEFAULT_SCENARIO).with_overrides(
        {"clients.0.workload.jobs": jobs, "variants": POLICIES, "sweep": spec}
    )


def write(scenario, path: Path) -> Path:
    path.write_text(yaml.safe_dump(scenario.model_dump(mode="json"), sort_keys=False))
    return path


def ids(frame: pd.DataFrame) -> set[str]:
    return set(frame["run_id"])


def numbers(frame: pd.DataFrame) -> pd.DataFrame:
    """Everything but the wall time, which is the one column allowed to differ."""
    return frame.drop(columns="run_seconds")


# -- expansion and seeds ---------------------------------------------------------------------------
def test_cross_product_with_lists_and_ranges():
    spec = SweepSpec(parameters={LOAD: [0.1, 0.2], PRICE: {"start": 1, "stop": 5, "step": 2}})
    points = spec.points()
    assert points == [
        {LOAD: 0.1, PRICE: 1}, {LOAD: 0.1, PRICE: 3}, {LOAD: 0.1, PRICE: 5},
        {LOAD: 0.2, PRICE: 1}, {LOAD: 0.2, PRICE: 3}, {LOAD: 0.2, PRICE: 5},
    ]  # fmt: skip


def test_zip_takes_the_lists_in_step():
    spec = SweepSpec(parameters={LOAD: [0.1, 0.2, 0.4], PRICE: [1, 2, 4]}, mode="zip")
    assert spec.points() == [{LOAD: 0.1, PRICE: 1}, {LOAD: 0.2, PRICE: 2}, {LOAD: 0.4, PRICE: 4}]


@pytest.mark.parametrize(
    ("spec", "values"),
    [
        ({"start": 0.1, "stop": 0.5, "step": 0.1}, [0.1, 0.2, 0.3, 0.4, 0.5]),
        ({"start": 0, "stop": 1, "num": 5}, [0.0, 0.25, 0.5, 0.75, 1.0]),
        ({"start": 100, "stop": 400, "num": 4}, [100, 200, 300, 400]),
        ({"start": 1, "stop": 10, "step": 4}, [1, 5, 9]),
        ({"start": 5, "stop": 1, "step": -2}, [5, 3, 1]),
        ({"start": 0.01, "stop": 1, "num": 3, "scale": "log"}, [0.01, 0.1, 1.0]),
    ],
)
def test_ranges(spec, values):
    got = Range.model_validate(spec).values()
    assert got == values
    assert [type(v) for v in got] == [type(v) for v in values]


def test_plan_is_every_point_variant_and_replication_replication_first():
    plan = SweepPlan.from_scenario(small(replications=3))
    assert plan.describe() == "2 points x 2 variants x 3 replications = 12 runs"
    keys = [(r.replication, r.point[LOAD], r.variant) for r in plan.runs]
    assert keys == [(rep, x, v) for rep in range(3) for x in (0.1, 0.3) for v in VARIANTS]
    assert len({r.run_id for r in plan.runs}) == 12
    run = plan.runs[1]  # replication 0, load 0.1, accept all
    assert run.scenario.clients[0].workload.mean_interarrival == 0.1
    assert run.scenario.service_providers[0].admission.name == "accept_all"
    assert run.scenario.sweep is None and run.scenario.variants == {}


def test_common_seeds_are_shared_by_points_and_variants_and_derived_from_the_base_seed():
    plan = SweepPlan.from_scenario(small(replications=3, base_seed=7))
    by_rep = {}
    for run in plan.runs:
        by_rep.setdefault(run.replication, set()).add(run.seed)
    assert all(len(seeds) == 1 for seeds in by_rep.values())  # common random numbers
    seeds = [by_rep[r].pop() for r in range(3)]
    assert len(set(seeds)) == 3
    expected = np.random.SeedSequence(7, spawn_key=(1,)).generate_state(1, np.uint64)[0]
    assert seeds[1] == int(expected) >> 1 == derive_seed(7, 1)
    assert 0 <= seeds[1] < 2**63
    # another base seed gives unrelated seeds (not shifted copies)
    other = {r.seed for r in SweepPlan.from_scenario(small(replications=3, base_seed=8)).runs}
    assert not other & set(seeds)
    # the default base seed is the scenario's seed
    assert SweepPlan.from_scenario(small()).base_seed == 1


def test_independent_seeds_follow_the_point_not_its_position():
    plan = SweepPlan.from_scenario(small(seeds="independent"))
    seeds = {(r.replication, r.point[LOAD], r.variant): r.seed for r in plan.runs}
    assert seeds[0, 0.1, VARIANTS[0]] == seeds[0, 0.1, VARIANTS[1]]  # variants share
    assert seeds[0, 0.1, VARIANTS[0]] != seeds[0, 0.3, VARIANTS[0]]  # points do not
    more = small(seeds="independent", parameters={LOAD: [0.05, 0.1, 0.2, 0.3]})
    extended = {(r.replication, r.point[LOAD], r.variant): r.seed for r in
                SweepPlan.from_scenario(more).runs}  # fmt: skip
    assert all(extended[key] == seed for key, seed in seeds.items())


def test_run_ids_are_stable_when_a_sweep_grows_and_change_with_the_scenario():
    base = {r.run_id for r in SweepPlan.from_scenario(small()).runs}
    grown = small(replications=3, parameters={LOAD: [0.1, 0.2, 0.3]})
    assert base < {r.run_id for r in SweepPlan.from_scenario(grown).runs}
    changed = small().with_overrides({PRICE: 4.0})
    assert not base & {r.run_id for r in SweepPlan.from_scenario(changed).runs}


def test_summary_metrics_are_exactly_the_numeric_summary_columns():
    result = GridMarket(small().model_copy(update={"sweep": None, "variants": {}})).run()
    numeric = [c for c in result.summary if pd.api.types.is_numeric_dtype(result.summary[c])]
    assert numeric == list(SUMMARY_METRICS)


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


# -- the command line ------------------------------------------------------------------------------
def test_sweep_and_report_commands(tmp_path, capsys):
    scenario_file = write(small(), tmp_path / "s.yaml")
    out = tmp_path / "results"
    code = main(["sweep", str(scenario_file), "--workers", "1", "--out", str(out)])
    printed, err = capsys.readouterr()
    assert code == 0 and err == ""
    lines = printed.splitlines()
    assert lines[0] == "sweep profit-default: 2 points x 2 variants x 2 replications = 8 runs"
    assert lines[1].startswith("ran 8 of 8 missing runs (0 were done) in ")
    assert lines[1].endswith("runs/s, on this process")
    code = main(["sweep", str(scenario_file), "--out", str(out), "--resume", "--workers", "2",
                 "--set", "sweep.replications=3"])  # fmt: skip
    printed, _ = capsys.readouterr()
    assert code == 0 and "ran 4 of 4 missing runs (8 were done)" in printed
    assert "runs/s, on 2 local processes" in printed
    code = main(["sweep", str(scenario_file), "--out", str(out), "--resume", "--workers", "1",
                 "--set", "sweep.replications=3"])  # fmt: skip
    assert code == 0 and f"nothing to run: all 12 runs are in {out}" in capsys.readouterr().out

    code = main(["report", str(out), "--out", str(tmp_path / "figs"), "--error", "sd"])
    printed, err = capsys.readouterr()
    assert code == 0 and err == ""
    frame = load_results(out)
    empty = [m for m in SUMMARY_METRICS if frame[m].isna().all()]  # no deadlines: QoS metrics
    assert "deadlines_fulfilled_pct" in empty and "profit" not in empty
    for metric in SUMMARY_METRICS:
        drawn = (tmp_path / "figs" / f"{metric}-vs-mean_interarrival.html").exists()
        assert drawn == (metric not in empty)
        assert (f"{metric}-vs-mean_interarrival.html" in printed) == drawn
    assert f"no figure for {', '.join(empty)}: no run has a value" in printed
    assert (tmp_path / "figs" / "index.html").exists()
    assert (tmp_path / "figs" / "plotly.min.js").exists()
    pngs = list((tmp_path / "figs").glob("*.png"))
    assert len(pngs) == len(SUMMARY_METRICS) - len(empty) or "PNG skipped" in printed


def test_the_report_draws_mean_and_error_bars_per_policy(tmp_path):
    scenario = small(parameters={LOAD: [0.1, 0.3], PRICE: [2.0, 4.0]}, replications=3)
    run_sweep(SweepPlan.from_scenario(scenario), tmp_path, executor=InProcess())
    report = make_report(tmp_path, metrics=["profit_rate"], png=False)
    assert [p.name for p in report.figures] == [
        "profit_rate-vs-mean_interarrival.html", "profit_rate-vs-price.html"
    ]  # fmt: skip
    summary = pd.read_csv(report.summary)
    frame = load_results(tmp_path)
    group = frame[(frame[LOAD] == 0.3) & (frame[PRICE] == 4.0) & (frame.variant == VARIANTS[1])]
    at = (summary[LOAD] == 0.3) & (summary[PRICE] == 4.0) & (summary.variant == VARIANTS[1])
    row = summary[at & (summary.metric == "profit_rate")]
    values = group["profit_rate"]
    assert row["n"].item() == 3
    assert row["mean"].item() == pytest.approx(values.mean())
    assert row["sd"].item() == pytest.approx(values.std())
    assert row["ci95"].item() == pytest.approx(4.302653 * values.std() / np.sqrt(3), rel=1e-6)
    html = report.figures[1].read_text()
    assert "FirstProfit + accept all" in html and "mean_interarrival=0.3" in html  # a panel


def test_a_sweep_without_parameters_repeats_the_scenario(tmp_path):
    plan = SweepPlan.from_scenario(small(parameters={}, replications=3))
    assert plan.describe() == "1 point x 2 variants x 3 replications = 6 runs"
    run_sweep(plan, tmp_path, executor=InProcess())
    report = make_report(tmp_path, metrics=["profit"], png=False)
    assert [p.name for p in report.figures] == ["profit-by-variant.html"]


def test_run_still_runs_a_scenario_with_a_sweep(capsys):
    code = main(["run", str(ROOT / "scenarios/profit/fig3_load.yaml"),
                 "--set", "clients.0.workload.jobs=10", "--format", "csv"])  # fmt: skip
    assert code == 0 and len(capsys.readouterr().out.strip().splitlines()) == 1 + 8  # variants


def test_the_figure_3_scenario_plans_the_papers_sweep():
    plan = SweepPlan.from_scenario(load(ROOT / "scenarios/profit/fig3_load.yaml"))
    assert plan.describe() == "9 points x 8 variants x 10 replications = 720 runs"
    assert plan.points[0] == {LOAD: 0.05} and plan.points[-1] == {LOAD: 1.0}


# -- bad sweeps: one line naming the field ---------------------------------------------------------
BAD_SWEEPS = [
    ({"replication": 3}, "sweep.replication: unknown field"),
    ({"replications": 0}, "sweep.replications: Input should be greater than or equal to 1"),
    ({"mode": "grid"}, "sweep.mode: input should be 'cross' or 'zip'"),
    ({"seeds": "random"}, "sweep.seeds: input should be 'common' or 'independent'"),
    ({"parameters": {LOAD: 0.1}}, f"sweep.parameters: {LOAD}: give a list of values"),
    ({"parameters": {LOAD: []}}, f"sweep.parameters: {LOAD}: no values"),
    ({"parameters": {LOAD: [0.1, 0.1]}}, f"sweep.parameters: {LOAD}: value 0.1 is listed twice"),
    ({"parameters": {LOAD: {"start": 0.1, "stop": 1, "num": 3, "step": 0.1}}},
     f"sweep.parameters: {LOAD}: give either num or step"),
    ({"parameters": {LOAD: {"start": 1, "stop": 0.1, "step": 0.1}}},
     f"sweep.parameters: {LOAD}: step: 0.1 goes away from stop 0.1"),
    ({"parameters": {LOAD: {"start": 0.1, "stop": 1, "num": 1}}},
     f"sweep.parameters: {LOAD}: num: Input should be greater than or equal to 2"),
    ({"parameters": {LOAD: {"start": "low", "stop": 1, "num": 3}}},
     f"sweep.parameters: {LOAD}: start: Input should be a valid number"),
    ({"parameters": {LOAD: {"from": 0.1, "stop": 1, "num": 3}}},
     f"sweep.parameters: {LOAD}: from: unknown field (a range has start, stop, and num or step)"),
    ({"parameters": {LOAD: [0.1, 0.2], PRICE: [1, 2, 3]}, "mode": "zip"},
     f"sweep: mode zip needs lists of one length (have {LOAD}: 2, {PRICE}: 3)"),
    ({"parameters": {"seed": [1, 2]}}, "sweep.parameters: seed: the seed of each run is derived"),
    ({"parameters": {LOAD: {"start": 0.1, "stop": float("inf"), "num": 3}}},
     f"sweep.parameters: {LOAD}: start and stop must be finite numbers"),
    ({"parameters": {f"clients.0.workload.{k}": {"start": 1, "stop": 200, "num": 200}
                     for k in ("jobs", "mean_work", "mean_interarrival")}},
     "sweep: 8,000,000 points is more than 1,000,000; sweep fewer values"),
    ({"parameters": {"clients.0": [1], "clients.0.name": ["a"]}},
     "sweep.parameters: clients.0.name: overlaps clients.0, swept too"),
    ({"metrics": ["profit_rat"]}, "sweep.metrics: unknown metric 'profit_rat' (have: offered,"),
    ({"metrics": []}, "sweep.metrics: list at least one metric"),
    ({"parameters": {"clients.0.workload.jobz": [10]}},
     "sweep.parameters (clients.0.workload.jobz=10): clients.0.workload.jobz: unknown field"),
    ({"parameters": {LOAD: [0.1, -1]}},
     f"sweep.parameters ({LOAD}=-1): {LOAD}: Input should be greater than 0"),
    ({"parameters": {"clients.3.name": ["x"]}}, "clients.3: no item 3 (the list has 1)"),
    ({"parameters": {"service_providers.0.admission": ["accept_all"]}},
     "sweep.parameters: service_providers.0.admission is also set by variant "
     "'FirstProfit + accept all', which would undo the sweep there"),
]  # fmt: skip


@pytest.mark.parametrize(("sweep", "message"), BAD_SWEEPS)
def test_bad_sweeps_get_a_one_line_error_naming_the_field(tmp_path, capsys, sweep, message):
    data = load(DEFAULT_SCENARIO).model_dump(mode="json")
    data["variants"] = POLICIES
    data["sweep"] = {"parameters": {LOAD: [0.1, 0.2]}, **sweep}
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    code = main(["sweep", str(path), "--workers", "1", "--out", str(tmp_path / "out")])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"gridmarket: error: {path}")
    assert message in err
    assert not (tmp_path / "out").exists()


BAD_COMMANDS = [
    (["sweep", str(DEFAULT_SCENARIO)], "no sweep section (add sweep: with the parameters"),
    (["sweep", "missing.yaml"], "missing.yaml: no such scenario file"),
    (["sweep", "{fig3}", "--workers", "0"], "--workers: must be >= 1"),
    (["sweep", "{fig3}", "--scheduler", "somewhere"], "is not tcp://HOST:PORT or local"),
    (["sweep", "{fig3}", "--scheduler", "tcp://127.0.0.1:9", "--workers", "2"],
     "--workers: the Dask cluster at --scheduler has its own workers"),
    (["sweep", "{fig3}", "--set", "sweep.mode=grid"], "--set: sweep.mode: input should be"),
    (["sweep", "{fig3}", "--out", "{file}"], "is a file"),
    (["sweep", "{fig3}", "--out", "{full}"], "is not empty and holds no sweep"),
    (["sweep", "{fig3}", "--out", "{full}", "--resume"], "is not empty and holds no sweep"),
    (["report", "{full}"], "no sweep results here (no manifest.json, no runs/)"),
    (["report", "{tmp}/nowhere"], "no such results directory"),
    (["report", "{done}", "--metrics", "profit,speed"], "--metrics: 'speed' is not in the results"),
    (["report", "{done}", "--error", "se"], "invalid choice: 'se'"),
]  # fmt: skip


@pytest.fixture(scope="module")
def done_sweep(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("done")
    run_sweep(SweepPlan.from_scenario(small(replications=1)), out, executor=InProcess())
    return out


@pytest.mark.parametrize(("argv", "message"), BAD_COMMANDS)
def test_bad_commands_get_a_one_line_error(tmp_path, capsys, done_sweep, argv, message):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    (tmp_path / "file").write_text("")
    names = {"fig3": ROOT / "scenarios/profit/fig3_load.yaml", "file": tmp_path / "file",
             "full": tmp_path / "full", "tmp": tmp_path, "done": done_sweep}  # fmt: skip
    code = main([arg.format(**names) for arg in argv])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("gridmarket: error: ")
    assert message in err
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["notes.txt"]  # left alone


def test_an_unreachable_scheduler_is_a_one_line_error(tmp_path):
    plan = SweepPlan.from_scenario(small(replications=1))
    executor = DaskCluster("tcp://127.0.0.1:9", timeout="1s")
    with pytest.raises(batch.BatchError, match=r"--scheduler: cannot reach tcp://127.0.0.1:9 \("):
        run_sweep(plan, tmp_path, executor=executor)


def test_a_scenario_without_a_sweep_cannot_be_planned():
    with pytest.raises(ScenarioError, match="no sweep section"):
        SweepPlan.from_scenario(load(DEFAULT_SCENARIO))
