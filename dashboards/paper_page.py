"""What the paper views (:mod:`dashboards.vqops`, :mod:`dashboards.libra`) share: the colour of
each policy, the page's frame (title, clock, start/pause, speed), the figure frame, thinning,
and the command line ``python -m dashboards.<view> [SCENARIO] [--set KEY=VALUE ...] [--host
127.0.0.1] [--port N] [--speed H]``.

Like the VARQ page (:mod:`dashboards.varq`) a view serves one set of runs per server: every
variant of the scenario, in parallel on its seed (:class:`~dashboards.setup.Setup`), advanced
by the dashboard's own session loop (:class:`~dashboards.paper_session.ViewSession`) while the
page is open; it starts playing at once. Figures are plain dicts (see :mod:`dashboards.views`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from dashboards import served_scenarios
from dashboards.page_cli import page_parser, serve_page
from dashboards.paper_session import ViewSession
from dashboards.session import Line
from dashboards.setup import Setup, SetupError
from dashboards.views import display_stride, panel
from market.experiments.style import FALLBACK_COLOURS, policy_style
from market.inputs.scenario import Scenario, ScenarioError, parse_overrides
from market.inputs.scenario_files import ScenarioFileError, resolve, shipped_dir

SCENARIOS = shipped_dir() or Path("scenarios")  # installed or in the checkout
ASSETS = str(Path(__file__).with_name("assets"))  # the main dashboard's style sheet
SPEEDS = (1, 2, 6, 12, 24, 48, 96, 192, 480)  # simulated hours per wall-clock second


def _colour(name: str) -> str:
    """The colour of policy (variant) ``name``: the one it has everywhere
    (:func:`market.experiments.style.policy_style`)."""
    return policy_style(name)[0]


def colour_of_job(job: int) -> str:
    """A colour per job (the node chart's areas), cycling through the palette."""
    return FALLBACK_COLOURS[job % len(FALLBACK_COLOURS)]


# -- figures ----------------------------------------------------------------------------------
def figure(title: str, columns: tuple[str, ...] = ("",), height: int = 300) -> dict[str, Any]:
    """An empty figure of ``len(columns)`` side-by-side subplots (axes ``x``/``y``, ``x2``/``y2``,
    ...) titled ``columns``, under ``title``; time runs along every x axis."""
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
    return {"data": [], "layout": layout}


def series(
    name: str,
    x,
    y,
    column: int = 0,
    legend: bool = True,
    shape: str = "linear",
    colour: str | None = None,
    width: float = 1.5,
    **extra: Any,
) -> dict[str, Any]:
    """One line named ``name`` in subplot ``column`` (NaN: a gap), in the colour of policy
    ``name`` unless ``colour`` is given; ``shape="hv"`` for a step."""
    suffix = "" if column == 0 else str(column + 1)
    return {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "legendgroup": name,
        "showlegend": legend,
        "x": _plain(x),
        "y": _plain(y),
        "line": {"color": colour or _colour(name), "width": width, "shape": shape},
        "xaxis": f"x{suffix}",
        "yaxis": f"y{suffix}",
        **extra,
    }


def _plain(values) -> list[float | None]:
    """JSON-ready floats: NaN becomes None (a gap)."""
    array = np.asarray(values, dtype=float)
    return [None if v != v else v for v in array.tolist()]


def sample_times(lines: list[Line]) -> tuple[list[np.ndarray], int]:
    """Each line's sample times, thinned as the main dashboard thins its charts
    (:func:`~dashboards.views.display_stride`), and the stride."""
    stride = display_stride(lines)
    return [np.asarray(line.t[::stride]) for line in lines], stride


def empty_note(fig: dict[str, Any], text: str) -> dict[str, Any]:
    """``fig`` with ``text`` in its middle (a chart with nothing to show yet)."""
    fig["layout"]["annotations"].append(
        {"text": text, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False}
    )
    return fig


# -- the page ---------------------------------------------------------------------------------
def frame(prefix: str, title: str, session: ViewSession, body: list) -> Any:
    """The page: title, clock, start/pause and speed, ``body``, and the tick."""
    from dash import dcc, html

    controls = html.Div(
        [
            html.Button("▶ Start", id=f"{prefix}-start", n_clicks=0, className="btn primary"),
            html.Button("❚❚ Pause", id=f"{prefix}-pause", n_clicks=0, className="btn"),
            html.Label("Speed", className="inline-label"),
            dcc.Dropdown(
                id=f"{prefix}-speed",
                clearable=False,
                value=session.speed,
                className="speed",
                options=[
                    {"label": f"{s:g} h/s", "value": s} for s in sorted({*SPEEDS, session.speed})
                ],
            ),
            html.Span(id=f"{prefix}-clock", className="sim-time"),
        ],
        className="controls",
    )
    return html.Div(
        [
            html.Header([html.H1(title)]),
            controls,
            *body,
            dcc.Interval(id=f"{prefix}-tick", interval=int(ViewSession.interval * 1000)),
        ],
        className="page",
    )


def control(session: ViewSession, trigger: str | None, speed: Any, advance: bool = True) -> str:
    """Apply a control (``start``, ``pause``, a new speed; else, if ``advance``, a tick that
    advances the run) and return the clock line."""
    with session.lock:
        if trigger and trigger.endswith("-start"):
            session.play()
        elif trigger and trigger.endswith("-pause"):
            session.pause()
        elif trigger and trigger.endswith("-speed") and speed is not None:
            session.set_speed(speed)
        elif advance:
            session.tick()
        status = session.status()
    clock = f"t = {status['time']:,.1f} h · {status['state']}"
    if status["behind"]:
        clock += " · behind (the simulation is slower than this speed)"
    return f"{clock} · {status['message']}" if status["message"] else clock


def page_app(
    prefix: str,
    title: str,
    session: ViewSession,
    body: list,
    outputs: list[tuple[str, str]],
    draw: Callable[..., tuple],
    inputs: tuple[str, ...] = (),
) -> Any:
    """A view's Dash app: :func:`frame` around ``body``; on every tick and control, and on a
    change of a component of ``inputs`` (its ``value``, which only redraws), :func:`control`
    then ``draw(session, *input values)`` for ``outputs`` (``(id, property)`` pairs)."""
    from dash import Dash, Input, Output, State, ctx

    name = session.runs[0].model.spec.name
    app = Dash(__name__, title=f"gridmarket {title}", assets_folder=ASSETS)
    app.layout = frame(prefix, f"{title} · {name}", session, body)

    @app.callback(
        Output(f"{prefix}-clock", "children"),
        *(Output(id, prop) for id, prop in outputs),
        Input(f"{prefix}-tick", "n_intervals"),
        Input(f"{prefix}-start", "n_clicks"),
        Input(f"{prefix}-pause", "n_clicks"),
        Input(f"{prefix}-speed", "value"),
        *(Input(id, "value") for id in inputs),
        State(f"{prefix}-speed", "value"),
    )
    def update(_tick, _start, _pause, _speed, *rest):
        *values, speed = rest
        clock = control(session, ctx.triggered_id, speed, ctx.triggered_id not in inputs)
        return (clock, *draw(session, *values))

    app.gridmarket_session = session  # for tests and tools
    return app


def new_session(
    scenario: str | Path,
    overrides: dict[str, Any],
    extra=(),
    shares: bool = False,
    speed: float = 24.0,
) -> ViewSession:
    """Every variant of ``scenario`` (with ``overrides``), in parallel, playing: a one-line
    :class:`~market.inputs.scenario.ScenarioError` for a bad file or override."""
    try:
        path = str(resolve(scenario).resolve())
    except ScenarioFileError as exc:
        raise ScenarioError(str(exc)) from None
    served_scenarios.allow(path)  # the operator's choice, as for the main dashboard
    base = Setup.default(path)
    setup = Setup(path, base.policies, overrides=tuple(overrides.items()))
    try:
        session = ViewSession("view-session", setup, extra=extra, shares=shares)
    except SetupError as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    session.set_speed(speed)
    session.play()
    return session


def serve_view(
    argv: list[str] | None,
    prog: str,
    doc: str,
    default: Path,
    port: int,
    create_app: Callable[..., Any],
    defaults: dict[str, Any] | None = None,
) -> int:
    """The command line of a view: serve ``create_app(scenario, overrides, speed)``."""
    parser = page_parser(prog, doc, default, port)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario field, as for gridmarket run",
    )
    parser.add_argument("--speed", type=float, default=24.0, help="simulated hours per second")

    def build(args):
        overrides = {**(defaults or {}), **parse_overrides(args.set)}
        return create_app(args.scenario, overrides, args.speed)

    return serve_page(parser, argv, build, ("speed",))


# -- the main dashboard's pointer -------------------------------------------------------------
def view_for(scenario: Scenario) -> str | None:
    """The paper view made for ``scenario``: ``vqops`` for a priced workload (VQoPS/DVQoPS),
    ``libra`` for a deadline cluster (Libra, LibraRisk, EDF), else None."""
    if any(client.workload.kind == "priced_swf" for client in scenario.clients):
        return "vqops"
    if any(sp.cluster is not None for sp in scenario.service_providers):
        return "libra"
    return None


def view_note(path: str, scenario: Scenario) -> list:
    """For the main dashboard's set-up panel: a line naming the command of the paper view made
    for ``scenario`` (nothing if there is none)."""
    from dash import html

    view = view_for(scenario)
    if view is None:
        return []
    what = {
        "vqops": "OC-Factor, rollback window and accepted % per class",
        "libra": "deadlines fulfilled, slowdown and node shares",
    }[view]
    return [
        html.P(
            [
                f"This scenario has its own view ({what}): ",
                html.Code(f"python -m dashboards.{view} {path}"),
            ],
            className="note view-hint",
        )
    ]
