"""The Dash app: watch and steer market runs, one set of models per browser tab.

``gridmarket dashboard [--host 127.0.0.1] [--port 8050] [SCENARIO]`` or ``python -m dashboards``
serves it (:func:`serve`); :func:`create_app` builds it for tests and WSGI servers. The page:

- a set-up panel: the scenario (a file of the scenario folders, or an upload: see
  :mod:`dashboards.served_scenarios`), how to compare its policies (parallel runs on one seed,
  or competing providers in one market), which policies,
  and the key parameters, each checked by the scenario's own validation as it is typed;
- run controls: start, pause, step (the next event), run until T, reset, speed;
- live views: profit rate per run or provider (the headline), cumulative profit, revenue and
  rent where money moves; % of offered jobs unadmitted, deadlines missed, % fulfilled and
  slowdowns where jobs have deadlines (both where both); utilization, queue length, % accepted,
  monitors, a Gantt chart of running and planned jobs, the latest admission decisions; and CSV
  export of the time series and per-job table.

How each tab keeps its own models and gets only new points: see :mod:`dashboards.callbacks`.
"""

from __future__ import annotations

from pathlib import Path

from dash import Dash, dcc, html

from dashboards import served_scenarios
from dashboards.callbacks import Callbacks
from dashboards.served_scenarios import load_scenario
from dashboards.session import Session
from dashboards.setup import Setup
from dashboards.tab_sessions import TabSessions
from dashboards.views import GRAPHS, HIDDEN, shown_graphs, timeseries_figure
from market.inputs.scenario import ScenarioError
from market.inputs.scenario_files import ScenarioFileError, resolve, shipped_dir

SCENARIOS = shipped_dir() or Path("scenarios")  # installed or in the checkout
DEFAULT_SCENARIO = SCENARIOS / "profit" / "default.yaml"
MAX_REQUEST_BYTES = 16 * 1024 * 1024  # an HTTP request (an upload is at most 1 MiB)
SPEEDS = (0.5, 1, 2, 5, 10, 20, 50, 100)  # simulated hours per wall-clock second


def _button(label: str, id: str, kind: str = "") -> html.Button:
    return html.Button(label, id=id, n_clicks=0, className=f"btn {kind}".strip())


def layout(catalog: list[tuple[str, str]]) -> html.Div:
    """The page. Its set-up fields are filled per tab by a callback (the tab's own values)."""
    empty = {"data": [], "layout": {"template": "plotly_white", "height": 260}}
    graph_config = {"displaylogo": False}
    setup_panel = html.Aside(
        [
            html.H2("Set-up"),
            html.Label("Scenario", className="field-label"),
            dcc.Dropdown(
                id="scenario",
                options=[{"label": label, "value": path} for label, path in catalog],
                clearable=False,
            ),
            html.Div(id="scenario-msg", className="field-msg"),
            html.Div(
                [
                    dcc.Input(
                        id="scenario-path",
                        type="text",
                        placeholder="or a file of the scenario folders",
                        className="field-input",
                        debounce=True,
                    ),
                    _button("Load", "load-path"),
                ],
                className="row",
            ),
            dcc.Upload(
                id="scenario-upload",
                children=html.Button("Upload a scenario file", className="btn"),
                max_size=served_scenarios.MAX_BYTES,
                multiple=False,
            ),
            html.Div(id="path-msg", className="field-msg"),
            html.Div(id="setup-fields"),
            html.P("Changes apply on Reset.", className="note"),
        ],
        className="panel setup",
    )
    controls = html.Div(
        [
            _button("▶ Start", "start", "primary"),
            _button("❚❚ Pause", "pause"),
            _button("Step", "step"),
            html.Span(
                [
                    _button("Run until", "run-until"),
                    dcc.Input(id="until", type="number", placeholder="T (h)", className="until"),
                ],
                className="group",
            ),
            _button("Reset", "reset", "danger"),
            html.Span(
                [
                    html.Label("Speed", className="inline-label"),
                    dcc.Dropdown(
                        id="speed",
                        clearable=False,
                        value=2,
                        className="speed",
                        options=[{"label": f"{s:g} h/s", "value": s} for s in SPEEDS],
                    ),
                ],
                className="group",
            ),
            html.Span(id="control-msg", className="control-msg"),
        ],
        className="controls",
    )
    shown = shown_graphs(None)  # until the run says what it is (see dashboards.callbacks)
    graphs = [
        dcc.Graph(
            id=f"{graph}-graph",
            figure=timeseries_figure(graph, []) if graph == "rate" else empty,
            config=graph_config,
            style={} if graph in shown else HIDDEN,
        )
        for graph in GRAPHS
    ]
    return html.Div(
        [
            dcc.Store(id="sid", storage_type="session"),
            dcc.Store(id="cursor", storage_type="memory"),
            dcc.Store(id="pulse", storage_type="memory"),
            dcc.Store(id="ack", storage_type="memory"),
            dcc.Store(id="nudge", storage_type="memory", data=0),
            dcc.Interval(id="interval", interval=int(Session.interval * 1000)),
            dcc.Download(id="download-timeseries"),
            dcc.Download(id="download-jobs"),
            html.Header(
                [html.H1("gridmarket · live market"), html.Div(id="status", className="status")]
            ),
            html.Div(
                [
                    setup_panel,
                    html.Main(
                        [
                            controls,
                            html.Div(id="monitors", className="monitors-box"),
                            *graphs,
                            dcc.Graph(id="gantt-graph", figure=empty, config=graph_config),
                            html.H3("Latest admission decisions"),
                            html.Div(id="decisions"),
                            html.Div(
                                [
                                    _button("Download time series (CSV)", "export-timeseries"),
                                    _button("Download per-job table (CSV)", "export-jobs"),
                                ],
                                className="row export",
                            ),
                        ],
                        className="main",
                    ),
                ],
                className="body",
            ),
        ],
        className="page",
    )


def create_app(
    scenario_path: str | Path | None = None,
    *,
    scenarios_dir: str | Path | None = None,
    registry: TabSessions | None = None,
) -> Dash:
    """The app, whose new tabs start with ``scenario_path`` (default: the profit paper's
    default scenario). A bad scenario file raises a one-line
    :class:`~market.inputs.scenario.ScenarioError` here, before anything is served."""
    try:
        path = str(resolve(scenario_path or DEFAULT_SCENARIO).resolve())
    except ScenarioFileError as exc:
        raise ScenarioError(str(exc)) from None
    served_scenarios.allow(path)  # the operator's choice; browsers get the scenario folders only
    if scenarios_dir:
        served_scenarios.allow(scenarios_dir)
    load_scenario(path)
    roots = [Path(scenarios_dir).expanduser().resolve()] if scenarios_dir else None
    catalog = served_scenarios.catalog(roots)
    if registry is None:
        registry = TabSessions(lambda: Setup.default(path))
    app = Dash(
        __name__,
        title="gridmarket dashboard",
        assets_folder=str(Path(__file__).with_name("assets")),
        suppress_callback_exceptions=True,  # the set-up fields are made per tab
    )
    app.server.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    app.layout = layout(catalog)
    callbacks = Callbacks(registry, catalog)
    callbacks.register(app)
    app.gridmarket_registry = registry  # for tests and tools
    return app


def serve(host: str = "127.0.0.1", port: int = 8050, scenario_path: str | None = None) -> None:
    """Serve the dashboard at http://host:port/ until interrupted (loopback unless told)."""
    app = create_app(scenario_path)
    print(f"gridmarket dashboard: http://{host}:{port}/ (Ctrl-C stops it)", flush=True)
    app.run(host=host, port=port, debug=False)
