"""The live page's incremental redraw, in small named steps (:func:`update`). The browser says
what it holds in ``cursor`` (tab, generation of the runs, points per line, display stride,
version, graphs shown); one holding nothing, another generation (a reset, a reload, thinned
samples) or another stride gets whole figures (:func:`needs_whole_figures`), otherwise each
line's new points go out as ``extendData`` (:func:`graph_outputs`). Past
:data:`~dashboards.views.DISPLAY_LIMIT` points a line shows every 2nd, 4th... point, so the
browser's work stays bounded. Which graphs show follows the run's kind; the Gantt chart,
monitors, decisions and status are sent whole when the version changed (:func:`panel_outputs`).
"""

from __future__ import annotations

from typing import Any

from dash import no_update

from dashboards.session import Session
from dashboards.views import (
    GRAPHS,
    HIDDEN,
    QOS_GRAPHS,
    decisions_view,
    display_stride,
    extend_payload,
    gantt_figure,
    monitors_view,
    rows_kind,
    shown_graphs,
    status_view,
    timeseries_figure,
)

PARTS = ("figure", "extend", "style")  # the outputs of each time-series graph
PANELS = ("gantt", "monitors", "decisions", "status")  # sent whole when something changed


def update(session: Session, sid: str, cursor: Any, ack: Any) -> dict[str, Any]:
    """Everything one update sends (``no_update`` where the browser has it already)."""
    stride = display_stride(session.lines)
    full = needs_whole_figures(cursor, sid, session, stride)
    changed = full or cursor.get("version") != session.version
    rows = session.monitors() if changed else None
    shown = shown_now(rows, cursor)
    if any(graph in shown for graph in QOS_GRAPHS):
        session.record_qos()
    out: dict[str, Any] = {"ack": ack}
    out.update(graph_outputs(session, None if full else cursor, shown, stride))
    out.update(panel_outputs(session, rows) if changed else dict.fromkeys(PANELS, no_update))
    out["cursor"] = {
        "sid": sid,
        "generation": session.generation,
        "counts": session.counts(),
        "stride": stride,
        "version": session.version,
        "shown": shown,
    }
    return out


def needs_whole_figures(cursor: Any, sid: str, session: Session, stride: int) -> bool:
    """Whether the browser's ``cursor`` cannot be extended: it holds nothing, or points of
    another tab, generation or stride, or more points than a line has."""
    if not isinstance(cursor, dict) or not isinstance(cursor.get("shown"), list):
        return True
    if (cursor.get("sid"), cursor.get("generation"), cursor.get("stride")) != (
        sid,
        session.generation,
        stride,
    ):
        return True
    counts = cursor.get("counts")
    if not isinstance(counts, list) or len(counts) != len(session.lines):
        return True
    return any(
        not isinstance(c, int) or isinstance(c, bool) or c < 0 or c > len(line)
        for c, line in zip(counts, session.lines, strict=True)
    )


def shown_now(rows: list[dict[str, Any]] | None, cursor: Any) -> list[str]:
    """The graphs to show: from the run's kind when the monitors were read (``rows``), else
    those the browser shows."""
    if rows is not None:
        return shown_graphs(rows_kind(rows))
    return [graph for graph in cursor["shown"] if graph in GRAPHS]


def graph_outputs(
    session: Session, cursor: dict[str, Any] | None, shown: list[str], stride: int
) -> dict[str, Any]:
    """Each time-series graph's figure, extension and style (``cursor`` None: whole)."""
    lines = session.lines
    new = None if cursor is None else session.points_since(cursor["counts"])
    out: dict[str, Any] = {}
    for graph in GRAPHS:
        out.update(dict.fromkeys((f"{graph}-{part}" for part in PARTS), no_update))
        was_shown = cursor is not None and graph in cursor["shown"]
        if graph in shown and was_shown:  # new points only
            payload = extend_payload(graph, lines, new, stride)
            out[f"{graph}-extend"] = no_update if payload is None else payload
        elif graph in shown:  # shown from now on: whole
            out[f"{graph}-figure"] = timeseries_figure(
                graph, lines, session.generation, stride, session.rate_from
            )
            out[f"{graph}-style"] = {}
        elif cursor is None or was_shown:  # hidden from now on: empty, so cheap to keep
            out[f"{graph}-figure"] = timeseries_figure(graph, [], session.generation)
            out[f"{graph}-style"] = HIDDEN
    return out


def panel_outputs(session: Session, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The Gantt chart, the monitors, the latest decisions and the status, whole."""
    labels = [line.label for line in session.lines]
    return {
        "gantt": gantt_figure(
            session.gantt(), labels, session.now, session.colours(), session.capacities()
        ),
        "monitors": monitors_view(rows),
        "decisions": decisions_view(session.decisions()),
        "status": status_view(session.status()),
    }
