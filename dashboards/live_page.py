"""The live page (``/``): compare policies on any scenario, one set of models per browser tab.
A set-up panel (the scenario: a file of the scenario folders or an upload, which resets the tab
at once; how to compare the policies; which policies, a scenario without variants as written;
key parameters checked as they are typed: :mod:`dashboards.setup_panel`), run controls (start,
pause, step, run until T, reset, speed) and live views: profit rate, money or QoS charts by the
run's kind, operations, monitors, a Gantt chart, the latest decisions, CSV export. Callbacks:
:mod:`dashboards.callbacks`; incremental updates: :mod:`dashboards.live_update`.
"""

from __future__ import annotations

from dash import dcc, html

from dashboards.scenario_picker import picker
from dashboards.session import Session
from dashboards.views import GRAPHS, HIDDEN, shown_graphs, timeseries_figure
from market.inputs.scenario import Scenario

SPEEDS = (0.5, 1, 2, 5, 10, 20, 50, 100)  # simulated hours per wall-clock second

#: The view pages a scenario may suit: (page path, what it shows), tried in order.
VIEWS = (
    ("/vqops", "VQoPS / DVQoPS", "OC-Factor, rollback window and accepted % per class"),
    ("/libra", "Libra", "deadlines fulfilled, slowdown and node shares"),
    ("/varq", "VARQ", "probability trajectories and the site's queue"),
    ("/market", "Competing market", "shares, prices and markups per provider"),
)


def view_note(scenario: Scenario) -> list:
    """For the set-up panel: a link to the view page made for ``scenario`` (if any)."""
    from dashboards import libra, market_view, varq, vqops

    suits = {"/vqops": vqops.suits, "/libra": libra.suits, "/varq": varq.suits,
             "/market": market_view.suits}  # fmt: skip
    for path, name, what in VIEWS:
        if suits[path](scenario) is None:
            return [
                html.P(
                    ["This scenario has its own page (", what, "): ", dcc.Link(name, href=path)],
                    className="note view-hint",
                )
            ]
    return []


def _button(label: str, id: str, kind: str = "") -> html.Button:
    return html.Button(label, id=id, n_clicks=0, className=f"btn {kind}".strip())


def layout(options: list[dict[str, str]]) -> html.Div:
    """The page. Its set-up fields are filled per tab by a callback (the tab's own values)."""
    empty = {"data": [], "layout": {"template": "plotly_white", "height": 260}}
    graph_config = {"displaylogo": False}
    setup_panel = html.Aside(
        [
            html.H2("Set-up"),
            *picker("", options),
            html.Div(id="setup-fields"),
            html.P("Changes apply on Reset; a new scenario at once.", className="note"),
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
            dcc.Store(id="cursor", storage_type="memory"),
            dcc.Store(id="pulse", storage_type="memory"),
            dcc.Store(id="ack", storage_type="memory"),
            dcc.Store(id="nudge", storage_type="memory", data=0),
            dcc.Interval(id="interval", interval=int(Session.interval * 1000)),
            dcc.Download(id="download-timeseries"),
            dcc.Download(id="download-jobs"),
            html.Div(
                [html.H2("Live run: compare policies"), html.Div(id="status", className="status")],
                className="page-head",
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
        className="view",
    )
