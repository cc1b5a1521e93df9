"""The dashboard's Gantt chart: running and planned jobs on processor rows, a block per line.

The model leases processor *counts*, not named processors, so the processors a job holds are
assigned here, for display, as the schedule export assigns them (:func:`market.results.export.
allocate_ids`): each job takes the lowest free processors when it starts, in start order, so no
processor holds two jobs at once and a wide job is one bar where its processors are contiguous.
Each line (a run, or a provider of a market) gets a block of as many rows as its pool has
processors (more if a plan is wider), separated by a gap, labelled with the line's name; bars
have the line's policy colour (running solid, planned hatched) and the job number inside when it
fits (labels that would be smaller than 10 px are hidden, the hover has every detail).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from market.experiments.style import policy_styles
from market.results.export import allocate_ids

GAP = 1.0  # empty rows between two lines' blocks
BAR = 0.86  # a bar's height in rows


def _runs(ids: list[int]) -> list[tuple[int, int]]:
    """Contiguous runs ``(first, last)`` of sorted processor ids."""
    runs: list[tuple[int, int]] = []
    for pid in ids:
        if runs and pid == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], pid)
        else:
            runs.append((pid, pid))
    return runs


def processor_ids(rows: list[dict[str, Any]]) -> list[list[int]]:
    """The display processors of each job of one line (see the module docstring)."""
    if not rows:
        return []
    start = np.array([r["start"] for r in rows], dtype=float)
    end = np.array([max(r["end"], r["start"]) for r in rows], dtype=float)
    width = np.array([r["processors"] for r in rows], dtype=float)
    return allocate_ids(start, end, width)


def gantt_figure(
    rows: list[dict[str, Any]],
    labels: list[str],
    now: float,
    colours: dict[str, str] | None = None,
    capacities: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Running and planned jobs of each line in ``labels`` on its processor rows (``capacities``
    per label, else as many as the jobs use), with hover details: job, processors, start, end,
    expected profit."""
    colours = colours or {label: c for label, (c, _) in policy_styles(labels).items()}
    capacities = capacities or {}
    by_line: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}
    for row in rows:
        by_line.setdefault(row["line"], []).append(row)
    traces = {"running": _bars("running"), "planned": _bars("planned")}
    ticks, names, separators = [], [], []
    offset = 0.0
    for label in by_line:
        line_rows = by_line[label]
        ids = processor_ids(line_rows)
        used = max((max(i) + 1 for i in ids if i), default=0)
        size = max(int(capacities.get(label) or 0), used, 1)
        ticks.append(offset + (size - 1) / 2)
        names.append(f"<b>{label}</b><br>{size} processor{'s' if size > 1 else ''}")
        for row, held in zip(line_rows, ids, strict=True):
            bars = traces[row["status"]]
            for k, (first, last) in enumerate(_runs(held)):
                bars["y"].append(offset + (first + last) / 2)
                bars["width"].append(BAR + (last - first))
                bars["base"].append(row["start"])
                bars["x"].append(max(row["end"] - row["start"], 1e-6))
                bars["marker"]["color"].append(colours.get(label, "#7F7F7F"))
                bars["text"].append(str(row["job"]) if k == 0 else "")
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
                        _id_text(held),
                    ]
                )
        offset += size + GAP
        separators.append(offset - GAP / 2 - 0.5)
    start = min((row["start"] for row in rows), default=now)
    end = max((row["end"] for row in rows), default=now + 1.0)
    pad = 0.02 * max(end - start, 1.0)
    total = max(offset - GAP, 1.0)
    row_px = min(max(480.0 / total, 4.0), 18.0)
    shapes = [_vline(now)] + [_hline(y) for y in separators[:-1]]
    return {
        "data": list(traces.values()),
        "layout": {
            "template": "plotly_white",
            "barmode": "overlay",
            "height": int(110 + row_px * total),
            "margin": {"l": 150, "r": 15, "t": 40, "b": 40},
            "title": {"text": "<b>Running and planned jobs, by processor</b>", "x": 0.01},
            "xaxis": {"title": {"text": "simulated time (h)"}, "range": [start - pad, end + pad]},
            "yaxis": {
                "range": [total - 0.5, -0.5],  # processor 0 of the first line on top
                "tickvals": ticks,
                "ticktext": names,
                "tickfont": {"size": 12},
                "showgrid": False,
                "zeroline": False,
            },
            "uniformtext": {"minsize": 10, "mode": "hide"},
            "shapes": shapes,
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
        "width": [],
        "text": [],
        "textposition": "inside",
        "insidetextanchor": "start",
        "textfont": {"size": 11},
        "customdata": [],
        "marker": {
            "color": [],
            "opacity": 0.45 if planned else 0.9,
            "pattern": {"shape": "/" if planned else ""},
            "line": {"color": "#333", "width": 0.5},
        },
        "hovertemplate": (
            "<b>job %{customdata[0]}</b>, %{customdata[5]}, %{customdata[6]}<br>"
            "shape: %{customdata[1]} processors × %{customdata[7]:.2f} h "
            "(shown on %{customdata[8]})<br>"
            "start %{customdata[2]:.2f} h, end %{customdata[3]:.2f} h<br>"
            "expected profit %{customdata[4]:,.1f}<extra></extra>"
        ),
    }


def _id_text(ids: list[int]) -> str:
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in _runs(ids))


def _vline(x: float) -> dict[str, Any]:
    return {"type": "line", "x0": x, "x1": x, "yref": "paper", "y0": 0, "y1": 1,
            "line": {"color": "#444", "dash": "dot", "width": 1}}  # fmt: skip


def _hline(y: float) -> dict[str, Any]:
    return {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": y, "y1": y,
            "line": {"color": "#BBB", "width": 1}}  # fmt: skip


def _num(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None
