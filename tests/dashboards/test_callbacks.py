"""The dashboard's callbacks, called directly (no browser): incremental updates, controls,
field checks, per-tab state, export, and the app's wiring."""

from __future__ import annotations

import base64
import copy
import io
import json
from pathlib import Path

import pandas as pd
import pytest
from dash import no_update
from dash.exceptions import PreventUpdate

from dashboards import live_page, served_scenarios, views
from dashboards.__main__ import main as module_main
from dashboards.app import create_app, serve
from dashboards.session import METRICS
from dashboards.views import GRAPHS, HIDDEN, QOS_GRAPHS, gantt_figure, timeseries_figure
from tests.dashboards.conftest import DEFAULT, OTHER, SID

SHOWN = [g for g in GRAPHS if g not in QOS_GRAPHS]  # the profit market: no deadlines

HINT = " (choose one from the list, or upload it)"


def text(component) -> str:
    """All the text inside a Dash component tree."""
    if component is None:
        return ""
    if isinstance(component, str | int | float):
        return str(component)
    if isinstance(component, list | tuple):
        return " ".join(text(c) for c in component)
    return text(getattr(component, "children", None))


def apply_extend(figure: dict, payload: list) -> dict:
    """What ``Plotly.extendTraces`` does with a ``dcc.Graph.extendData`` payload."""
    figure = copy.deepcopy(figure)
    update, indices = payload
    for k, index in enumerate(indices):
        for key, values in update.items():
            figure["data"][index][key] = figure["data"][index][key] + values[k]
    return figure


def control(callbacks, trigger, sid=SID, **kw):
    args = {
        "speed": 2,
        "until": None,
        "scenario_path": DEFAULT,
        "setup_values": None,
        "setup_ids": None,
        "param_values": None,
        "param_ids": None,
        "nudge": 0,
    }
    args.update(kw)
    return callbacks.control(trigger, sid, *args.values())


def panel(policies=("FirstProfit", "LJF"), mode="parallel", pool="own", **params):
    """The set-up panel's values as the control callback receives them."""
    setup_ids = [{"type": "setup", "name": n} for n in ("mode", "pool", "policies")]
    values = {"mean_interarrival": 0.15, "price": 3.0, "capacity": 10, "jobs": 30}
    values.update(params)
    values = {"sigma": 0.0, "risk_bound": None} | values
    values |= {"seed": values.get("seed", 1)}
    return {
        "setup_values": [mode, pool, list(policies)],
        "setup_ids": setup_ids,
        "param_values": list(values.values()),
        "param_ids": [{"type": "param", "name": n} for n in values],
    }


# -- incremental updates ----------------------------------------------------------------------


def test_first_update_sends_whole_figures(callbacks):
    out = callbacks.update(SID, None, {"n": 0, "t": 1}, advance=True)
    assert out["ack"] == 0
    for graph in SHOWN:
        figure = out[f"{graph}-figure"]
        assert len(figure["data"]) == 3 * len(GRAPHS[graph])  # a trace per (metric, line)
        assert [t["name"] for t in figure["data"][:3]] == ["FirstProfit", "LJF", "SJF"]
        assert out[f"{graph}-extend"] is no_update and out[f"{graph}-style"] == {}
    for graph in QOS_GRAPHS:  # no deadlines: hidden, and empty
        assert out[f"{graph}-style"] == HIDDEN and out[f"{graph}-figure"]["data"] == []
    assert out["cursor"]["sid"] == SID and out["cursor"]["counts"] == [1, 1, 1]
    assert "t = 0.00 h" in text(out["status"]) and "paused" in text(out["status"])
    assert "FirstProfit" in text(out["monitors"])


def test_later_updates_send_only_new_points(callbacks):
    first = callbacks.update(SID, None, {"n": 0}, advance=True)
    figures = {g: first[f"{g}-figure"] for g in SHOWN}
    cursor = first["cursor"]

    idle = callbacks.update(SID, cursor, {"n": 1}, advance=True)  # paused: nothing new
    parts = ("figure", "extend", "style")
    assert all(idle[f"{g}-{p}"] is no_update for g in GRAPHS for p in parts)
    assert idle["gantt"] is no_update and idle["monitors"] is no_update
    assert idle["ack"] == 1

    control(callbacks, "start")
    for n in range(2, 6):
        out = callbacks.update(SID, cursor, {"n": n}, advance=True)
        assert all(out[f"{g}-{p}"] is no_update for g in QOS_GRAPHS for p in parts)
        for graph in SHOWN:
            assert out[f"{graph}-figure"] is no_update
            payload = out[f"{graph}-extend"]
            update, indices = payload
            assert len(indices) == 3 * len(GRAPHS[graph])
            assert all(len(xs) == 2 for xs in update["x"])  # 1 h per update, a point per 0.5 h
            json.dumps(payload, allow_nan=False)
            figures[graph] = apply_extend(figures[graph], payload)
        cursor = out["cursor"]
        assert out["monitors"] is not no_update and out["gantt"] is not no_update

    # the figures built from the increments are the figures built whole
    fresh = callbacks.update(SID, None, {"n": 6}, advance=False)
    for graph in SHOWN:
        built = [(t["x"], t["y"]) for t in figures[graph]["data"]]
        whole = [(t["x"], t["y"]) for t in fresh[f"{graph}-figure"]["data"]]
        assert built == whole
        assert len(whole[0][0]) == 9  # t = 0, 0.5, ..., 4


