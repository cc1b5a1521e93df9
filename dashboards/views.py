"""What the dashboard shows, built from a :class:`~dashboards.session.Session`'s data: the
time-series figures and their incremental updates, the Gantt chart, the monitors, the table of
admission decisions.

Figures are plain dicts (no ``plotly.graph_objects`` validation: a figure may carry tens of
thousands of points). The time-series figures have one trace per (metric, line), in the order
``metric_index * n_lines + line_index``, so an update names the traces it extends by index
(:func:`extend_payload`, for ``dcc.Graph.extendData``).
"""

from __future__ import annotations

import math
from typing import Any

from dash import html

from dashboards.gantt import gantt_figure
from dashboards.session import Line, as_list
from market.results.metrics import METRICS
from market.results.outputs import RunKind, run_kind

__all__ = ["extend_payload", "gantt_figure", "monitors_view", "shown_graphs", "timeseries_figure"]

#: At most this many points per line on screen (see :func:`display_stride`).
DISPLAY_LIMIT = 4096

#: The time-series graphs: id -> the metrics it shows, each with its subplot title and format.
GRAPHS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "rate": (("profit_rate", "Profit rate (per hour)", ",.1f"),),
    "money": (
        ("profit", "Cumulative profit", ",.0f"),
        ("revenue", "Revenue", ",.0f"),
        ("rent", "Rent", ",.0f"),
    ),
    "qos": (
        ("unadmitted_pct", "% of offered jobs unadmitted", ".0f"),
        ("deadlines_missed", "Deadlines missed (jobs)", ",.0f"),
        ("deadlines_fulfilled_pct", "% of offered jobs fulfilled", ".0f"),
    ),
    "slowdown": (
        ("mean_slowdown", "Mean slowdown: completed best-effort jobs", ",.2f"),
        ("mean_slowdown_fulfilled", "Mean slowdown: jobs fulfilled", ",.2f"),
    ),
    "ops": (
        ("utilization", "Utilization", ".0%"),
        ("queue_length", "Queue length (jobs)", ",.0f"),
        ("accepted_pct", "% accepted", ".0f"),
    ),
}

#: The graphs of a market where money moves, and of one whose jobs have deadlines.
MONEY_GRAPHS = ("rate", "money")
QOS_GRAPHS = ("qos", "slowdown")
HIDDEN = {"display": "none"}  # the style of a graph this run does not show


# -- time series ------------------------------------------------------------------------------
def shown_graphs(kind: RunKind | None) -> list[str]:
    """The graphs a run of ``kind`` shows (:func:`market.results.outputs.run_kind` of its summary so
    far; None: nothing known yet): the money graphs where money moves, the QoS graphs where jobs
    have deadlines, both where both; the money graphs until either is known (the profit
    paper's market, before its first payment); the operations graph always."""
    qos = kind is not None and kind.qos
    money = kind is None or kind.money or not qos
    return [
        graph
        for graph in GRAPHS
        if (graph in MONEY_GRAPHS and money)
        or (graph in QOS_GRAPHS and qos)
        or graph not in (*MONEY_GRAPHS, *QOS_GRAPHS)
    ]


def rows_kind(rows: list[dict[str, Any]]) -> RunKind | None:
    """The kind of the run whose monitor rows (:meth:`Session.monitors`) are ``rows``, from
    their summaries so far (None: no summary)."""
    import pandas as pd

    summaries = pd.DataFrame([row["summary"] for row in rows if row.get("summary")])
    return None if summaries.empty else run_kind(summaries)


