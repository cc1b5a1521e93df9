"""A page of the dashboard app (Dash pages: one server, one URL per page) and the state the
pages share: the scenario catalog, the operator's scenario and ``--set`` overrides, and each
page's sessions by browser tab.

Every page has its own default scenario, what it can show (``suits``: why not, or None) and the
kind of session it runs (:class:`~dashboards.session.Session` or a subclass recording what its
charts draw). ``gridmarket dashboard --scenario S --set K=V`` starts the live page and every
page that can show S with it, and applies the overrides wherever S runs. The page layouts are
built per request from the app's :class:`DashboardState` (``flask.current_app``), so that two
apps in one process (tests) each serve their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from dashboards import served_scenarios
from dashboards.run_limits import JobBudget
from dashboards.scenario_picker import Suits, options_of
from dashboards.session import Session
from dashboards.setup import Setup, default_policies
from dashboards.tab_sessions import TabSessions
from market.inputs.scenario import Scenario, ScenarioError
from market.inputs.scenario_files import ScenarioFileError, resolve, shipped_dir

SCENARIOS = shipped_dir() or Path("scenarios")  # installed or in the checkout
STATE_KEY = "gridmarket"  # where the app's DashboardState lives: app.server.extensions[...]


@dataclass(frozen=True)
class Page:
    """One page: its URL, its name in the navigation bar, its default scenario (with the
    page's own overrides, e.g. a finer sample interval), which scenarios it shows, how it
    builds its layout and registers its callbacks, and the sessions it runs."""

    key: str
    path: str
    name: str
    default: Path
    layout: Callable[[DashboardState], Any]
    register: Callable[[Any, DashboardState], None]
    defaults: dict[str, Any] = field(default_factory=dict)
    suits: Suits | None = None
    factory: Callable[[str, Setup | None], Session] = Session
    policies: Callable[[Scenario], tuple[str, ...]] = default_policies
    speed: float = 2.0  # simulated hours per wall-clock second a new tab starts with

    def new_session(
        self, sid: str, setup: Setup | None, budget: JobBudget | None = None
    ) -> Session:
        """A session of this page for tab ``sid`` (idle if ``setup`` is None), holding its jobs
        within the server's ``budget``."""
        session = self.factory(sid, None)
        session.speed = self.speed
        session.jobs_budget = budget
        if setup is not None:
            session.reset(setup)
        return session


class DashboardState:
    """What the pages of one app share (see the module docstring)."""

    def __init__(
        self,
        pages: tuple[Page, ...],
        scenario: str | Path | None = None,
        overrides: dict[str, Any] | None = None,
        scenarios_dir: str | Path | None = None,
        page_scenarios: dict[str, str | Path] | None = None,
    ) -> None:
        self.pages = {page.key: page for page in pages}
        self.operator = _real(scenario) if scenario else None
        self.overrides = dict(overrides or {})
        for path in filter(None, [self.operator, *(page_scenarios or {}).values()]):
            served_scenarios.allow(_real(path))  # the operator's choice; browsers get folders
        if scenarios_dir:
            served_scenarios.allow(scenarios_dir)
        roots = [Path(scenarios_dir).expanduser().resolve()] if scenarios_dir else None
        self.catalog = served_scenarios.catalog(roots)
        operator = served_scenarios.load_scenario(self.operator) if self.operator else None
        if operator is not None and self.overrides:
            operator.with_overrides(self.overrides)  # a bad --set: one line, before serving
        self.defaults: dict[str, str] = {}
        for page in pages:
            given = (page_scenarios or {}).get(page.key)
            if given:
                self.defaults[page.key] = _real(given)
            elif operator is not None and (page.suits is None or page.suits(operator) is None):
                self.defaults[page.key] = self.operator
            else:
                self.defaults[page.key] = str(page.default)
        self.budget = JobBudget()
        self.sessions = {
            page.key: TabSessions(
                lambda key=page.key: self.default_setup(key),
                factory=partial(page.new_session, budget=self.budget),
            )
            for page in pages
        }
        self.budget.registries = list(self.sessions.values())
        self._options = {page.key: self._page_options(page) for page in pages}

    def overrides_for(self, key: str, path: str | None) -> dict[str, Any]:
        """The overrides every run of scenario ``path`` gets on page ``key``: the page's own,
        then the operator's ``--set`` where ``path`` is the operator's scenario."""
        page = self.pages[key]
        mine = self.overrides if path and path == self.operator else {}
        return {**page.defaults, **mine}

    def default_setup(self, key: str, path: str | None = None) -> Setup:
        """What a new tab of page ``key`` runs, or what it runs when ``path`` is chosen."""
        path = path or self.defaults[key]
        scenario = served_scenarios.load_scenario(path)
        overrides = tuple(self.overrides_for(key, path).items())
        return Setup(path, self.pages[key].policies(scenario), overrides=overrides)

    def options(self, key: str, extra: str | None = None) -> list[dict[str, str]]:
        """The scenario list of page ``key`` (the files it can show, and ``extra``)."""
        options = list(self._options[key])
        if extra and all(o["value"] != extra for o in options):
            options += options_of([], extra)
        return options

    def _page_options(self, page: Page) -> list[dict[str, str]]:
        catalog = self.catalog
        if page.suits is not None:
            catalog = [(label, path) for label, path in catalog if _suits(page, path)]
        options = options_of(catalog)
        for path in dict.fromkeys([self.defaults[page.key], self.operator or ""]):
            new = path and all(o["value"] != path for o in options)
            if new and (page.suits is None or _suits(page, path)):
                options += options_of([], path)
        return options


def _suits(page: Page, path: str) -> bool:
    try:
        return page.suits(served_scenarios.load_scenario(path)) is None
    except ScenarioError:
        return False


def _real(path: str | Path) -> str:
    try:
        return str(resolve(path).resolve())
    except ScenarioFileError as exc:
        raise ScenarioError(str(exc)) from None


def current_state() -> DashboardState:
    """The state of the app serving this request."""
    import flask

    return flask.current_app.extensions[STATE_KEY]
