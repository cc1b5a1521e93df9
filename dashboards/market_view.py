"""A live view of a competing market: ``python -m dashboards.market_view
[SCENARIO] [--host 127.0.0.1] [--port 8052] [--hours 1]`` (default:
``scenarios/market/competition.yaml``, first variant).

Every second the run advances ``hours`` simulated hours and the page draws, per service
provider over time, its market share (of jobs placed so far), the mean price of the quotes it
won and its profit; and the clients' total surplus with each resource provider's rent revenue.
A provider's markup can be changed while the run goes on (:meth:`GridMarket.set_markup`), and
the shares move from then on.

The page reads the run only through the model's public snapshot (:mod:`market.sim.snapshot`); the
recorder and the figure builders are plain functions, tested without a browser
(``tests/dashboards/test_market_view.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import plotly.graph_objects as go

from dashboards.page_cli import page_parser, serve_page
from market.inputs.scenario import load
from market.sim.model import GridMarket
from market.sim.snapshot import MarketSnapshot

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "scenarios" / "market" / "competition.yaml"

#: What the provider charts show: (snapshot metric, chart title, axis title).
PROVIDER_CHARTS = (
    ("market_share_pct", "Market share", "% of jobs placed"),
    ("mean_price", "Mean price of the quotes won", "florins"),
    ("profit", "Profit", "florins"),
    ("markup", "Markup", "markup"),
)


class MarketRecorder:
    """Snapshots of a market over time, as rows of plain numbers."""

    def __init__(self) -> None:
        self.providers: list[tuple[float, str, dict[str, float]]] = []
        self.market: list[tuple[float, dict[str, float]]] = []

    def record(self, snap: MarketSnapshot) -> None:
        for view in snap.providers:
            self.providers.append((snap.time, view.name, dict(view.metrics)))
        self.market.append((snap.time, dict(snap.market or {})))

    def provider_figure(self, metric: str, title: str, axis: str) -> go.Figure:
        """``metric`` of every service provider over time."""
        fig = go.Figure(layout={"template": "plotly_white", "height": 280, "title": title})
        for name in dict.fromkeys(row[1] for row in self.providers):
            rows = [r for r in self.providers if r[1] == name]
            fig.add_scatter(x=[r[0] for r in rows], y=[r[2].get(metric) for r in rows], name=name)
        fig.update_layout(xaxis_title="time (h)", yaxis_title=axis)
        return fig

    def market_figure(self) -> go.Figure:
        """The clients' surplus and each resource provider's rent revenue over time."""
        title = "Client surplus and resource providers' revenue"
        fig = go.Figure(layout={"template": "plotly_white", "height": 280, "title": title})
        t = [row[0] for row in self.market]
        keys = dict.fromkeys(k for _, row in self.market for k in row)
        for key in [k for k in keys if k == "surplus" or k.startswith("rent:")]:
            label = "client surplus" if key == "surplus" else key.removeprefix("rent:") + " revenue"
            fig.add_scatter(x=t, y=[row.get(key) for _, row in self.market], name=label)
        fig.update_layout(xaxis_title="time (h)", yaxis_title="florins")
        return fig


def markup_options(model: GridMarket) -> list[dict[str, str]]:
    """The providers whose markup can be set (those pricing other than by utility)."""
    snap = model.snapshot(jobs=False)
    return [
        {"label": v.name, "value": v.name}
        for v in snap.providers
        if v.metrics.get("markup") == v.metrics.get("markup")
    ]  # fmt: skip  (not NaN)


def create_app(scenario_path: str | Path = DEFAULT, hours: float = 1.0):
    """The app: one run of the scenario's first variant, advancing ``hours`` per tick."""
    from dash import Dash, Input, Output, State, dcc, html

    scenario = load(scenario_path).expand()[0][1]
    model = GridMarket(scenario)
    recorder = MarketRecorder()
    recorder.record(model.snapshot(jobs=False))
    options = markup_options(model)
    app = Dash(__name__, title="gridmarket market")
    app.layout = html.Div(
        [
            html.H2(f"Market: {scenario.name}"),
            html.Div(id="market-clock"),
            html.Div(
                [
                    dcc.Dropdown(
                        id="market-provider",
                        options=options,
                        value=options[0]["value"] if options else None,
                        style={"width": "12em", "display": "inline-block"},
                    ),
                    dcc.Input(id="market-markup", type="number", min=0, step=0.05, value=0.3),
                    html.Button("Set markup", id="market-set"),
                    html.Span(id="market-message"),
                ]
            ),
            *[dcc.Graph(id=f"market-{metric}") for metric, _, _ in PROVIDER_CHARTS],
            dcc.Graph(id="market-welfare"),
            dcc.Interval(id="market-tick", interval=1000),
        ]
    )

    @app.callback(
        Output("market-message", "children"),
        Input("market-set", "n_clicks"),
        State("market-provider", "value"),
        State("market-markup", "value"),
        prevent_initial_call=True,
    )
    def set_markup(_, provider, markup):
        try:
            model.set_markup(provider, float(markup))
        except (TypeError, ValueError) as exc:
            return f" {exc}"
        return f" {provider}: markup {float(markup):g} from t = {model.time:,.1f} h"

    @app.callback(
        Output("market-clock", "children"),
        *[Output(f"market-{metric}", "figure") for metric, _, _ in PROVIDER_CHARTS],
        Output("market-welfare", "figure"),
        Input("market-tick", "n_intervals"),
    )
    def tick(_):
        if model.running:
            model.run_until(model.time + hours)
            recorder.record(model.snapshot(jobs=False))
        state = "running" if model.running else "finished"
        figures = [recorder.provider_figure(*chart) for chart in PROVIDER_CHARTS]
        return f"t = {model.time:,.1f} h ({state})", *figures, recorder.market_figure()

    app.gridmarket_model = model  # for tests and tools
    return app


def main(argv: list[str] | None = None) -> int:
    parser = page_parser("python -m dashboards.market_view", __doc__, DEFAULT, 8052)
    parser.add_argument("--hours", type=float, default=1.0, help="simulated hours per tick")
    return serve_page(parser, argv, lambda args: create_app(args.scenario, args.hours), ("hours",))


if __name__ == "__main__":
    sys.exit(main())