def display_stride(lines: list[Line]) -> int:
    """Show every ``stride``-th point of each line: 1 up to :data:`DISPLAY_LIMIT` points, then
    the smallest power of two that keeps at most that many on screen (the export has them all).
    It changes only when the longest line doubles, and then the charts are redrawn whole."""
    longest = max((len(line) for line in lines), default=0)
    stride = 1
    while -(-longest // stride) > DISPLAY_LIMIT:
        stride *= 2
    return stride


def timeseries_figure(
    graph: str, lines: list[Line], revision: Any = None, stride: int = 1, rate_from: float = 0.0
) -> dict[str, Any]:
    """The whole figure of ``graph`` (a key of :data:`GRAPHS`): every ``stride``-th point so far
    of every line; the profit rate's title says from when it is drawn (``rate_from``, h)."""
    metrics = GRAPHS[graph]
    columns = len(metrics)
    gap = 0.06
    width = (1 - gap * (columns - 1)) / columns
    data: list[dict[str, Any]] = []
    layout: dict[str, Any] = {
        "margin": {"l": 55, "r": 15, "t": 30, "b": 40},
        "height": 340 if graph == "rate" else 260,
        "uirevision": revision,
        "hovermode": "x unified" if columns == 1 else "closest",
        "showlegend": True,  # small multiples too: one legend for the panels side by side
        "legend": {"orientation": "v", "x": 1.01, "y": 1, "yanchor": "top", "tracegroupgap": 0},
        "annotations": [],
        "template": "plotly_white",
    }
    for m, (metric, title, fmt) in enumerate(metrics):
        suffix = "" if m == 0 else str(m + 1)
        for line in lines:
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": line.label,
                    "legendgroup": line.label,
                    "showlegend": m == 0,
                    "x": as_list(line.t[::stride]),
                    "y": as_list(line.values[metric][::stride]),
                    "line": {"color": line.colour, "width": 2 if graph == "rate" else 1.5},
                    "xaxis": f"x{suffix}",
                    "yaxis": f"y{suffix}",
                    "hovertemplate": f"%{{y:{fmt}}}",
                }
            )
        panel(layout, m, width, gap, f"<b>{title}</b>" if columns > 1 else None)
        if fmt in (".0%", ".0f"):  # shares: fixed ticks; amounts: Plotly's own
            layout[f"yaxis{suffix}"]["tickformat"] = fmt
        if columns == 1:
            layout["title"] = {"text": f"<b>{title}</b>", "x": 0.01, "y": 0.97}
    if graph == "rate" and rate_from > 0:  # an empty chart at first: say why
        note = (
            f"profit so far over the time elapsed, drawn from t = {rate_from:g} h on (earlier, "
            "a few lumps of payment over a short time would swamp it)"
        )
        layout["annotations"].append(
            {"text": note, "xref": "paper", "yref": "paper", "x": 0, "y": 1.01,
             "xanchor": "left", "yanchor": "bottom", "showarrow": False,
             "font": {"size": 11, "color": "#555"}}
        )  # fmt: skip
        layout["margin"]["t"] = 55
    return {"data": data, "layout": layout}


def panel(layout: dict[str, Any], m: int, width: float, gap: float, title: str | None) -> None:
    """Add the ``m``-th of side-by-side panels (axes over simulated time, and its ``title``
    above it if any) to a figure ``layout`` that has an ``annotations`` list."""
    suffix = "" if m == 0 else str(m + 1)
    start = m * (width + gap)
    layout[f"xaxis{suffix}"] = {
        "domain": [start, start + width],
        "anchor": f"y{suffix}",
        "title": {"text": "simulated time (h)"},
        "rangemode": "tozero",
    }
    layout[f"yaxis{suffix}"] = {"anchor": f"x{suffix}"}
    if title:
        layout["annotations"].append(
            {
                "text": title,
                "xref": "paper",
                "yref": "paper",
                "x": start,
                "y": 1.0,
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
            }
        )


