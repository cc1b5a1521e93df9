"""A live view of a deadline-cluster scenario: ``python -m dashboards.libra
[SCENARIO] [--set KEY=VALUE ...] [--host 127.0.0.1] [--port 8053] [--speed 24]``, by default
``scenarios/libra/sdsc.yaml`` (the last 3,000 SDSC-SP2 jobs). Every variant (Libra, LibraRisk,
EDF, ...) runs in parallel on the scenario's seed, so on one job stream.

Yeo & Buyya, ICPP'06 §4-5:

- **% of jobs with their deadline fulfilled** over time per variant: of the jobs submitted by
  time t, those completed by t and by their deadline; and the **mean slowdown** of the jobs
  fulfilled by t (response time over the runtime on the processors they ran on). The summary's
  ``deadlines_fulfilled_pct`` and ``mean_slowdown_fulfilled`` (:mod:`market.results.fulfilment`) are
  the same definitions at the end of the run, so the last points are the summary's values;
  evaluated at every sample time from the jobs' outcomes
  (:func:`market.results.job_outcomes.job_outcomes`,
  :func:`market.results.outcome_curves.fulfilment`);
- **one node's shares** (§3.1, Eq. 1-2; :mod:`market.core.timeshare`): for the node chosen on the
  page, a stacked area per time-shared variant of the shares of the jobs on it over time (a
  colour per job, hover for its id); the dotted line at 1 is the node's processor: Libra keeps
  the total at or below it, LibraRisk may go past it (its jobs then slow down in proportion).

Shares are seen at the session's samples, every ``sample_interval`` = 0.25 h by default (our
choice: a quarter of SDSC-SP2's jobs run under 0.65 h; the scenarios sample every 24 h);
``--set sample_interval=...`` changes it. A job shorter than a sample may not show.
"""

from __future__ import annotations

import sys
from typing import Any

from dashboards.paper_page import (
    SCENARIOS,
    colour_of_job,
    empty_note,
    figure,
    new_session,
    page_app,
    sample_times,
    series,
    serve_view,
)
from dashboards.paper_session import ViewSession
from market.results.job_outcomes import job_outcomes
from market.results.outcome_curves import fulfilment

DEFAULT = SCENARIOS / "libra" / "sdsc.yaml"
DEFAULTS = {"sample_interval": 0.25}
GRAPHS = ("libra-fulfilled", "libra-node")


def fulfilled_figure(session: ViewSession) -> dict[str, Any]:
    """% of deadlines fulfilled and mean slowdown (fulfilled jobs) over time, per variant."""
    fig = figure(
        "Deadlines",
        ("% of submitted jobs with the deadline fulfilled", "mean slowdown of those jobs"),
    )
    times, _ = sample_times(session.lines)
    by_run = [{o.provider: o for o in job_outcomes(run.model)} for run in session.runs]
    for line, t in zip(session.lines, times, strict=True):
        pct, slowdown = fulfilment(by_run[line.run][line.provider], t)
        fig["data"].append(series(line.label, t, pct, 0))
        fig["data"].append(series(line.label, t, slowdown, 1, legend=False))
    fig["layout"]["yaxis"]["range"] = [0, 101]
    return fig


def cluster_sizes(session: ViewSession) -> list[int]:
    """The node counts of the time-shared clusters of the session's lines."""
    sizes = (session.cluster_size(k) for k in range(len(session.lines)))
    return sorted({size for size in sizes if size is not None})


def check_node(value: Any, session: ViewSession) -> str | None:
    """Why ``value`` is not a node of the session's time-shared clusters (None if it is)."""
    sizes = cluster_sizes(session)
    if not sizes:
        return "node: no variant of this run time-shares its nodes (Libra, LibraRisk)"
    nodes = f"from 0 to {min(sizes) - 1}"
    if value is None or value == "":
        return f"node: enter a node number {nodes}"
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        return f"node: must be a whole number {nodes}, got {value!r}"
    if not 0 <= value < min(sizes):
        return f"node: no node {int(value)}: the clusters have nodes {nodes}"
    return None