def test_a_superseded_update_loses_no_points(callbacks):
    """If the browser drops a response, it asks again with its old cursor and gets it all."""
    cursor = callbacks.update(SID, None, {"n": 0}, advance=True)["cursor"]
    control(callbacks, "start")
    callbacks.update(SID, cursor, {"n": 1}, advance=True)  # response lost
    out = callbacks.update(SID, cursor, {"n": 2}, advance=True)
    update, _ = out["rate-extend"]
    assert update["x"][0] == [0.5, 1.0, 1.5, 2.0]


@pytest.mark.parametrize("stale", ["generation", "sid", "counts", "garbage"])
def test_a_stale_cursor_gets_whole_figures(callbacks, stale):
    cursor = callbacks.update(SID, None, {"n": 0}, advance=True)["cursor"]
    if stale == "generation":
        control(callbacks, "reset", **panel())
    elif stale == "sid":
        cursor = callbacks.update(OTHER, None, {"n": 0}, advance=True)["cursor"]
    elif stale == "counts":
        cursor = {**cursor, "counts": [5, 5, 5]}
    else:
        cursor = "not a cursor"
    out = callbacks.update(SID, cursor, {"n": 1}, advance=False)
    assert all(out[f"{g}-figure"] is not no_update for g in GRAPHS)
    assert all(out[f"{g}-extend"] is no_update for g in GRAPHS)


def test_long_series_show_every_kth_point(callbacks, monkeypatch):
    monkeypatch.setattr(views, "DISPLAY_LIMIT", 4)
    out = callbacks.update(SID, None, {"n": 0}, advance=True)
    figure, cursor = out["rate-figure"], out["cursor"]
    control(callbacks, "start")  # 2 points per update from now on
    strides, redraws = [], 0
    for n in range(1, 8):
        out = callbacks.update(SID, cursor, {"n": n}, advance=True)
        if out["rate-figure"] is not no_update:
            figure, redraws = out["rate-figure"], redraws + 1
        elif out["rate-extend"] is not no_update:
            figure = apply_extend(figure, out["rate-extend"])
        cursor = out["cursor"]
        strides.append(cursor["stride"])
        with callbacks.registry.use(SID) as session:
            whole = timeseries_figure("rate", session.lines, stride=cursor["stride"])
            assert session.counts() == cursor["counts"] == [1 + 2 * n] * 3
        assert [(t["x"], t["y"]) for t in figure["data"]] == [
            (t["x"], t["y"]) for t in whole["data"]
        ]
        assert len(figure["data"][0]["x"]) <= 4
    assert strides == [1, 2, 2, 4, 4, 4, 4] and redraws == 2  # redrawn when the stride changes


def test_updates_need_a_well_formed_session_id(callbacks):
    for sid in (None, "", "no", "<script>"):
        with pytest.raises(PreventUpdate):
            callbacks.update(sid, None, {"n": 0}, advance=True)


def test_only_pulses_advance_time(callbacks):
    control(callbacks, "start")
    callbacks.update(SID, None, {"n": 0}, advance=False)
    with callbacks.registry.use(SID) as session:
        assert session.now == 0.0
    callbacks.update(SID, None, {"n": 1}, advance=True)
    with callbacks.registry.use(SID) as session:
        assert session.now == pytest.approx(1.0)


def test_tabs_do_not_interfere(callbacks):
    a = callbacks.update(SID, None, {"n": 0}, advance=True)["cursor"]
    b = callbacks.update(OTHER, None, {"n": 0}, advance=True)["cursor"]
    control(callbacks, "start", sid=SID)
    for n in range(1, 4):
        a = callbacks.update(SID, a, {"n": n}, advance=True)["cursor"]
        out = callbacks.update(OTHER, b, {"n": n}, advance=True)
        assert out["rate-extend"] is no_update
    assert a["counts"] == [7, 7, 7] and out["cursor"]["counts"] == [1, 1, 1]
    control(callbacks, "reset", sid=OTHER, **panel(policies=("SJF",)))
    with callbacks.registry.use(SID) as session:
        assert len(session.lines) == 3 and session.now == pytest.approx(3.0)


