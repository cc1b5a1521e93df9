"""A live view of a VQoPS/DVQoPS scenario: ``python -m dashboards.vqops
[SCENARIO] [--set KEY=VALUE ...] [--host 127.0.0.1] [--port 8052] [--speed 24]``, by default
``scenarios/vqops/sdsc.yaml`` (e.g. ``--set clients.0.workload.first_jobs=1000`` for a short
run). Every variant runs in parallel on the scenario's seed, so on one job stream.

Islam, Balaji, Sabin & Sadayappan, OSU-CISRC-3/07-TR17:

- **revenue** over time per variant (QoPS, VQoPS at each OC-Factor, DVQoPS): what completed
  jobs have paid so far (§3, Figure 2's prices), and the table's gain over QoPS (Table 1);
- **DVQoPS's OC-Factor and rollback window** over time (§4.3, Figure 4): the values the
  snapshot's ``oc_factor`` and ``rollback_window`` metrics hold at each sample (the lines of
  every variant whose window is set: the adaptive ones);
- **accepted % per class** over time (Figures 5b-10b): of the urgent (normal) jobs that arrived
  by time t, the share admitted; the same definition as the summary's ``urgent_accepted_pct``
  (:mod:`market.results.value_metrics`), evaluated at every sample time from the jobs' outcomes
  (:func:`market.results.job_outcomes.job_outcomes`,
  :func:`market.results.outcome_curves.admitted_pct`), so its
  last point is the summary's value.

The view samples every ``sample_interval`` = 1 h by default (our choice: DVQoPS's smallest
window; the scenarios sample every 24 h), which ``--set sample_interval=...`` changes.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from dashboards.paper_page import (
    SCENARIOS,
    _colour,
    empty_note,
    figure,
    new_session,
    page_app,
    sample_times,
    series,
    serve_view,
)
from dashboards.paper_session import ViewSession
from market.results.job_outcomes import JobOutcomes, job_outcomes
from market.results.outcome_curves import admitted_pct
from market.results.value_metrics import CLASSES, REFERENCE

DEFAULT = SCENARIOS / "vqops" / "sdsc.yaml"
EXTRA = ("oc_factor", "rollback_window")  # recorded per line at each sample
DEFAULTS = {"sample_interval": 1.0}
GRAPHS = ("vqops-revenue", "vqops-adaptive", "vqops-classes")


def _outcomes(session: ViewSession) -> list[JobOutcomes]:
    """The jobs' outcomes of every line, in line order."""
    by_run = [{o.provider: o for o in job_outcomes(run.model)} for run in session.runs]
    return [by_run[line.run][line.provider] for line in session.lines]


def revenue_figure(session: ViewSession) -> dict[str, Any]:
    """Revenue (what completed jobs paid) over time, a line per variant."""
    fig = figure("Revenue", height=340)
    times, stride = sample_times(session.lines)
    for line, t in zip(session.lines, times, strict=True):
        fig["data"].append(series(line.label, t, line.values["revenue"][::stride]))
    fig["layout"]["hovermode"] = "x unified"
    return fig


def adaptive_figure(session: ViewSession) -> dict[str, Any]:
    """The OC-Factor and rollback window of every adaptive variant (DVQoPS) over time."""
    fig = figure(
        "DVQoPS: the current OC-Factor and rollback window", ("OC-Factor", "rollback window (h)")
    )
    times, stride = sample_times(session.lines)
    for line, t in zip(session.lines, times, strict=True):
        window = np.asarray(line.values.get("rollback_window", []))
        if not np.isfinite(window).any():
            continue  # a static OC-Factor (VQoPS) or none (QoPS)
        for column, name in enumerate(EXTRA):
            values = line.values[name][::stride]
            fig["data"].append(
                series(line.label, t, values, column, legend=column == 0, shape="hv")
            )
    if not fig["data"]:
        return empty_note(fig, "no adaptive variant (DVQoPS) in this run")
    windows = [2.0**k for k in range(7)]  # DVQoPS's 1, 2, 4, ..., 64 h (§4.3.2)
    fig["layout"]["yaxis2"] |= {"type": "log", "tickvals": windows, "range": [-0.1, 1.9]}
    return fig


