"""The live page's figures built directly (the Gantt chart's processor rows, an empty time
series) and the app's wiring: every graph's outputs, the controls' ids, the loopback default,
and a bad scenario given to ``python -m dashboards`` as a one-line error."""

from __future__ import annotations

import pytest

from dashboards import live_page
from dashboards.__main__ import main as module_main
from dashboards.app import create_app, serve
from dashboards.views import GRAPHS, gantt_figure, timeseries_figure

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