def node_traces(history, now: float) -> dict[int, tuple[list[float], list[float]]]:
    """Per job that was on the node, ``(times, shares)``: its share at every change of the
    node while it was there, 0 when it left, its share still at ``now`` if it is there.
    Every job has a point at every change during its stay, so stacking never infers a 0."""
    traces: dict[int, tuple[list[float], list[float]]] = {}
    before: dict[int, float] = {}
    for t, state in history:
        for job in before.keys() - state.keys():
            traces[job][0].append(t)
            traces[job][1].append(0.0)
        for job, share in state.items():
            x, y = traces.setdefault(job, ([], []))
            x.append(t)
            y.append(share)
        before = state
    for job, share in before.items():
        if traces[job][0][-1] < now:
            traces[job][0].append(now)
            traces[job][1].append(share)
    return traces


def node_figure(session: ViewSession, node: int) -> dict[str, Any]:
    """The shares of the jobs on ``node`` over time, stacked, per time-shared variant."""
    shared = [k for k in range(len(session.lines)) if session.cluster_size(k) is not None]
    labels = tuple(session.lines[k].label for k in shared)
    fig = figure(f"Node {node}: the jobs' shares (Eq. 1) over time", labels or ("",), 320)
    if not shared:
        return empty_note(fig, "no variant of this run time-shares its nodes")
    for column, k in enumerate(shared):
        line = session.lines[k]
        history = session.node_history[k][node]
        for job, (x, y) in node_traces(history, line.t[-1]).items():
            fig["data"].append(
                series(
                    f"job {job}",
                    x,
                    y,
                    column,
                    legend=False,
                    shape="hv",
                    colour=colour_of_job(job),
                    width=0.5,
                    stackgroup=f"node{column}",
                    hovertemplate=f"job {job}: %{{y:.3f}}<extra></extra>",
                )
            )
        suffix = "" if column == 0 else str(column + 1)
        fig["layout"]["shapes"] = [
            *fig["layout"].get("shapes", []),
            {
                "type": "line",
                "xref": f"x{suffix} domain",
                "yref": f"y{suffix}",
                "x0": 0,
                "x1": 1,
                "y0": 1,
                "y1": 1,
                "line": {"color": "#444", "dash": "dot", "width": 1},
            },
        ]
        fig["layout"][f"yaxis{suffix}"]["title"] = {"text": "share of the node"}
    fig["layout"]["showlegend"] = False
    return fig


def draw(session: ViewSession, node: Any) -> tuple[Any, ...]:
    """The message under the node chooser and the two figures (node 0 if the choice is bad)."""
    with session.lock:
        message = check_node(node, session)
        chosen = 0 if message else int(node)
        return message or "", fulfilled_figure(session), node_figure(session, chosen)


def create_app(scenario=DEFAULT, overrides: dict[str, Any] | None = None, speed: float = 24.0):
    """The page over every variant of ``scenario`` with ``overrides`` (default: 0.25 h samples)."""
    from dash import dcc, html

    session = new_session(scenario, {**DEFAULTS, **(overrides or {})}, shares=True, speed=speed)
    chooser = html.Div(
        [
            html.Label("Node", className="inline-label"),
            dcc.Input(
                id="libra-node-choice",
                type="number",
                value=0,
                min=0,
                step=1,
                debounce=True,
                className="field-input",
                style={"width": "7em"},
            ),
            html.Span(id="libra-node-msg", className="field-msg"),
        ],
        className="row",
    )
    body = [dcc.Graph(id=GRAPHS[0]), chooser, dcc.Graph(id=GRAPHS[1])]
    outputs = [("libra-node-msg", "children"), *((g, "figure") for g in GRAPHS)]
    title = "Libra / LibraRisk / EDF"
    return page_app("libra", title, session, body, outputs, draw, ("libra-node-choice",))


def main(argv: list[str] | None = None) -> int:
    return serve_view(argv, "python -m dashboards.libra", __doc__, DEFAULT, 8053, create_app)


if __name__ == "__main__":
    sys.exit(main())
