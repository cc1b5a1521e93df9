"""Figure helpers of the dashboard's view pages (market, VQoPS/DVQoPS, Libra, VARQ): figures as
plain dicts (no ``plotly.graph_objects`` validation: a figure may carry tens of thousands of
points), side-by-side panels over simulated time, lines in the colour each policy has everywhere
(:func:`market.experiments.style.policy_style`), and a table of numbers.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dashboards.session import Line
from dashboards.views import display_stride, panel
from market.experiments.style import FALLBACK_COLOURS, policy_style


def colour(name: str) -> str:
    """The colour of policy (variant) ``name``."""
    return policy_style(name)[0]


def colour_of(index: int) -> str:
    """A colour per index (a job of the node chart, a site), cycling through the palette."""
    return FALLBACK_COLOURS[index % len(FALLBACK_COLOURS)]


def figure(
    title: str, columns: tuple[str, ...] = ("",), height: int = 300, x_title: str | None = None
) -> dict[str, Any]:
    """An empty figure of ``len(columns)`` side-by-side subplots (axes ``x``/``y``, ``x2``/``y2``,
    ...) titled ``columns``, under ``title``; simulated time runs along every x axis unless
    ``x_title`` says otherwise."""
    gap = 0.08
    width = (1 - gap * (len(columns) - 1)) / len(columns)
    layout: dict[str, Any] = {
        "template": "plotly_white",
        "height": height,
        "margin": {"l": 55, "r": 15, "t": 50, "b": 40},
        "title": {"text": f"<b>{title}</b>", "x": 0.01, "y": 0.97},
        "legend": {"orientation": "v", "x": 1.01, "y": 1, "yanchor": "top"},
        "uirevision": title,
        "annotations": [],
    }
    for m, name in enumerate(columns):
        panel(layout, m, width, gap, name or None)
        if x_title is not None:
            layout[f"xaxis{'' if m == 0 else m + 1}"]["title"] = {"text": x_title}
    return {"data": [], "layout": layout}


def series(
    name: str,
    x,
    y,
    column: int = 0,
    legend: bool = True,
    shape: str = "linear",
    line_colour: str | None = None,
    width: float = 1.5,
    **extra: Any,
) -> dict[str, Any]:
    """One line named ``name`` in subplot ``column`` (NaN: a gap), in the colour of policy
    ``name`` unless ``line_colour`` is given; ``shape="hv"`` for a step."""
    suffix = "" if column == 0 else str(column + 1)
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "legendgroup": name,
        "showlegend": legend,
        "x": plain(x),
        "y": plain(y),
        "line": {"color": line_colour or colour(name), "width": width, "shape": shape},
        "xaxis": f"x{suffix}",
        "yaxis": f"y{suffix}",
        **extra,
    }


def plain(values) -> list[float | None]:
    """JSON-ready floats: NaN and infinities become None (a gap)."""
    array = np.asarray(values, dtype=float)
    return [v if math.isfinite(v) else None for v in array.tolist()]


def sample_times(lines: list[Line]) -> tuple[list[np.ndarray], int]:
    """Each line's sample times, thinned as the live page thins its charts
    (:func:`~dashboards.views.display_stride`), and the stride."""
    stride = display_stride(lines)
    return [np.asarray(line.t[::stride]) for line in lines], stride


def empty_note(fig: dict[str, Any], text: str) -> dict[str, Any]:
    """``fig`` with ``text`` in its middle (a chart with nothing to show yet)."""
    fig["layout"]["annotations"].append(
        {"text": text, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False}
    )
    return fig


def number(value: Any, fmt: str) -> str:
    """``value`` formatted, or a dash where it is missing or not finite."""
    if value is None or isinstance(value, bool):
        return "–"
    try:
        return format(value, fmt) if math.isfinite(value) else "–"
    except (TypeError, ValueError):
        return "–"


def table(head: list[str], rows: list[list[Any]], colours: list[str] | None = None):
    """A table of ``rows`` (the first cell a label, with the swatch of ``colours[i]``; the rest
    numbers already formatted)."""
    from dash import html

    body = []
    for i, row in enumerate(rows):
        swatch = None
        if colours:
            swatch = html.Span(className="swatch", style={"background": colours[i]})
        cells = [html.Td([swatch, row[0]], className="label")]
        cells += [html.Td(cell, className="num") for cell in row[1:]]
        body.append(html.Tr(cells))
    return html.Table(
        [html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(body)],
        className="grid monitors",
    )
