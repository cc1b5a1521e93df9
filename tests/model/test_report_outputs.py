"""A sweep's report: styles, labelled log axes and the
risk table across replications, on a small sweep of the profit paper's market."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from market.cli.main import main
from market.experiments.batch import InProcess, load_results, run_sweep
from market.experiments.replication_risk import describe
from market.experiments.report import make_report
from market.experiments.style import policy_style
from market.experiments.sweep import SweepPlan
from market.inputs.scenario import load
from tests.conftest import DEFAULT_SCENARIO

LOAD = "clients.0.workload.mean_interarrival"
POLICIES = {
    "FirstProfit": {},
    "FirstProfit, accept all": {"service_providers.0.admission": "accept_all"},
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    sweep = {"parameters": {LOAD: [0.1, 0.3, 0.9]}, "replications": 3,
             "labels": {LOAD: "mean inter-arrival time (h)"}}  # fmt: skip
    scenario = load(DEFAULT_SCENARIO).with_overrides(
        {"clients.0.workload.jobs": 15, "variants": POLICIES, "sweep": sweep}
    )
    run_sweep(SweepPlan.from_scenario(scenario), out, executor=InProcess())
    return out


def figure_json(path) -> tuple[list, dict]:
    html = path.read_text()
    match = re.search(r'Plotly.newPlot\(\s*"[^"]+",\s*(\[.*?\]),\s*(\{.*?\})\s*,\s*\{', html, re.S)
    return json.loads(match.group(1)), json.loads(match.group(2))


def test_figures_use_each_policys_style_and_the_sweeps_label_on_a_log_axis(results, tmp_path):
    report = make_report(results, tmp_path, metrics=["profit_rate"], png=False)
    (path,) = report.figures
    data, layout = figure_json(path)
    for trace in data:
        colour, marker = policy_style(trace["name"])
        assert trace["line"]["color"] == colour and trace["marker"]["symbol"] == marker
    assert layout["xaxis"]["type"] == "log"  # 0.1, 0.3, 0.9: geometric
    assert layout["xaxis"]["title"]["text"] == "mean inter-arrival time (h)"
    assert layout["xaxis"]["tickvals"] == [0.1, 0.3, 0.9]


def test_the_risk_table_per_point_and_policy(results, tmp_path, capsys):
    report = make_report(results, tmp_path, metrics=["profit"], png=False)
    risk = pd.read_csv(report.risk)
    frame = load_results(results)
    assert len(risk) == 3 * 2 and set(risk["outcome"]) == {"profit"}  # no surplus column yet
    at = (risk[LOAD] == 0.9) & (risk["variant"] == "FirstProfit, accept all")
    row = risk[at].iloc[0]
    values = frame[(frame[LOAD] == 0.9) & (frame["variant"] == "FirstProfit, accept all")].profit
    expected = describe(values)
    for column in ("n", "mean", "ci95", "q05", "cvar05", "p_loss"):
        assert row[column] == pytest.approx(expected[column])
    assert row["cvar05"] == pytest.approx(values.min())  # 3 runs: the 5 % tail is the worst run
    assert "Risk across replications" in report.index.read_text()
    assert main(["report", str(results), "--out", str(tmp_path / "r"), "--metrics", "profit"]) == 0
    out = capsys.readouterr().out
    assert "risk across replications" in out and "CVaR 5 %" in out and "P(loss) %" in out
