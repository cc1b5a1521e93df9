"""The dashboard fits the run: policy colours that do not follow list
position, no start-up spike in the profit rate, run states and utilization that agree with the
header and the CLI, QoS monitors for a deadline market, a processor-row Gantt."""

from __future__ import annotations

import math

import pytest

from dashboards.gantt import gantt_figure
from dashboards.live_update import graph_outputs
from dashboards.session import Session, rate_warmup
from dashboards.setup import Setup
from dashboards.views import monitor_columns, monitors_view, timeseries_figure
from market.experiments.style import policy_style
from market.inputs.limits import expected_horizon
from market.inputs.scenario import load
from tests.dashboards.conftest import DEFAULT, SID, qops_file, small, text


def test_a_policy_keeps_its_colour_when_others_are_unticked():
    every = Session(SID, small(policies=("FirstProfit", "LJF", "SJF")))
    fewer = Session(SID, small(policies=("SJF",)))
    colours = {line.label: line.colour for line in every.lines}
    assert colours == {p: policy_style(p)[0] for p in ("FirstProfit", "LJF", "SJF")}
    assert fewer.lines[0].colour == colours["SJF"]  # was the first colour of the list
    figure = timeseries_figure("rate", fewer.lines)
    assert figure["data"][0]["line"]["color"] == colours["SJF"]


def test_small_multiples_have_a_legend():
    session = Session(SID, small())
    for graph in ("money", "ops"):
        figure = timeseries_figure(graph, session.lines)
        assert figure["layout"]["showlegend"]
        # one group per policy, no gap between groups: eight names fit a 260 px panel unscrolled
        assert figure["layout"]["legend"]["tracegroupgap"] == 0
        assert [t["name"] for t in figure["data"] if t["showlegend"]] == [
            "FirstProfit",
            "LJF",
            "SJF",
        ]


def test_the_profit_rate_starts_after_the_warm_up():
    scenario = load(DEFAULT)
    # Table 1: 200 x 0.15 h of arrivals + 200 x 7 processor-hours / 10 processors = 170 h
    assert expected_horizon(scenario) == pytest.approx(170.0)
    assert rate_warmup(scenario, 0.5) == pytest.approx(8.5)
    session = Session(SID, small(jobs=200))
    session.advance_to(12.0)
    line = session.lines[0]
    early = [v for t, v in zip(line.t, line.values["profit_rate"], strict=True) if t < 8.5]
    late = [v for t, v in zip(line.t, line.values["profit_rate"], strict=True) if t >= 8.5]
    assert early and all(math.isnan(v) for v in early)  # not drawn: a gap
    assert late and all(math.isfinite(v) for v in late)
    assert all(math.isfinite(v) for v in line.values["profit"])  # the rest is drawn from t = 0
    # the chart, empty over the first hours, says from when its lines start
    notes = graph_outputs(session, None, ["rate"], 1)["rate-figure"]["layout"]["annotations"]
    assert any("drawn from t = 8.5 h on" in note["text"] for note in notes)
    assert timeseries_figure("rate", [])["layout"]["annotations"] == []


def test_monitor_states_follow_the_session_and_finished_runs_keep_their_utilization():
    session = Session(SID, small(jobs=8))
    assert {row["state"] for row in session.monitors()} == {"paused"}
    session.play()
    assert {row["state"] for row in session.monitors()} == {"playing"}
    session.set_speed(100)
    while session.update() and session.playing:
        pass
    rows = session.monitors()
    assert {row["state"] for row in rows} == {"finished"}
    for row in rows:  # the arrival phase's utilization, as the CLI prints it, not an empty pool
        assert row["utilization"] == pytest.approx(row["summary"]["utilization"] / 100)
        assert row["utilization"] > 0
    assert "util %" in text(monitors_view(rows))


def test_a_deadline_market_shows_qos_monitors_and_no_money(tmp_path):
    path = qops_file(tmp_path)
    session = Session(SID, Setup(path, ("QoPS", "EASY (all)")))
    session.advance_to(40.0)
    columns = [key for key, _, _ in monitor_columns(session.monitors())]
    assert {"unadmitted_pct", "deadlines_missed", "deadlines_fulfilled_pct"} <= set(columns)
    assert "bounded_slowdown_10s" in columns  # no money moves: the batch-scheduling measure
    assert not {"profit", "revenue", "rent", "profit_rate", "accepted_pct"} & set(columns)
    shown = text(monitors_view(session.monitors()))
    assert "fulfilled %" in shown and "profit" not in shown


def test_the_gantt_rows_are_the_pools_processors():
    session = Session(SID, small(jobs=30))
    session.advance_to(6.0)
    assert session.capacities() == {"FirstProfit": 10, "LJF": 10, "SJF": 10}
    figure = gantt_figure(session.gantt(), [line.label for line in session.lines], session.now,
                          session.colours(), session.capacities())  # fmt: skip
    layout = figure["layout"]
    assert layout["yaxis"]["tickvals"] == [4.5, 15.5, 26.5]  # 10 rows + a gap row per line
    for trace in figure["data"]:
        assert all(0 <= y < 33 for y in trace["y"])
