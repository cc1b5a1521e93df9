"""The VARQ page (``/varq``; VARQ TR 2007-09 §3-4): a batch site replaying a trace with VARQ
users (default ``varq/table4.yaml``, its first variant; tick more to run them side by side). It
draws the probability trajectory of the latest request (``QBETS(nodes, walltime + (deadline -
t), deadline - t)`` for each submission time t, computed when drawn, with the required
probability and the chosen submission time), the running predicted and observed success per
VARQ user by deadline, and each site's queue (jobs waiting, nodes busy) at every sample (hourly
here, our choice).
"""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np

from agents.policies import varq
from dashboards.figures import colour_of, empty_note, figure, series
from dashboards.page import SCENARIOS
from dashboards.session import Session
from dashboards.setup import AS_WRITTEN, Setup
from dashboards.view_page import view_page
from market.sim.model import GridMarket

DEFAULT = SCENARIOS / "varq" / "table4.yaml"
DEFAULTS = {"sample_interval": 1.0}  # the queue every hour (the scenarios sample every 24 h)
GRAPHS = ("varq-trajectory", "varq-success", "varq-queue")


class VarqSession(Session):
    """A session that records every batch site's queue at each sample:
    ``queues[(run, site)] = {"t": ..., "waiting": ..., "busy": ...}``."""

    interval = 1.0  # wall-clock seconds between page updates (whole figures are redrawn)
    budget = 0.6

    def __init__(self, sid: str, setup: Setup | None) -> None:
        self.queues: dict[tuple[int, str], dict[str, array]] = {}
        super().__init__(sid, setup)

    def reset(self, setup: Setup) -> None:
        old, self.queues = self.queues, {}
        try:
            super().reset(setup)
        except Exception:
            self.queues = old
            raise

    def on_sample(self, runs: list[int]) -> None:
        for i in runs:
            model = self.runs[i].model
            for site in model.batch_sites.values():
                record = self.queues.setdefault(
                    (i, site.name), {k: array("d") for k in ("t", "waiting", "busy")}
                )
                record["t"].append(model.time)
                record["waiting"].append(len(site.queue))
                record["busy"].append(site.busy)

    def on_thin(self) -> None:
        for record in self.queues.values():
            for key in record:
                record[key] = record[key][::2]

    def label(self, i: int, name: str) -> str:
        return name if len(self.runs) == 1 else f"{self.runs[i].label} · {name}"


def trajectory_figure(model: GridMarket) -> dict[str, Any]:
    """The latest request's probability trajectory (of the first VARQ user with one)."""
    fig = figure("Probability trajectory of the latest request", x_title="submission time (h)")
    fig["layout"]["yaxis"] |= {"range": [0, 1], "title": {"text": "P(start by deadline)"}}
    fig["layout"]["xaxis"]["rangemode"] = "normal"  # the hours from the request to its deadline
    user = next((u for u in model.varq_users if getattr(u, "latest", None)), None)
    if user is None:
        return empty_note(fig, "no VARQ request yet")
    nodes, walltime, asked, deadline, plan = user.latest
    if deadline <= asked:
        return empty_note(fig, "the latest request's deadline has passed")
    times, probs = varq.trajectory(user.site.predictor, nodes, walltime, asked, deadline, user.step)
    name = f"{nodes} node{'s' if nodes != 1 else ''} × {walltime:.2f} h"
    fig["data"].append(series(name, times, probs, line_colour=colour_of(0)))
    shapes = [_line("y", user.required, "paper", f"required {user.required:g}")]
    if plan is not None:
        shapes.append(_line("x", plan.submit_at, "paper", f"submit at {plan.submit_at:.2f} h"))
    fig["layout"]["shapes"] = shapes
    return fig


def _line(axis: str, at: float, across: str, text: str = "") -> dict[str, Any]:
    """A dotted line at ``at`` on ``axis`` (``y``: horizontal) across the plot, labelled
    ``text`` (a horizontal line at its left end, a vertical one at its top, to its left)."""
    font = {"size": 11, "color": "#444"}
    line = {
        "type": "line",
        "line": {"color": "#444", "dash": "dot", "width": 1},
        "label": {"text": text, "textposition": "start", "font": font},
    }
    if axis == "y":  # its label at the left, over the line
        return line | {"xref": across, "x0": 0, "x1": 1, "yref": "y", "y0": at, "y1": at}
    line["label"] |= {"textposition": "end", "textangle": 0, "xanchor": "right", "yanchor": "top"}
    return line | {"yref": across, "y0": 0, "y1": 1, "xref": "x", "x0": at, "x1": at}


def success_figure(session: Session) -> dict[str, Any]:
    """Running mean predicted probability and observed success, per VARQ user, by deadline."""
    fig = figure("Predicted vs observed success", x_title="deadline (h)")
    fig["layout"]["yaxis"]["title"] = {"text": "%"}
    k = 0
    for i, run in enumerate(session.runs):
        for user in run.model.varq_users:
            decided = sorted(
                (r for r in getattr(user, "records", []) if r.success is not None),
                key=lambda r: r.deadline,
            )
            if not decided:
                continue
            count = np.arange(1, len(decided) + 1)
            x = [r.deadline for r in decided]
            predicted = 100 * np.cumsum([r.plan.probability for r in decided]) / count
            observed = 100 * np.cumsum([r.success for r in decided]) / count
            name = session.label(i, user.name)
            fig["data"].append(series(f"{name} predicted", x, predicted, line_colour=colour_of(k)))
            fig["data"].append(
                series(f"{name} observed", x, observed, line_colour=colour_of(k + 1))
            )
            k += 2
    return fig if fig["data"] else empty_note(fig, "no reservation has reached its deadline")


def queue_figure(session: VarqSession) -> dict[str, Any]:
    """Each site's jobs waiting and nodes busy over time."""
    fig = figure("The sites' queues", ("jobs waiting", "nodes busy"))
    for k, ((i, name), record) in enumerate(sorted(session.queues.items())):
        label, c = session.label(i, name), colour_of(k)
        fig["data"].append(series(label, record["t"], record["waiting"], 0, line_colour=c))
        fig["data"].append(
            series(label, record["t"], record["busy"], 1, legend=False, line_colour=c)
        )
    return fig


def draw(session: VarqSession) -> tuple[Any, ...]:
    if not session.runs:
        return tuple(empty_note(figure(""), "nothing to show") for _ in GRAPHS)
    trajectory = next(
        (
            trajectory_figure(run.model)
            for run in session.runs
            if any(getattr(u, "latest", None) for u in run.model.varq_users)
        ),
        trajectory_figure(session.runs[0].model),
    )
    return trajectory, success_figure(session), queue_figure(session)


def suits(scenario) -> str | None:
    """Why this page cannot show ``scenario`` (None: it can)."""
    if scenario.batch_sites:
        return None
    return "no batch site: a VARQ scenario has batch_sites"


def first_variant(scenario) -> tuple[str, ...]:
    """A site's whole trace is long: the page starts with the first variant only."""
    return tuple(scenario.variants)[:1] or (AS_WRITTEN,)


def _body() -> list:
    from dash import dcc

    return [dcc.Graph(id=g) for g in GRAPHS]


VIEW = view_page(
    dict(
        key="varq",
        path="/varq",
        name="VARQ",
        default=DEFAULT,
        defaults=DEFAULTS,
        suits=suits,
        speed=24.0,
        factory=VarqSession,
        policies=first_variant,
    ),
    title="VARQ: probability trajectories, predicted vs observed success, the site's queue",
    body=_body,
    outputs=tuple((g, "figure") for g in GRAPHS),
    draw=draw,
)
PAGE = VIEW.page
