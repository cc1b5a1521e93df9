"""The live page fits a deadline market: QoS charts over time where jobs
have deadlines, money charts where money moves, both where both (decided from the run through
market/results/outputs.py); the curves end at the run summary's values; the paper views record
through
the session's public hook. Small QoPS and VQoPS markets on synthetic traces (no trace file)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dash import no_update

from dashboards import served_scenarios
from dashboards.callbacks import Callbacks
from dashboards.paper_session import ViewSession
from dashboards.session import QOS, Session
from dashboards.setup import Setup
from dashboards.tab_sessions import TabSessions
from dashboards.views import GRAPHS, HIDDEN, MONEY_GRAPHS, QOS_GRAPHS
from market.results.job_outcomes import job_outcomes
from market.results.outcome_curves import qos_curves
from market.results.result import RunResult
from tests.dashboards.conftest import SID, apply_extend, qops_file, small
from tests.dashboards.test_paper_views import shipped

QOPS = ("QoPS", "EASY (all)")  # EASY admitting every job misses deadlines; QoPS does not


@pytest.fixture(scope="module")
def qops_path(tmp_path_factory) -> str:
    """QoPS on a synthetic 16-processor trace of 60 jobs, 20 % with a user deadline (the rest
    best-effort), sampled every hour."""
    return qops_file(tmp_path_factory.mktemp("qops"), "sdsc_mixed")


def callbacks_for(setup: Setup) -> Callbacks:
    return Callbacks(TabSessions(lambda: setup), [])


def shown(out: dict) -> dict[str, bool]:
    """Per graph, whether an update leaves it shown; a style it sends says the same."""
    now = {g: g in out["cursor"]["shown"] for g in GRAPHS}
    for graph, visible in now.items():
        assert out[f"{graph}-style"] in (no_update, {} if visible else HIDDEN)
    return now


def test_a_deadline_market_shows_qos_charts_and_no_money_chart(qops_path):
    callbacks = callbacks_for(Setup(qops_path, QOPS))
    first = callbacks.update(SID, None, {"n": 0}, advance=False)
    assert shown(first) == {g: g not in QOS_GRAPHS for g in GRAPHS}  # t = 0: nothing known
    with callbacks.registry.use(SID) as session:
        session.advance_to(6.0)
    out = callbacks.update(SID, first["cursor"], {"n": 1}, advance=False)
    # the run says what it is: the QoS charts replace the money charts, whole
    assert shown(out) == {g: g not in MONEY_GRAPHS for g in GRAPHS}
    for graph in MONEY_GRAPHS:  # hidden and emptied, not flat zeros
        assert out[f"{graph}-figure"]["data"] == [] and out[f"{graph}-extend"] is no_update
    qos, slowdown = out["qos-figure"], out["slowdown-figure"]
    assert [t["name"] for t in qos["data"]] == [*QOPS] * 3  # a trace per (metric, line)
    assert len(slowdown["data"]) == 2 * 2
    titles = " ".join(a["text"] for a in qos["layout"]["annotations"])
    assert "unadmitted" in titles and "missed" in titles and "fulfilled" in titles
    with callbacks.registry.use(SID) as session:
        colours = session.colours()
    assert [t["line"]["color"] for t in qos["data"][:2]] == [colours[p] for p in QOPS]
    assert colours["QoPS"] != colours["EASY (all)"]
    # and a whole redraw (a reload) shows the same
    assert shown(callbacks.update(SID, None, {"n": 2}, advance=False)) == shown(out)


def test_the_profit_market_still_shows_its_money_charts():
    callbacks = callbacks_for(small(jobs=40))
    with callbacks.registry.use(SID) as session:
        session.advance_to(20.0)
        assert any(line.values["revenue"][-1] for line in session.lines)  # money has moved
    out = callbacks.update(SID, None, {"n": 0}, advance=False)
    assert shown(out) == {g: g not in QOS_GRAPHS for g in GRAPHS}
    assert len(out["money-figure"]["data"]) == 3 * 3
    assert all(out[f"{g}-figure"]["data"] == [] for g in QOS_GRAPHS)
    with callbacks.registry.use(SID) as session:  # no QoS chart shown: no QoS curve computed
        assert all(len(line.values[name]) == 0 for line in session.lines for name in QOS)


def test_a_priced_deadline_market_shows_money_and_qos(tmp_path):
    # the VQoPS paper: priced jobs with deadlines on a free pool (revenue, no rent)
    path = shipped(tmp_path, "vqops", {"first_jobs": 40}, n=50)
    served_scenarios.allow(path)
    callbacks = callbacks_for(Setup(path, ("QoPS",), overrides=(("sample_interval", 1.0),)))
    with callbacks.registry.use(SID) as session:
        session.advance_to(1e6)
        assert session.lines[0].values["revenue"][-1] > 0
    out = callbacks.update(SID, None, {"n": 0}, advance=False)
    assert all(shown(out).values())
    assert out["rate-figure"]["data"] and out["qos-figure"]["data"]


def test_the_curves_end_at_the_run_summary_and_are_its_definitions_at_every_sample(qops_path):
    callbacks = callbacks_for(Setup(qops_path, QOPS))
    cursor = callbacks.update(SID, None, {"n": 0}, advance=False)["cursor"]
    figures = {}
    with callbacks.registry.use(SID) as session:
        session.set_speed(6.0)  # 3 h per update: several samples each
        session.play()
    for n in range(1, 200):  # the browser's way: figures built from the increments
        out = callbacks.update(SID, cursor, {"n": n}, advance=True)
        for graph in QOS_GRAPHS:
            if out[f"{graph}-figure"] is not no_update:
                figures[graph] = out[f"{graph}-figure"]
            elif out[f"{graph}-extend"] is not no_update:
                figures[graph] = apply_extend(figures[graph], out[f"{graph}-extend"])
        cursor = out["cursor"]
        with callbacks.registry.use(SID) as session:
            if session.finished:
                break
    with callbacks.registry.use(SID) as session:
        assert session.finished
        checked = set()
        for k, line in enumerate(session.lines):
            row = RunResult.from_model(session.runs[line.run].model).summary.iloc[0]
            outcomes = job_outcomes(session.runs[line.run].model)[0]
            again = qos_curves(outcomes, np.asarray(line.t))
            for name in QOS:
                # recorded as the run went = the definition applied afterwards, at every sample
                # after the first (t = 0 is sampled before the jobs arriving at 0 are offered,
                # as the snapshot's own metrics are)
                recorded = list(line.values[name])[1:]
                assert recorded == pytest.approx(list(again[name][1:]), nan_ok=True)
                # the last point is the summary's value
                assert line.values[name][-1] == pytest.approx(row[name], nan_ok=True)
                if math.isfinite(row[name]) and row[name] > 0:
                    checked.add(name)
            # the charts show those points: the last of each trace of this line
            for graph in QOS_GRAPHS:
                metrics = [m for m, _, _ in GRAPHS[graph]]
                for m, name in enumerate(metrics):
                    trace = figures[graph]["data"][m * len(session.lines) + k]
                    assert trace["name"] == line.label and trace["x"][-1] == line.t[-1]
                    assert trace["y"][-1] == pytest.approx(
                        None if math.isnan(row[name]) else row[name]
                    )
    assert checked == set(QOS)  # every curve was tested on a value, not only on NaN or 0


def test_the_paper_views_record_through_the_public_hook():
    assert "_record" not in vars(ViewSession) and "on_sample" in vars(ViewSession)
    calls = []

    class Recording(Session):
        def on_sample(self, runs):
            calls.append((self.now, list(runs), [len(line) for line in self.lines]))

    session = Recording(SID, small(jobs=10))
    session.advance_to(1.0)  # samples at 0, 0.5, 1 (the scenario's 0.5 h)
    assert calls == [
        (0.0, [0, 1, 2], [1] * 3),
        (0.5, [0, 1, 2], [2] * 3),
        (1.0, [0, 1, 2], [3] * 3),
    ]
