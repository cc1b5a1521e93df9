"""The sweep and report commands (``run`` still runs a scenario that has a sweep), and the
report: mean and error bars per policy at each point, a figure per metric that has values."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from market.cli.main import main
from market.experiments.batch import InProcess, load_results, run_sweep
from market.experiments.report import make_report
from market.experiments.sweep import SUMMARY_METRICS, SweepPlan
from tests.conftest import ROOT
from tests.model.sweeps import LOAD, PRICE, VARIANTS, small, write


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
    assert re.search(r"runs/s, on this process \(\d+\.\d CPU s in the runs\)$", lines[1])
    code = main(["sweep", str(scenario_file), "--out", str(out), "--resume", "--workers", "2",
                 "--set", "sweep.replications=3"])  # fmt: skip
    printed, _ = capsys.readouterr()
    assert code == 0 and "ran 4 of 4 missing runs (8 were done)" in printed
    assert "runs/s, on 2 local processes (" in printed
    # The runs' CPU time, measured in the workers (a forkserver's children, not this process's)
    cpu = [s["cpu_seconds"] for s in json.loads((out / "manifest.json").read_text())["sessions"]]
    assert len(cpu) == 2 and all(seconds > 0 for seconds in cpu)
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
