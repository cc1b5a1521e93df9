"""The Libra page (``/libra``; Yeo & Buyya ICPP'06 §3-5): every variant of a deadline-cluster
scenario (default ``libra/sdsc.yaml``) in parallel on its seed. It draws the % of submitted jobs
whose deadline is fulfilled and the mean slowdown of those jobs over time (the summary's
``deadlines_fulfilled_pct`` and ``mean_slowdown_fulfilled`` at each sample, so the last points
are the summary's), and one node's job shares (Eq. 1-2) stacked per time-shared variant, the
node's processor dotted at 1. Our choice: samples every 0.25 h (a quarter of SDSC-SP2's jobs run
under 0.65 h); a job shorter than a sample may not show.
"""

from __future__ import annotations

from typing import Any

from dashboards.figures import colour_of, empty_note, figure, sample_times, series
from dashboards.page import SCENARIOS
from dashboards.paper_session import ViewSession
from dashboards.view_page import view_page
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
                    line_colour=colour_of(job),
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
    if not session.lines:
        return "", empty_note(figure(""), "nothing to show"), empty_note(figure(""), "")
    message = check_node(node, session)
    chosen = 0 if message else int(node)
    return message or "", fulfilled_figure(session), node_figure(session, chosen)


def suits(scenario) -> str | None:
    """Why this page cannot show ``scenario`` (None: it can)."""
    if any(sp.cluster is not None for sp in scenario.service_providers):
        return None
    return "not a deadline-cluster scenario (no cluster: libra, libra_risk or edf)"


def _body() -> list:
    from dash import dcc, html

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
    return [dcc.Graph(id=GRAPHS[0]), chooser, dcc.Graph(id=GRAPHS[1])]


def _session(sid, setup):
    return ViewSession(sid, setup, shares=True)


VIEW = view_page(
    dict(
        key="libra",
        path="/libra",
        name="Libra",
        default=DEFAULT,
        defaults=DEFAULTS,
        suits=suits,
        speed=24.0,
        factory=_session,
    ),
    title="Libra / LibraRisk / EDF: deadlines fulfilled, slowdown, a node's shares",
    body=_body,
    outputs=(("libra-node-msg", "children"), *((g, "figure") for g in GRAPHS)),
    draw=draw,
    redraw=("libra-node-choice",),
)
PAGE = VIEW.page
