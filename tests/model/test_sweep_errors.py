"""Bad sweeps and bad sweep or report commands: one line naming the field or argument, exit 2,
and nothing written where the results would go."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from market.cli.main import main
from market.experiments import batch
from market.experiments.batch import DaskCluster, InProcess, run_sweep
from market.experiments.sweep import SweepPlan
from market.inputs.scenario import ScenarioError, load
from tests.conftest import DEFAULT_SCENARIO, ROOT
from tests.model.sweeps import LOAD, POLICIES, PRICE, small

# -- bad sweeps: one line naming the field ---------------------------------------------------------
BAD_SWEEPS = [
    ({"replication": 3}, "sweep.replication: unknown field"),
    ({"labels": {"clients.0.workload.jobs": "n"}},
     f"sweep: labels: clients.0.workload.jobs is not a swept parameter (swept: {LOAD}; label"),
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
    ({"metrics": ["profit_rat"]},
     "sweep.metrics: unknown metric 'profit_rat', did you mean 'profit_rate'? (have: offered,"),
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
    (["sweep", "{fig3}", "--workers", "0"], "--workers: 0 is out of range (from 1 to "),
    (["sweep", "{fig3}", "--workers", "100000"], "--workers: 100000 is out of range (from 1 to "),
    (["sweep", "{fig3}", "--scheduler", "somewhere"], "is not tcp://HOST:PORT or local"),
    (["sweep", "{fig3}", "--scheduler", "tcp://127.0.0.1:9", "--workers", "2"],
     "--workers: the Dask cluster at --scheduler has its own workers"),
    (["sweep", "{fig3}", "--set", "sweep.mode=grid"], "--set: sweep.mode: input should be"),
    (["sweep", "{fig3}", "--out", "{file}"], "is a file"),
    (["sweep", "{fig3}", "--out", "{full}"], "is not empty and holds no sweep"),
    (["sweep", "{fig3}", "--out", "{full}", "--resume"], "is not empty and holds no sweep"),
    (["report", "{full}"], "no sweep results here (no manifest.json, no runs/)"),
    (["report", "{tmp}/nowhere"], "no such results directory"),
    (["report", "{file}"], "file: not a results directory (nor a results .parquet file)"),
    (["calibrate", "{file}"], "file: not a results directory but a file"),
    (["calibrate", "{tmp}/nowhere"], "nowhere: no such results directory"),
    (["report", "{long}"], "... (5,000 characters): no such results directory"),  # (not a
    (["calibrate", "{long}"], "... (5,000 characters): no such results directory"),  # traceback)
    (["report", "{done}", "--out", "{long}"], "... (5,000 characters) (File name too long)"),
    (["sweep", "{fig3}", "--out", "{long}"], "(5,000 characters): cannot write results (File"),
    (["reproduce", "profit", "--stored", "--out", "{long}"], "no results directory aaaa"),
    (["report", "{done}", "--metrics", "profit,speed"], "--metrics: 'speed' is not in the results"),
    (["report", "{done}", "--metrics", "utilisation"],
     "--metrics: 'utilisation' is not in the results, did you mean 'utilization'? (have: "),
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
             "full": tmp_path / "full", "tmp": tmp_path, "done": done_sweep,
             "long": "a" * 5000}  # fmt: skip
    code = main([arg.format(**names) for arg in argv])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("gridmarket: error: ")
    assert message in err and len(err) < 1000  # (a long name is cut)
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["notes.txt"]  # left alone


def test_an_unreachable_scheduler_is_a_one_line_error(tmp_path):
    plan = SweepPlan.from_scenario(small(replications=1))
    executor = DaskCluster("tcp://127.0.0.1:9", timeout="1s")
    with pytest.raises(batch.BatchError, match=r"--scheduler: cannot reach tcp://127.0.0.1:9 \("):
        run_sweep(plan, tmp_path, executor=executor)


def test_a_scenario_without_a_sweep_cannot_be_planned():
    with pytest.raises(ScenarioError, match="no sweep section"):
        SweepPlan.from_scenario(load(DEFAULT_SCENARIO))
