"""What the dashboard shows, built from a :class:`~dashboards.session.Session`'s data: the
time-series figures and their incremental updates, the Gantt chart, the monitors, the table of
admission decisions and the set-up fields.

Figures are plain dicts (no ``plotly.graph_objects`` validation: a figure may carry tens of
thousands of points). The time-series figures have one trace per (metric, line), in the order
``metric_index * n_lines + line_index``, so an update names the traces it extends by index
(:func:`extend_payload`, for ``dcc.Graph.extendData``).
"""

from __future__ import annotations

import math
from typing import Any

from dash import dcc, html

from dashboards.session import Line, as_list
from dashboards.setup import (
    MODES,
    PARAMS,
    POOLS,
    Setup,
    check_param,
    param_enabled,
    param_values,
    policy_options,
)
from market.scenario import Scenario

COLORS = (
    "#1F77B4",
    "#FF7F0E",
    "#2CA02C",
    "#D62728",
    "#9467BD",
    "#8C564B",
    "#E377C2",
    "#7F7F7F",
    "#BCBD22",
    "#17BECF",
)

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
    "ops": (
        ("utilization", "Utilization", ".0%"),
        ("queue_length", "Queue length (jobs)", ",.0f"),
        ("accepted_pct", "% accepted", ".0f"),
    ),
}

MODE_LABELS = {
    "parallel": "Parallel runs: one market per policy, same seed",
    "market": "Competing service providers in one market",
}
POOL_LABELS = {
    "own": "each rents its own pool (a copy of the resource provider)",
    "shared": "all rent from one pool",
}


def color(index: int) -> str:
    return COLORS[index % len(COLORS)]


# -- time series ------------------------------------------------------------------------------
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
    graph: str, lines: list[Line], revision: Any = None, stride: int = 1
) -> dict[str, Any]:
    """The whole figure of ``graph`` (a key of :data:`GRAPHS`): every ``stride``-th point so far
    of every line."""
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
        "showlegend": columns == 1,
        "legend": {"orientation": "v", "x": 1.01, "y": 1, "yanchor": "top"},
        "annotations": [],
        "template": "plotly_white",
    }
    for m, (metric, title, fmt) in enumerate(metrics):
        suffix = "" if m == 0 else str(m + 1)
        for i, line in enumerate(lines):
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": line.label,
                    "legendgroup": line.label,
                    "showlegend": m == 0,
                    "x": as_list(line.t[::stride]),
                    "y": as_list(line.values[metric][::stride]),
                    "line": {"color": color(i), "width": 2 if graph == "rate" else 1.5},
                    "xaxis": f"x{suffix}",
                    "yaxis": f"y{suffix}",
                    "hovertemplate": f"%{{y:{fmt}}}",
                }
            )
        start = m * (width + gap)
        layout[f"xaxis{suffix}"] = {
            "domain": [start, start + width],
            "anchor": f"y{suffix}",
            "title": {"text": "simulated time (h)"},
            "rangemode": "tozero",
        }
        layout[f"yaxis{suffix}"] = {"anchor": f"x{suffix}"}
        if fmt in (".0%", ".0f"):  # shares: fixed ticks; amounts: Plotly's own
            layout[f"yaxis{suffix}"]["tickformat"] = fmt
        if columns > 1:
            layout["annotations"].append(
                {
                    "text": f"<b>{title}</b>",
                    "xref": "paper",
                    "yref": "paper",
                    "x": start,
                    "y": 1.0,
                    "xanchor": "left",
                    "yanchor": "bottom",
                    "showarrow": False,
                }
            )
        else:
            layout["title"] = {"text": f"<b>{title}</b>", "x": 0.01, "y": 0.97}
    return {"data": data, "layout": layout}


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


