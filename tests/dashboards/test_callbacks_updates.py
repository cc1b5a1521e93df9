"""The live page's incremental updates, called directly (no browser): whole figures first, then
only new points, a stale or lost cursor answered whole, thinned long series, and one tab's run
never touching another's."""

from __future__ import annotations

import json

import pytest
from dash import no_update
from dash.exceptions import PreventUpdate

from dashboards import views
from dashboards.views import GRAPHS, HIDDEN, QOS_GRAPHS, timeseries_figure
from tests.dashboards.conftest import OTHER, SID, apply_extend, control, panel, text

SHOWN = [g for g in GRAPHS if g not in QOS_GRAPHS]  # the profit market: no deadlines


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