def test_a_reload_gets_the_run_in_progress(callbacks):
    cursor = callbacks.update(SID, None, {"n": 0}, advance=True)["cursor"]
    control(callbacks, "start")
    for n in range(1, 4):
        cursor = callbacks.update(SID, cursor, {"n": n}, advance=True)["cursor"]
    reloaded = callbacks.update(SID, None, {"n": 0}, advance=False)  # memory store is empty
    assert len(reloaded["rate-figure"]["data"][0]["x"]) == 7
    assert "playing" in text(reloaded["status"])


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
        assert model.service_providers["sp"].risk == 0.1
    _, message = control(callbacks, "reset", **panel(risk_bound=2))
    assert message.startswith("Not reset: service_providers.0.risk: Input should be less than 1")


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


def test_start_after_the_end_says_so(callbacks):
    control(callbacks, "reset", **panel(("LJF",), jobs=3))
    with callbacks.registry.use(SID) as session:
        session.advance_to(1000.0)
        assert session.finished
    _, message = control(callbacks, "start")
    assert message == "The run has finished: Reset to run it again."


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


# -- set-up panel -----------------------------------------------------------------------------


def test_field_check_shows_the_scenarios_message(callbacks):
    field = {"type": "param", "name": "mean_interarrival"}
    assert callbacks.check_field(0.3, field, DEFAULT) == ""
    assert callbacks.check_field(-1, field, DEFAULT) == (
        "clients.0.workload.mean_interarrival: Input should be greater than 0"
    )
    assert callbacks.check_field(None, field, DEFAULT).endswith("enter a number")
    capacity = {"type": "param", "name": "capacity"}
    assert "valid integer" in callbacks.check_field(2.5, capacity, DEFAULT)
    assert callbacks.check_field(1, {"type": "param", "name": "nope"}, DEFAULT) == ""
    message = callbacks.check_field(1, field, "/no/such.yaml")
    assert message.endswith(
        "not a file of the scenario folders (choose one from the list, or upload it)"
    )
    assert callbacks.check_policies([]) == "tick at least one policy"
    assert callbacks.check_policies(["LJF"]) == ""


def test_page_load_shows_the_tabs_scenario_and_speed(callbacks):
    control(callbacks, "speed", speed=5)
    options, value, message, speed = callbacks.choose_scenario("sid", SID, 0, None, None)
    assert value == DEFAULT and speed == 5 and message == ""
    assert {"label": "profit/default.yaml", "value": DEFAULT} in options


def test_load_a_scenario_by_path_or_upload(callbacks, tmp_path):
    options = [{"label": "profit/default.yaml", "value": DEFAULT}]
    outside = tmp_path / "good.yaml"
    outside.write_text(Path(DEFAULT).read_text())
    result = callbacks.choose_scenario("load-path", SID, 1, str(outside), options)
    assert result[:2] == (no_update, no_update)
    assert result[2] == (
        f"{outside}: not a file of the scenario folders (choose one from the list, or upload it)"
    )
    result = callbacks.choose_scenario("load-path", SID, 1, "  ", options)
    assert result[2] == "enter the path of a scenario file"

    # a name in a scenario folder loads
    options_after, value, message, _ = callbacks.choose_scenario(
        "load-path", SID, 2, "profit/default", options
    )
    assert (value, message) == (DEFAULT, "") and options_after == options

    # an upload loads, and a bad one says why in one line
    bad = (
        "data:application/x-yaml;base64,"
        + base64.b64encode(b"resource_providers:\n  - capacity: 0\n").decode()
    )
    result = callbacks.choose_scenario("scenario-upload", SID, 2, None, options, bad, "bad.yaml")
    assert result[:2] == (no_update, no_update)
    assert result[2].endswith(
        "/bad.yaml: resource_providers.0.capacity: Input should be greater than or equal to 1"
    )
    good = "data:;base64," + base64.b64encode(outside.read_bytes()).decode()
    options_after, value, message, _ = callbacks.choose_scenario(
        "scenario-upload", SID, 3, None, options, good, "good.yaml"
    )
    assert value.startswith("upload:") and value.endswith("/good.yaml") and message == ""
    assert options_after[-1] == {"label": "good.yaml (uploaded)", "value": value}


