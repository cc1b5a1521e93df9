"""The live page's run controls, called directly (no browser): start, pause, step, speed, run
until, reset with the set-up panel's values (or a one-line reason not to), a model error that
stops the run and not the server, and the CSV export of the run."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from dash.exceptions import PreventUpdate

from dashboards.session import METRICS
from tests.dashboards.conftest import DEFAULT, SID, control, panel, text

RISK_ID = {"type": "param", "name": "risk_bound"}

# -- run controls -----------------------------------------------------------------------------


def test_controls(callbacks):
    nudge, message = control(callbacks, "step", nudge=4)
    assert (nudge, message) == (5, "")
    with callbacks.registry.use(SID) as session:
        stepped = session.now
        assert stepped > 0 and session.counts() == [2, 2, 2]

    control(callbacks, "start")
    with callbacks.registry.use(SID) as session:
        assert session.playing
    control(callbacks, "pause")
    with callbacks.registry.use(SID) as session:
        assert not session.playing

    control(callbacks, "speed", speed=20)
    with callbacks.registry.use(SID) as session:
        assert session.speed == 20

    _, message = control(callbacks, "run-until", until=None)
    assert message == "T: enter a time in hours"
    _, message = control(callbacks, "run-until", until=0.0)
    assert message.startswith("T: must be later than now")
    _, message = control(callbacks, "run-until", until=2.5)
    assert message == ""
    with callbacks.registry.use(SID) as session:
        assert session.playing and session.until == 2.5

    with pytest.raises(PreventUpdate):
        control(callbacks, None)


def test_reset_applies_the_panel(callbacks):
    _, message = control(callbacks, "reset", **panel(("LJF", "SJF"), mode="market", capacity=12))
    assert message == ""
    with callbacks.registry.use(SID) as session:
        assert [line.label for line in session.lines] == ["LJF", "SJF"]
        model = session.runs[0].model
        assert [rp.capacity for rp in model.resource_providers.values()] == [12, 12]
        assert session.setup.mode == "market"


def test_reset_with_uncertain_capacity_and_a_risk_bound(callbacks):
    _, message = control(callbacks, "reset", **panel(("FirstProfit",), sigma=2.0, risk_bound=0.1))
    assert message == ""
    with callbacks.registry.use(SID) as session:
        model = session.runs[0].model
        assert model.resource_providers["rp"].uncertainty.sigma == 2.0
        assert model.service_providers["sp"].planner.risk == 0.1
    _, message = control(callbacks, "reset", **panel(risk_bound=2))
    assert message.startswith("Not reset: service_providers.0.risk: Input should be less than 1")


def test_the_risk_bound_is_a_text_field_so_an_unreadable_value_is_not_taken_for_empty(callbacks):
    """Empty means oblivious; a browser sends a number field it cannot read ("1e", "-") as
    empty, so the field is text and what was typed is checked as typed."""
    fields, _ = callbacks.render_setup(DEFAULT, SID)
    risk = next(f for f in fields if "risk_bound" in str(getattr(f, "children", "")))
    risk_input = next(c for c in risk.children if getattr(c, "id", None) == RISK_ID)
    assert risk_input.type == "text"
    control(callbacks, "reset", **panel(("FirstProfit",), risk_bound="0.2"))
    for typed, said in (
        ("1e", "Input should be a valid number, unable to parse string as a number"),
        ("-", "Input should be a valid number, unable to parse string as a number"),
        ("nan", "Input should be a finite number"),
    ):
        assert callbacks.check_field(typed, RISK_ID, DEFAULT) == f"service_providers.0.risk: {said}"
        _, message = control(callbacks, "reset", **panel(("FirstProfit",), risk_bound=typed))
        assert message == f"Not reset: service_providers.0.risk: {said}"
        with callbacks.registry.use(SID) as session:  # the run with its bound goes on
            assert session.runs[0].model.service_providers["sp"].planner.risk == 0.2
    for empty in ("", "  ", None):  # nothing typed: oblivious
        assert callbacks.check_field(empty, RISK_ID, DEFAULT) == ""
        assert control(callbacks, "reset", **panel(("FirstProfit",), risk_bound=empty))[1] == ""
        with callbacks.registry.use(SID) as session:
            assert session.runs[0].model.service_providers["sp"].planner.risk is None


def test_reset_with_an_invalid_field_keeps_the_run_and_says_why(callbacks):
    control(callbacks, "step")
    _, message = control(callbacks, "reset", **panel(mean_interarrival=-2))
    assert message == (
        "Not reset: clients.0.workload.mean_interarrival: Input should be greater than 0"
    )
    _, message = control(callbacks, "reset", **panel(policies=()))
    assert message == "Not reset: policies: tick at least one"
    _, message = control(callbacks, "reset", **panel(), scenario_path=None)
    assert message == "Not reset: scenario: choose a scenario"
    with callbacks.registry.use(SID) as session:
        assert session.now > 0 and [line.label for line in session.lines] == [
            "FirstProfit",
            "LJF",
            "SJF",
        ]


def test_start_or_run_until_after_the_end_says_so(callbacks):
    control(callbacks, "reset", **panel(("LJF",), jobs=3))
    with callbacks.registry.use(SID) as session:
        session.advance_to(1000.0)
        assert session.finished
    _, message = control(callbacks, "start")
    assert message == "The run has finished: Reset to run it again."
    _, message = control(callbacks, "run-until", until=5000)
    assert message == "The run has finished: Reset to run it again."
    with callbacks.registry.use(SID) as session:
        assert not session.playing and session.status()["state"] == "finished"


def test_a_model_error_stops_the_run_not_the_server(callbacks, monkeypatch, caplog):
    control(callbacks, "start")
    with callbacks.registry.use(SID) as session:
        model = session.runs[0].model

    def broken(time):
        raise RuntimeError("boom")

    monkeypatch.setattr(model, "run_until", broken)
    out = callbacks.update(SID, None, {"n": 1}, advance=True)
    assert "The run stopped at t = 0 h: RuntimeError: boom" in text(out["status"])
    with callbacks.registry.use(SID) as session:
        assert not session.playing
    assert "the run stopped" in caplog.text
    _, message = control(callbacks, "step")
    assert message == "The run stopped at t = 0 h: RuntimeError: boom"


# -- export -----------------------------------------------------------------------------------


def test_export_csv(callbacks):
    control(callbacks, "run-until", until=3.0)
    for n in range(10):
        callbacks.update(SID, None, {"n": n}, advance=True)
    series = callbacks.export_timeseries(1, SID)
    assert series["filename"] == "profit-default-timeseries.csv"
    frame = pd.read_csv(io.StringIO(series["content"]))
    assert set(METRICS) <= set(frame.columns) and set(frame["line"]) == {
        "FirstProfit",
        "LJF",
        "SJF",
    }
    assert frame["time"].max() == pytest.approx(3.0)
    jobs = callbacks.export_jobs(1, SID)
    assert jobs["filename"] == "profit-default-jobs.csv"
    frame = pd.read_csv(io.StringIO(jobs["content"]))
    assert {"run", "provider", "job", "reason", "processors", "start", "end"} <= set(frame.columns)
    with pytest.raises(PreventUpdate):
        callbacks.export_jobs(None, SID)


def test_a_value_that_makes_another_field_invalid_is_named_under_its_own_field(callbacks):
    """A mean inter-arrival time of 1e5 h makes the run 2e7 h long: too many samples of the
    scenario's 0.5 h, a field the panel does not show; the message starts with the field typed
    in, and says which other field it breaks and why."""
    field = {"type": "param", "name": "mean_interarrival"}
    said = callbacks.check_field(1e5, field, DEFAULT)
    assert said.startswith(
        "clients.0.workload.mean_interarrival: 100000.0 does not fit the rest of the scenario "
        "(sample_interval: 0.5 h takes more than 1,000,000 samples"
    )
    _, message = control(callbacks, "reset", **panel(mean_interarrival=1e5))  # 30 jobs: 3e6 h
    assert message == (
        "Not reset: clients.0.workload.mean_interarrival: 100000.0 does not fit the rest of the "
        "scenario (sample_interval: 0.5 h takes more than 1,000,000 samples over the run's "
        "expected 3.00002e+06 h; use at least 3)"
    )
    # another field may mend it: 1e4 h alone is too long with the file's 200 jobs, not with 20
    assert "does not fit" in callbacks.check_field(1e4, field, DEFAULT)
    assert control(callbacks, "reset", **panel(mean_interarrival=1e4, jobs=20))[1] == ""
    with callbacks.registry.use(SID) as session:
        assert session.runs[0].model.spec.clients[0].workload.mean_interarrival == 1e4
    assert callbacks.check_field(-1, field, DEFAULT) == (  # its own bound: as the model says
        "clients.0.workload.mean_interarrival: Input should be greater than 0"
    )
