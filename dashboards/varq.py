"""A live view of a VARQ run: ``python -m dashboards.varq [SCENARIO]
[--host 127.0.0.1] [--port 8051]`` (default: ``scenarios/varq/table4.yaml``, first variant).

Three charts, redrawn every second while the run advances ``hours`` simulated hours a tick:

- the probability trajectory of the latest VARQ request (VARQ TR 2007-09 §3, Figure 4):
  ``QBETS(nodes, walltime + (deadline - t), deadline - t)`` for every submission time t from the
  request to its deadline, with the required probability and the chosen (latest qualifying)
  submission time; computed when drawn, on the site's QBETS as it is then;
- predicted vs observed success so far: per VARQ user, the running mean predicted probability
  and the running share of reservations running at their deadline, by deadline;
- the site's queue: jobs waiting and nodes busy, sampled each tick.

One run per server (a view, not the steerable market dashboard of :mod:`dashboards.app`).
The figure builders are plain functions of the model, tested without a browser.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

from agents.policies import varq
from dashboards.page_cli import page_parser, serve_page
from market.inputs.scenario import load
from market.sim.model import GridMarket

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "scenarios" / "varq" / "table4.yaml"


def trajectory_figure(model: GridMarket) -> go.Figure:
    """The latest request's probability trajectory (of the first VARQ user with one)."""
    fig = go.Figure(layout={"template": "plotly_white", "height": 300,
                            "title": "Probability trajectory of the latest request"})  # fmt: skip
    user = next((u for u in model.varq_users if getattr(u, "latest", None)), None)
    if user is None:
        return fig
    nodes, walltime, asked, deadline, plan = user.latest
    if deadline <= asked:
        return fig
    times, probs = varq.trajectory(user.site.predictor, nodes, walltime, asked, deadline, user.step)
    fig.add_scatter(x=times, y=probs, mode="lines", name=f"{nodes} nodes x {walltime:.2f} h")
    fig.add_hline(y=user.required, line_dash="dot", annotation_text=f"p = {user.required:g}")
    if plan is not None:
        fig.add_vline(x=plan.submit_at, line_dash="dash", annotation_text="submit")
    fig.update_layout(xaxis_title="submission time (h)", yaxis_title="P(start by deadline)",
                      yaxis_range=[0, 1])  # fmt: skip
    return fig


def success_figure(model: GridMarket) -> go.Figure:
    """Running mean predicted probability and observed success, per VARQ user, by deadline."""
    fig = go.Figure(layout={"template": "plotly_white", "height": 300,
                            "title": "Predicted vs observed success"})  # fmt: skip
    for user in model.varq_users:
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
        fig.add_scatter(x=x, y=predicted, mode="lines", name=f"{user.name} predicted")
        fig.add_scatter(x=x, y=observed, mode="lines", name=f"{user.name} observed")
    fig.update_layout(xaxis_title="deadline (h)", yaxis_title="%")
    return fig


class QueueSampler:
    """The sites' queue lengths and busy nodes over time, one sample per :meth:`sample`."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, int, int]] = []

    def sample(self, model: GridMarket) -> None:
        for site in model.batch_sites.values():
            self.rows.append((site.name, model.time, len(site.queue), site.busy))

    def figure(self) -> go.Figure:
        fig = go.Figure(layout={"template": "plotly_white", "height": 300,
                                "title": "The site's queue"})  # fmt: skip
        for name in sorted({r[0] for r in self.rows}):
            mine = [r for r in self.rows if r[0] == name]
            t = [r[1] for r in mine]
            fig.add_scatter(x=t, y=[r[2] for r in mine], name=f"{name} jobs waiting")
            fig.add_scatter(x=t, y=[r[3] for r in mine], name=f"{name} nodes busy", yaxis="y2")
        fig.update_layout(xaxis_title="time (h)", yaxis2={"overlaying": "y", "side": "right"})
        return fig


def create_app(scenario_path: str | Path = DEFAULT, hours: float = 24.0):
    """The app: one run of the scenario's first variant, advancing ``hours`` per tick."""
    from dash import Dash, Input, Output, dcc, html

    scenario = load(scenario_path).expand()[0][1]
    model = GridMarket(scenario)
    sampler = QueueSampler()
    app = Dash(__name__, title="gridmarket VARQ")
    app.layout = html.Div(
        [
            html.H2(f"VARQ: {scenario.name}"),
            html.Div(id="varq-clock"),
            dcc.Graph(id="varq-trajectory"),
            dcc.Graph(id="varq-success"),
            dcc.Graph(id="varq-queue"),
            dcc.Interval(id="varq-tick", interval=1000),
        ]
    )

    @app.callback(
        Output("varq-clock", "children"),
        Output("varq-trajectory", "figure"),
        Output("varq-success", "figure"),
        Output("varq-queue", "figure"),
        Input("varq-tick", "n_intervals"),
    )
    def tick(_):
        if model.running:
            model.run_until(model.time + hours)
        sampler.sample(model)
        state = "running" if model.running else "finished"
        clock = f"t = {model.time:,.1f} h ({state})"
        return clock, trajectory_figure(model), success_figure(model), sampler.figure()

    app.gridmarket_model = model  # for tests and tools
    return app


def main(argv: list[str] | None = None) -> int:
    parser = page_parser("python -m dashboards.varq", __doc__, DEFAULT, 8051)
    parser.add_argument("--hours", type=float, default=24.0, help="simulated hours per tick")
    return serve_page(parser, argv, lambda args: create_app(args.scenario, args.hours), ("hours",))


if __name__ == "__main__":
    sys.exit(main())