def test_setup_fields_show_the_tabs_values_for_its_scenario(callbacks, tmp_path):
    control(callbacks, "reset", **panel(("LJF",), mode="market", price=4.5))
    fields, message = callbacks.render_setup(DEFAULT, SID)
    assert message == ""
    by_id = {}

    def walk(c):
        if isinstance(c, list | tuple):
            for x in c:
                walk(x)
        elif c is not None and not isinstance(c, str | int | float):
            cid = getattr(c, "id", None)
            if cid is not None:
                by_id[json.dumps(cid, sort_keys=True)] = c
            walk(getattr(c, "children", None))

    walk(fields)

    def field(kind, name):
        return by_id[json.dumps({"name": name, "type": kind}, sort_keys=True)]

    assert field("setup", "mode").value == "market"
    assert field("setup", "policies").value == ["LJF"]
    assert field("param", "price").value == 4.5
    assert not field("param", "sigma").disabled and not field("param", "risk_bound").disabled
    assert field("param", "sigma").value == 0.0

    other = tmp_path / "other.yaml"
    other.write_text(Path(DEFAULT).read_text())
    served_scenarios.allow(other)  # as `gridmarket dashboard other.yaml` does
    fields, message = callbacks.render_setup(str(other), SID)  # another file: its own values
    assert message == ""
    by_id.clear()
    walk(fields)
    assert field("param", "price").value == 3.0
    assert field("setup", "mode").value == "parallel"

    fields, message = callbacks.render_setup("/no/such.yaml", SID)
    assert fields == [] and message.endswith("not a file of the scenario folders" + HINT)


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


# -- views and app ----------------------------------------------------------------------------


def test_gantt_has_processor_rows_and_hover_details():
    rows = [
        {"line": "A", "job": 1, "processors": 2, "start": 0.0, "end": 2.0, "status": "running",
         "expected_profit": 10.0},
        {"line": "A", "job": 2, "processors": 1, "start": 1.0, "end": 3.0, "status": "running",
         "expected_profit": 5.0},
        {"line": "A", "job": 3, "processors": 3, "start": 2.0, "end": 4.0, "status": "planned",
         "expected_profit": -1.0},
    ]  # fmt: skip
    figure = gantt_figure(rows, ["A", "B"], now=1.5, capacities={"A": 4, "B": 2})
    running, planned = figure["data"]
    # job 1 takes processors 0-1, job 2 processor 2; at t = 2 job 1 ends (ends come first), so
    # job 3 takes 0-1 and a new one, 3: two bars, the number on the first
    assert running["y"] == [0.5, 2.0] and running["width"] == pytest.approx([1.86, 0.86])
    assert planned["y"] == [0.5, 3.0] and planned["text"] == ["3", ""]
    assert planned["customdata"][0][:5] == [3, 3, 2.0, 4.0, -1.0]
    assert planned["customdata"][0][8] == "0-1, 3"
    assert "expected profit" in running["hovertemplate"]
    # A has rows 0-3, a gap row 4, B rows 5-6: labels mid-block, processor 0 of A on top
    layout = figure["layout"]
    assert layout["yaxis"]["tickvals"] == [1.5, 5.5]
    assert layout["yaxis"]["ticktext"][1].startswith("<b>B</b>")
    assert layout["yaxis"]["range"] == [6.5, -0.5]
    assert [s["y0"] for s in layout["shapes"] if s.get("xref") == "paper"] == [4.0]
    # the colour of a line is its policy's, not its position's
    alone = gantt_figure(rows[:1], ["A"], now=0.0, colours={"A": "#123456"})
    assert alone["data"][0]["marker"]["color"] == ["#123456"]


def test_empty_timeseries_figure():
    figure = timeseries_figure("money", [])
    assert figure["data"] == [] and "xaxis3" in figure["layout"]


def test_app_wiring():
    app = create_app()
    outputs = " ".join(app.callback_map)
    for graph in GRAPHS:
        for part in ("extendData", "figure", "style"):
            assert f"{graph}-graph.{part}" in outputs
    for name in ("gantt-graph.figure", "download-timeseries.data", "download-jobs.data",
                 "nudge.data", "pulse.data", "sid.data"):  # fmt: skip
        assert name in outputs
    assert "storage_type='session'" in str(app.layout)  # the tab's id, shared by the pages
    layout = str(live_page.layout(app.gridmarket_state.options("live")))
    for name in ("start", "pause", "step", "run-until", "reset", "speed", "until"):
        assert f"id='{name}'" in layout


def test_serve_binds_loopback_by_default():
    import inspect

    assert inspect.signature(serve).parameters["host"].default == "127.0.0.1"
    assert inspect.signature(serve).parameters["port"].default == 8050


def test_bad_scenario_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: -1\n")
    assert module_main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == f"gridmarket: error: {bad}: seed: Input should be greater than or equal to 0\n"
