"""The VQoPS/DVQoPS page (``/vqops``; Islam et al., OSU-CISRC-3/07-TR17): every variant of a
priced-trace scenario (default ``vqops/sdsc.yaml``) in parallel on its seed. It draws revenue
per variant and its gain over QoPS (Table 1), DVQoPS's OC-Factor and rollback window over time
(§4.3, Figure 4), and the accepted % of urgent and normal jobs arrived so far (Figures 5b-10b:
the summary's ``urgent_accepted_pct`` at each sample, so the last point is the summary's). Our
choice: samples every hour (DVQoPS's smallest window; the scenarios sample every 24 h).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dashboards.figures import colour, empty_note, figure, number, sample_times, series, table
from dashboards.page import SCENARIOS
from dashboards.paper_session import ViewSession
from dashboards.view_page import view_page
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
    head = ["variant", "revenue", "gain over QoPS %", "urgent accepted %", "normal accepted %",
            "OC-Factor", "window (h)"]  # fmt: skip
    cells = [
        [
            r["variant"],
            number(r["revenue"], ",.0f"),
            number(r["gain_pct"], "+.1f"),
            number(r["urgent_pct"], ".1f"),
            number(r["normal_pct"], ".1f"),
            number(r["oc_factor"], "g"),
            number(r["rollback_window"], "g"),
        ]
        for r in rows
    ]
    return table(head, cells, [colour(r["variant"]) for r in rows])


def draw(session: ViewSession) -> tuple[Any, ...]:
    """Everything the page shows now: the table and the three figures."""
    if not session.lines:
        return [], *(empty_note(figure(""), "nothing to show") for _ in GRAPHS)
    outcomes = _outcomes(session)
    return (
        _table(summary_rows(session, outcomes)),
        revenue_figure(session),
        adaptive_figure(session),
        classes_figure(session, outcomes),
    )


def suits(scenario) -> str | None:
    """Why this page cannot show ``scenario`` (None: it can)."""
    if any(client.workload.kind == "priced_swf" for client in scenario.clients):
        return None
    return "not a VQoPS scenario (no priced_swf workload): open it on the live page"


def _body() -> list:
    from dash import dcc, html

    return [html.Div(id="vqops-table"), *(dcc.Graph(id=g) for g in GRAPHS)]


def _session(sid, setup):
    return ViewSession(sid, setup, extra=EXTRA)


VIEW = view_page(
    dict(
        key="vqops",
        path="/vqops",
        name="VQoPS / DVQoPS",
        default=DEFAULT,
        defaults=DEFAULTS,
        suits=suits,
        speed=24.0,
        factory=_session,
    ),
    title="VQoPS / DVQoPS: revenue, the adaptive OC-Factor, accepted % per class",
    body=_body,
    outputs=(("vqops-table", "children"), *((g, "figure") for g in GRAPHS)),
    draw=draw,
)
PAGE = VIEW.page
