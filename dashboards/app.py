"""The dashboard app: one Dash server, one page per view (Dash pages), each browser tab with its
own runs on every page. ``gridmarket dashboard`` (or ``python -m dashboards``) serves it
(:func:`serve`); :func:`create_app` builds it for tests and WSGI servers. The pages
(:data:`PAGES`): ``/`` the live run, ``/market`` the competing market, ``/vqops``, ``/libra`` and
``/varq``. The navigation bar and the tab's session id are shared by every page; what the pages
share on the server is a :class:`~dashboards.page.DashboardState`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dash
from dash import Dash, Input, Output, State, dcc, html

from dashboards import libra, live_page, market_view, varq, vqops
from dashboards.callbacks import Callbacks
from dashboards.client_scripts import SID_JS
from dashboards.page import SCENARIOS, STATE_KEY, DashboardState, Page, current_state
from dashboards.tab_sessions import TabSessions

DEFAULT_SCENARIO = SCENARIOS / "profit" / "default.yaml"
MAX_REQUEST_BYTES = 16 * 1024 * 1024  # an HTTP request (an upload is at most 1 MiB)


def _live_register(app: Dash, state: DashboardState) -> None:
    callbacks = Callbacks(
        state.sessions["live"], state.catalog, lambda path: state.overrides_for("live", path)
    )
    callbacks.register(app)
    app.gridmarket_callbacks = callbacks  # for tests and tools


LIVE = Page(
    key="live",
    path="/",
    name="Live run",
    default=DEFAULT_SCENARIO,
    layout=lambda state: live_page.layout(state.options("live")),
    register=_live_register,
)
PAGES: tuple[Page, ...] = (LIVE, market_view.PAGE, vqops.PAGE, libra.PAGE, varq.PAGE)


def shell(pages: tuple[Page, ...]) -> html.Div:
    """What every page shares: the navigation bar, the tab's session id, and the page."""
    links = [dcc.Link(page.name, href=page.path, className="nav-link") for page in pages]
    return html.Div(
        [
            dcc.Store(id="sid", storage_type="session"),
            html.Header([html.H1("gridmarket"), html.Nav(links, className="nav")], className="top"),
            dash.page_container,
        ],
        className="page",
    )


def _page_layout(key: str):
    """The layout function Dash pages call per request: the page of the serving app."""

    def layout(**_query: Any) -> html.Div:
        state = current_state()
        return state.pages[key].layout(state)

    layout.__name__ = f"{key}_layout"
    return layout


def create_app(
    scenario_path: str | Path | None = None,
    *,
    overrides: dict[str, Any] | None = None,
    scenarios_dir: str | Path | None = None,
    registry: TabSessions | None = None,
    page_scenarios: dict[str, str | Path] | None = None,
) -> Dash:
    """The app. ``scenario_path`` (default: the profit paper's default scenario) starts the
    live page and every page that can show it, with ``overrides`` (``--set``);
    ``page_scenarios`` gives a page its own start (tests, tools). A bad scenario file or
    override raises a one-line :class:`~market.inputs.scenario.ScenarioError` here, before
    anything is served. ``registry`` replaces the live page's sessions (tests)."""
    state = DashboardState(
        PAGES,
        scenario_path or DEFAULT_SCENARIO,
        overrides,
        scenarios_dir,
        page_scenarios,
    )
    if registry is not None:
        state.sessions["live"] = registry
        state.budget.registries = list(state.sessions.values())
    app = Dash(
        __name__,
        title="gridmarket dashboard",
        assets_folder=str(Path(__file__).with_name("assets")),
        use_pages=True,
        pages_folder="",
        suppress_callback_exceptions=True,  # each page's components exist only on that page
    )
    app.server.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    app.server.extensions[STATE_KEY] = state
    for order, page in enumerate(PAGES):
        dash.register_page(
            f"dashboards.pages.{page.key}",
            path=page.path,
            name=page.name,
            title=f"gridmarket · {page.name}",
            order=order,
            layout=_page_layout(page.key),
        )
    app.layout = shell(PAGES)
    app.clientside_callback(
        SID_JS, Output("sid", "data"), Input("sid", "modified_timestamp"), State("sid", "data")
    )
    for page in PAGES:
        page.register(app, state)
    app.gridmarket_state = state  # for tests and tools
    app.gridmarket_registry = state.sessions["live"]
    return app


def serve(
    host: str = "127.0.0.1",
    port: int = 8050,
    scenario_path: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> None:
    """Serve the dashboard at http://host:port/ until interrupted (loopback unless told)."""
    app = create_app(scenario_path, overrides=overrides)
    print(f"gridmarket dashboard: http://{host}:{port}/ (Ctrl-C stops it)", flush=True)
    app.run(host=host, port=port, debug=False)


__all__ = ["DEFAULT_SCENARIO", "PAGES", "create_app", "serve"]