# -- Gantt ------------------------------------------------------------------------------------
def _tracks(rows: list[dict[str, Any]]) -> list[int]:
    """A track per job so that jobs on one track do not overlap (greedy, by start)."""
    order = sorted(
        range(len(rows)), key=lambda k: (rows[k]["status"] != "running", rows[k]["start"])
    )
    ends: list[float] = []
    track = [0] * len(rows)
    for k in order:
        row = rows[k]
        for t, end in enumerate(ends):
            if end <= row["start"] + 1e-9:
                ends[t] = row["end"]
                track[k] = t
                break
        else:
            track[k] = len(ends)
            ends.append(row["end"])
    return track


def gantt_figure(rows: list[dict[str, Any]], labels: list[str], now: float) -> dict[str, Any]:
    """Running (solid) and planned (hatched) jobs per line, one row per track, with hover
    details: job, shape, start, end, expected profit."""
    by_line: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}
    for row in rows:
        by_line.setdefault(row["line"], []).append(row)
    categories, traces = [], {"running": _bars("running"), "planned": _bars("planned")}
    idle: dict[str, Any] = {
        "type": "scatter",
        "mode": "markers",
        "x": [],
        "y": [],
        "marker": {"opacity": 0},
        "hoverinfo": "skip",
        "showlegend": False,
    }
    for i, label in enumerate(labels):
        line_rows = by_line.get(label, [])
        tracks = _tracks(line_rows)
        count = max(tracks, default=-1) + 1
        names = [f"{label} · {t + 1}" for t in range(max(count, 1))]
        categories.extend(names)
        if not line_rows:  # an idle line still gets its row, with an invisible mark
            idle["y"].append(names[0])
            idle["x"].append(now)
        for row, t in zip(line_rows, tracks, strict=True):
            bars = traces[row["status"]]
            bars["y"].append(names[t])
            bars["base"].append(row["start"])
            bars["x"].append(max(row["end"] - row["start"], 1e-6))
            bars["marker"]["color"].append(color(i))
            bars["text"].append(f"{row['job']}×{row['processors']}")
            bars["customdata"].append(
                [
                    row["job"],
                    row["processors"],
                    row["start"],
                    row["end"],
                    _num(row["expected_profit"]),
                    row["status"],
                    label,
                    row["end"] - row["start"],
                ]
            )
    start = min((row["start"] for row in rows), default=now)
    end = max((row["end"] for row in rows), default=now + 1.0)
    pad = 0.02 * max(end - start, 1.0)
    height = 90 + 16 * max(len(categories), 3)
    return {
        "data": [*traces.values(), idle],
        "layout": {
            "template": "plotly_white",
            "barmode": "overlay",
            "height": height,
            "margin": {"l": 150, "r": 15, "t": 30, "b": 40},
            "title": {"text": "<b>Running and planned jobs</b>", "x": 0.01, "y": 0.99},
            "xaxis": {"title": {"text": "simulated time (h)"}, "range": [start - pad, end + pad]},
            "yaxis": {
                "type": "category",
                "categoryorder": "array",
                "categoryarray": categories,
                "autorange": "reversed",
                "tickfont": {"size": 10},
            },
            "shapes": [
                {
                    "type": "line",
                    "x0": now,
                    "x1": now,
                    "yref": "paper",
                    "y0": 0,
                    "y1": 1,
                    "line": {"color": "#444", "dash": "dot", "width": 1},
                }
            ],
            "legend": {"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right"},
            "uirevision": "gantt",
        },
    }


def _bars(status: str) -> dict[str, Any]:
    planned = status == "planned"
    return {
        "type": "bar",
        "orientation": "h",
        "name": status,
        "y": [],
        "x": [],
        "base": [],
        "text": [],
        "textposition": "inside",
        "insidetextanchor": "start",
        "textfont": {"size": 9},
        "customdata": [],
        "marker": {
            "color": [],
            "opacity": 0.45 if planned else 0.9,
            "pattern": {"shape": "/" if planned else ""},
            "line": {"color": "#333", "width": 0.5},
        },
        "hovertemplate": (
            "<b>job %{customdata[0]}</b>, %{customdata[5]}, %{customdata[6]}<br>"
            "shape: %{customdata[1]} processors × %{customdata[7]:.2f} h<br>"
            "start %{customdata[2]:.2f} h, end %{customdata[3]:.2f} h<br>"
            "expected profit %{customdata[4]:,.1f}<extra></extra>"
        ),
    }


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


