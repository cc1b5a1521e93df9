"""The competing-market page (``/market``): a market of several service providers (default
``scenarios/market/competition.yaml``, as written) drawn live per provider: its market share (of
the jobs placed so far), the mean price of the quotes it won, its profit and its markup; and the
clients' total surplus with each resource provider's rent revenue.

A provider's markup can be changed while the run goes on (:meth:`GridMarket.set_markup`), and
the shares move from then on. Everything is read from the model's public snapshot
(:mod:`market.sim.snapshot`) at the session's samples: the providers' metrics per line
(:class:`~dashboards.paper_session.ViewSession`'s ``extra``), the market's per run
(:class:`MarketSession`).
"""

from __future__ import annotations

import math
from array import array
from typing import Any

from dashboards.figures import colour_of, empty_note, figure, sample_times, series
from dashboards.page import SCENARIOS
from dashboards.paper_session import ViewSession
from dashboards.setup import Setup
from dashboards.view_page import view_page

DEFAULT = SCENARIOS / "market" / "competition.yaml"

#: What the provider charts show: (snapshot metric, chart title, axis title).
PROVIDER_CHARTS = (
    ("market_share_pct", "Market share", "% of jobs placed"),
    ("mean_price", "Mean price of the quotes won", "florins"),
    ("profit", "Profit", "florins"),
    ("markup", "Markup", "markup"),
)
EXTRA = ("market_share_pct", "mean_price", "markup")
GRAPHS = tuple(f"market-{metric}-graph" for metric, _, _ in PROVIDER_CHARTS)


class MarketSession(ViewSession):
    """A view session that also records, per run and sample, the market's totals: the clients'
    surplus and each resource provider's rent revenue (``rent:<name>``)."""

    def __init__(self, sid: str, setup: Setup | None) -> None:
        self.market: dict[int, dict[str, array]] = {}
        super().__init__(sid, setup, extra=EXTRA)

    def reset(self, setup: Setup) -> None:
        old, self.market = self.market, {}
        try:
            super().reset(setup)
        except Exception:
            self.market = old
            raise

    def on_sample(self, runs: list[int]) -> None:
        super().on_sample(runs)
        for i in runs:
            snap = self.runs[i].model.snapshot(jobs=False)
            record = self.market.setdefault(i, {"t": array("d")})
            record["t"].append(float(snap.time))
            for key, value in (snap.market or {}).items():
                if key == "surplus" or key.startswith("rent:"):
                    values = record.setdefault(key, array("d", [math.nan] * (len(record["t"]) - 1)))
                    values.append(float(value))

    def on_thin(self) -> None:
        super().on_thin()
        for record in self.market.values():
            for key in record:
                record[key] = record[key][::2]

    def providers(self) -> list[str]:
        """The providers whose markup can be set (those pricing other than by utility)."""
        return list(
            dict.fromkeys(
                line.provider
                for line in self.lines
                if line.values.get("markup") and math.isfinite(line.values["markup"][-1])
            )
        )

    def set_markup(self, provider: Any, markup: Any) -> str:
        """Set ``provider``'s markup in every run that has it; a one-line message."""
        if provider not in self.providers():
            return "Choose a provider that prices by a markup."
        try:
            value = float(markup)
        except (TypeError, ValueError):
            return "markup: enter a number"
        if not math.isfinite(value) or value < 0:
            return "markup: must be a number >= 0"
        for run in self.runs:
            if provider in run.model.service_providers:
                run.model.set_markup(provider, value)
        self.version += 1
        return f"{provider}: markup {value:g} from t = {self.now:,.1f} h"


def provider_figure(session: MarketSession, metric: str, title: str, axis: str) -> dict[str, Any]:
    """``metric`` of every service provider over time."""
    fig = figure(title, height=280)
    times, stride = sample_times(session.lines)
    for k, (line, t) in enumerate(zip(session.lines, times, strict=True)):
        values = line.values.get(metric)
        if values is not None:
            fig["data"].append(series(line.label, t, values[::stride], line_colour=colour_of(k)))
    fig["layout"]["yaxis"]["title"] = {"text": axis}
    return fig


def welfare_figure(session: MarketSession) -> dict[str, Any]:
    """The clients' surplus and each resource provider's rent revenue over time."""
    fig = figure("Client surplus and resource providers' revenue", height=280)
    for i, record in sorted(session.market.items()):
        run = session.runs[i].label
        for k, key in enumerate(key for key in record if key != "t"):
            name = "client surplus" if key == "surplus" else f"{key.removeprefix('rent:')} revenue"
            name = name if len(session.runs) == 1 else f"{run} · {name}"
            colour = colour_of(len(session.lines) + k)  # (not a provider's)
            fig["data"].append(series(name, record["t"], record[key], line_colour=colour))
    fig["layout"]["yaxis"]["title"] = {"text": "florins"}
    return fig


def draw(session: MarketSession) -> tuple[Any, ...]:
    """The provider chooser's options and the five figures."""
    if not session.lines:
        return [], *(empty_note(figure(""), "nothing to show") for _ in range(5))
    options = [{"label": name, "value": name} for name in session.providers()]
    charts = [provider_figure(session, *chart) for chart in PROVIDER_CHARTS]
    return (options, *charts, welfare_figure(session))


def suits(scenario) -> str | None:
    """Why this page cannot show ``scenario`` (None: it can)."""
    sps = scenario.service_providers
    if len(sps) > 1 or any(sp.pricing is not None and sp.pricing.name != "utility" for sp in sps):
        return None
    return "not a market of several or pricing service providers: open it on the live page"


def act(session: MarketSession, trigger: str, provider: Any, markup: Any) -> str:
    return session.set_markup(provider, markup)


def _tools() -> list:
    from dash import dcc, html

    return [
        html.Span(
            [
                dcc.Dropdown(
                    id="market-provider",
                    options=[],
                    placeholder="provider",
                    className="speed",
                    style={"width": "9em"},
                ),
                # no min or step: the browser sends a value outside them (-1, 0.33) as empty,
                # and set_markup would say "enter a number" to a number
                dcc.Input(
                    id="market-markup",
                    type="number",
                    value=0.3,
                    className="until",
                ),
                html.Button("Set markup", id="market-set", n_clicks=0, className="btn"),
            ],
            className="group",
        )
    ]


def _body() -> list:
    from dash import dcc

    return [*(dcc.Graph(id=g) for g in GRAPHS), dcc.Graph(id="market-welfare-graph")]


VIEW = view_page(
    dict(
        key="market",
        path="/market",
        name="Competing market",
        default=DEFAULT,
        suits=suits,
        factory=MarketSession,
    ),
    title="Competing market: shares, prices, profits, markups and welfare",
    body=_body,
    outputs=(
        ("market-provider", "options"),
        *((g, "figure") for g in GRAPHS),
        ("market-welfare-graph", "figure"),
    ),
    draw=draw,
    actions=("market-set",),
    action_states=(("market-provider", "value"), ("market-markup", "value")),
    act=act,
    tools=_tools,
)
PAGE = VIEW.page