def extend_payload(
    graph: str, lines: list[Line], new: list[tuple[int, int]], stride: int = 1
) -> list | None:
    """``[update, trace indices]`` for ``dcc.Graph.extendData``: the points of each line from
    its first new point on (``new`` as from :meth:`Session.points_since`), every ``stride``-th
    as in :func:`timeseries_figure`; None if there are none."""
    xs, ys, indices = [], [], []
    n = len(lines)
    for m, (metric, _, _) in enumerate(GRAPHS[graph]):
        for i, start in new:
            first = -(-start // stride) * stride  # the next index on the stride
            line = lines[i]
            if first >= len(line):
                continue
            xs.append(as_list(line.t[first::stride]))
            ys.append(as_list(line.values[metric][first::stride]))
            indices.append(m * n + i)
    return [{"x": xs, "y": ys}, indices] if indices else None


def _num(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


# -- monitors and tables ----------------------------------------------------------------------
def _fmt(value: Any, fmt: str = ",.1f") -> str:
    value = _num(value)
    return "–" if value is None else format(value, fmt)


def status_view(status: dict[str, Any]) -> list:
    """The simulated time and the run state."""
    parts = [
        html.Span(f"t = {status['time']:,.2f} h", id="sim-time", className="sim-time"),
        html.Span(status["state"], id="run-state", className="run-state"),
    ]
    if status.get("behind"):
        parts.append(html.Span("(the simulation is slower than this speed)", className="note"))
    if status.get("message"):
        parts.append(html.Span(status["message"], className="warn"))
    return parts


#: The monitors every line has before its metrics (from the metric registry).
LINE_MONITORS = (("line", "run / provider", None), ("state", "state", None))
#: The kind a run's monitors take until its summary says more: the profit paper's market.
UNKNOWN = RunKind(money=True, rent=True, qos=False, classes=False, market=False)


def monitor_columns(rows: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    """The monitors' columns for these rows, ``(key, header, format)``: the registry's metrics
    with a ``monitor`` format that a run of this kind shows (:func:`market.results.outputs.run_kind`
    of the rows' summaries: money only where money moved so far, the QoS monitors instead of
    accepted % where jobs had deadlines, the bounded slowdown where no money moves)."""
    kind = rows_kind(rows) or UNKNOWN
    shown = [(m.name, m.header, m.monitor) for m in METRICS if m.monitor and m.shown(kind)]
    return [*LINE_MONITORS, *shown]


def monitors_view(rows: list[dict[str, Any]]) -> html.Table:
    """One row per line with its current values (utilization: over the arrival phase so far)."""
    columns = monitor_columns(rows)
    head = html.Tr([html.Th(title) for _, title, _ in columns])
    body = []
    for row in rows:
        summary = row.get("summary") or {}
        cells = []
        for key, _, fmt in columns:
            value = row[key] if key in row else summary.get(key)
            if key == "line":
                colour = row.get("colour", "#7F7F7F")
                swatch = html.Span(className="swatch", style={"background": colour})
                cells.append(html.Td([swatch, row["line"]], className="label"))
            elif fmt is None:
                cells.append(html.Td(value))
            elif fmt == "pct":
                value = _num(value)
                text = "–" if value is None else f"{100 * value:.0f}"
                cells.append(html.Td(text, className="num"))
            else:
                cells.append(html.Td(_fmt(value, fmt), className="num"))
        body.append(html.Tr(cells))
    return html.Table([html.Thead(head), html.Tbody(body)], className="grid monitors")


def decisions_view(rows: list[dict[str, Any]]) -> html.Table | html.P:
    """The latest admission decisions with their reasons."""
    if not rows:
        return html.P("No job offered yet.", className="note")
    head = html.Tr(
        [
            html.Th(h)
            for h in (
                "arrival (h)",
                "run / provider",
                "job",
                "decision",
                "reason",
                "shape",
                "expected profit",
                "why",
            )
        ]
    )
    body = []
    for row in rows:
        if not row["accepted"]:
            decision = "rejected"
        else:
            decision = "accepted" if row["committed"] else "accepted, lost to another"
        body.append(
            html.Tr(
                [
                    html.Td(f"{row['time']:.2f}", className="num"),
                    html.Td(row["line"]),
                    html.Td(row["job"], className="num"),
                    html.Td(decision, className="yes" if row["committed"] else "no"),
                    html.Td(row["reason"]),
                    html.Td(
                        "–" if row["processors"] is None else row["processors"], className="num"
                    ),
                    html.Td(_fmt(row["expected_profit"]), className="num"),
                    html.Td(row["detail"], className="detail"),
                ]
            )
        )
    return html.Table([html.Thead(head), html.Tbody(body)], className="grid decisions")