MONITOR_COLUMNS = (
    ("line", "run / provider", None),
    ("state", "state", None),
    ("profit_rate", "profit/h", ",.1f"),
    ("profit", "profit", ",.0f"),
    ("revenue", "revenue", ",.0f"),
    ("rent", "rent", ",.0f"),
    ("utilization", "util %", "pct"),
    ("queue_length", "queue", ",.0f"),
    ("running", "running", ",.0f"),
    ("accepted_pct", "accepted %", ",.1f"),
)


def monitors_view(rows: list[dict[str, Any]]) -> html.Table:
    """One row per line with its current values."""
    head = html.Tr([html.Th(title) for _, title, _ in MONITOR_COLUMNS])
    body = []
    for i, row in enumerate(rows):
        cells = []
        for key, _, fmt in MONITOR_COLUMNS:
            if key == "line":
                swatch = html.Span(className="swatch", style={"background": color(i)})
                cells.append(html.Td([swatch, row["line"]], className="label"))
            elif fmt is None:
                cells.append(html.Td(row[key]))
            elif fmt == "pct":
                value = _num(row[key])
                text = "–" if value is None else f"{100 * value:.0f}"
                cells.append(html.Td(text, className="num"))
            else:
                cells.append(html.Td(_fmt(row[key], fmt), className="num"))
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


# -- the set-up fields ------------------------------------------------------------------------
def setup_fields(scenario: Scenario, setup: Setup | None = None) -> list:
    """The mode, the policies and the key parameters of ``scenario``, filled from ``setup``
    (the tab's current set-up, if it is of this scenario) or from the file, with the message
    of any invalid value under its field."""
    options = list(policy_options(scenario))
    values = param_values(scenario)
    if setup is not None:
        values.update(setup.param_dict())
    mode = setup.mode if setup else "parallel"
    pool = setup.pool if setup else "own"
    ticked = [p for p in setup.policies if p in options] if setup else options
    fields = [
        html.Label("Compare the policies as", className="field-label"),
        dcc.RadioItems(
            id={"type": "setup", "name": "mode"},
            value=mode,
            className="radio",
            options=[{"label": MODE_LABELS[m], "value": m} for m in MODES],
        ),
        dcc.RadioItems(
            id={"type": "setup", "name": "pool"},
            value=pool,
            className="radio sub",
            options=[{"label": POOL_LABELS[p], "value": p} for p in POOLS],
        ),
        html.Label(
            "Policies" + (" (the scenario's variants)" if scenario.variants else " (schedulers)"),
            className="field-label",
        ),
        dcc.Checklist(
            id={"type": "setup", "name": "policies"},
            options=options,
            value=ticked,
            className="checklist",
        ),
        html.Div(id="policies-msg", className="field-msg"),
    ]
    for param in PARAMS:
        enabled = param_enabled(scenario, param.name)
        value = values.get(param.name)
        message = check_param(scenario, param.name, value) if enabled else None
        note = param.note if param.path is not None or not enabled else ""
        if param.path is not None and not enabled:
            note = "not in this scenario"
        fields.append(
            html.Div(
                [
                    html.Label(param.label, className="field-label"),
                    dcc.Input(
                        id={"type": "param", "name": param.name},
                        type="number",
                        value=value,
                        disabled=not enabled,
                        debounce=False,
                        className="field-input",
                    ),
                    html.Span(note, className="note") if note else None,
                    html.Div(
                        message, id={"type": "param-msg", "name": param.name}, className="field-msg"
                    ),
                ],
                className="field" + ("" if enabled else " disabled"),
            )
        )
    return fields