def classes_figure(session: ViewSession, outcomes: list[JobOutcomes]) -> dict[str, Any]:
    """Accepted % of the urgent and of the normal jobs arrived so far, per variant."""
    fig = figure("Accepted % per class", tuple(f"{c} jobs" for c in CLASSES))
    times, _ = sample_times(session.lines)
    for line, t, mine in zip(session.lines, times, outcomes, strict=True):
        for column, kind in enumerate(CLASSES):
            y = admitted_pct(mine, t, kind)
            fig["data"].append(series(line.label, t, y, column, legend=column == 0))
    for axis in ("yaxis", "yaxis2"):
        fig["layout"][axis]["range"] = [0, 101]
    return fig


def summary_rows(session: ViewSession, outcomes: list[JobOutcomes]) -> list[dict[str, Any]]:
    """Now, per variant: revenue, its gain over the QoPS variant (%, Table 1), accepted % per
    class, and the current OC-Factor and window."""
    reference = next(
        (
            ln.values["revenue"][-1]
            for ln in session.lines
            if _admission(session.runs[ln.run]) == REFERENCE
        ),
        math.nan,
    )
    rows = []
    for line, mine in zip(session.lines, outcomes, strict=True):
        revenue = line.values["revenue"][-1]
        gain = 100.0 * (revenue / reference - 1.0) if reference else math.nan
        now = np.array([line.t[-1]])
        row = {"variant": line.label, "revenue": revenue, "gain_pct": gain}
        row |= {f"{c}_pct": float(admitted_pct(mine, now, c)[0]) for c in CLASSES}
        row |= {name: line.values[name][-1] for name in EXTRA}
        rows.append(row)
    return rows


def _admission(run) -> str:
    """The admission policy's name of a run's first service provider (QoPS: the reference)."""
    return run.model.spec.service_providers[0].admission.name


def _table(rows: list[dict[str, Any]]):
    from dash import html

    def num(value, fmt):
        return "–" if value is None or not math.isfinite(value) else format(value, fmt)

    head = [
        "variant",
        "revenue",
        "gain over QoPS %",
        "urgent accepted %",
        "normal accepted %",
        "OC-Factor",
        "window (h)",
    ]
    body = [
        html.Tr(
            [
                html.Td(
                    [
                        html.Span(className="swatch", style={"background": _colour(r["variant"])}),
                        r["variant"],
                    ],
                    className="label",
                ),
                html.Td(num(r["revenue"], ",.0f"), className="num"),
                html.Td(num(r["gain_pct"], "+.1f"), className="num"),
                html.Td(num(r["urgent_pct"], ".1f"), className="num"),
                html.Td(num(r["normal_pct"], ".1f"), className="num"),
                html.Td(num(r["oc_factor"], "g"), className="num"),
                html.Td(num(r["rollback_window"], "g"), className="num"),
            ]
        )
        for r in rows
    ]
    return html.Table(
        [html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(body)],
        className="grid monitors",
    )


def draw(session: ViewSession) -> tuple[Any, ...]:
    """Everything the page shows now: the table and the three figures."""
    with session.lock:
        outcomes = _outcomes(session)
        return (
            _table(summary_rows(session, outcomes)),
            revenue_figure(session),
            adaptive_figure(session),
            classes_figure(session, outcomes),
        )


def create_app(scenario=DEFAULT, overrides: dict[str, Any] | None = None, speed: float = 24.0):
    """The page over every variant of ``scenario`` with ``overrides`` (default: a 1 h sample)."""
    from dash import dcc, html

    session = new_session(scenario, {**DEFAULTS, **(overrides or {})}, extra=EXTRA, speed=speed)
    body = [html.Div(id="vqops-table"), *(dcc.Graph(id=g) for g in GRAPHS)]
    outputs = [("vqops-table", "children"), *((g, "figure") for g in GRAPHS)]
    return page_app("vqops", "VQoPS / DVQoPS", session, body, outputs, draw)


def main(argv: list[str] | None = None) -> int:
    return serve_view(argv, "python -m dashboards.vqops", __doc__, DEFAULT, 8052, create_app)


if __name__ == "__main__":
    sys.exit(main())
