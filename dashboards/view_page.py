"""The frame of the view pages (market, VQoPS/DVQoPS, Libra, VARQ): the live page's controls (a
scenario chooser, the policies and the seed, start, pause, reset, speed) around the page's own
charts, one session per browser tab. A :class:`ViewPage` gives its charts (``body``, the
``outputs`` they fill, ``draw(session, ...)``), inputs that only redraw (Libra's node) and
actions on the run (the market's markup). Callbacks, prefixed by the page's key: ``choose``
(page load, Load, upload), ``control`` (a new scenario resets the tab at once), ``fields`` (the
policies and seed shown) and ``update`` (advance within the budget, redraw if changed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dash import ALL, Input, Output, State, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from dashboards.client_scripts import GATE_JS
from dashboards.page import DashboardState, Page
from dashboards.safe_callbacks import guarded, tab_session
from dashboards.scenario_picker import check, ids, picked, picker
from dashboards.session import Session
from dashboards.setup import Setup, SetupError, policy_options
from market.inputs.scenario import ScenarioError

logger = logging.getLogger(__name__)

SPEEDS = (1, 2, 6, 12, 24, 48, 96, 192, 480)  # simulated hours per wall-clock second
INTERVAL = 1.0  # seconds between ticks: whole figures are redrawn
NO_SEED = "seed: enter a whole number, 0 or more"


@dataclass(frozen=True)
class ViewPage:
    """A view page's own parts (see the module docstring)."""

    page: Page
    title: str
    body: Callable[[], list]
    outputs: tuple[tuple[str, str], ...]
    draw: Callable[..., tuple]
    redraw: tuple[str, ...] = ()
    actions: tuple[str, ...] = ()
    action_states: tuple[tuple[str, str], ...] = ()
    act: Callable[..., str] | None = None
    tools: Callable[[], list] = field(default=lambda: [])

    @property
    def prefix(self) -> str:
        return f"{self.page.key}-"


def view_page(page: dict[str, Any], **parts: Any) -> ViewPage:
    """A view page of ``parts`` (see :class:`ViewPage`) on a :class:`Page` of ``page``'s fields
    whose layout and callbacks are this module's :func:`layout` and :func:`register`."""
    made: list[ViewPage] = []  # (the page's functions need the view, made after the page)
    frame = Page(
        layout=lambda state: layout(made[0], state),
        register=lambda app, state: register(made[0], app, state),
        **page,
    )
    made.append(ViewPage(page=frame, **parts))
    return made[0]


def _button(label: str, id: str, kind: str = "") -> html.Button:
    return html.Button(label, id=id, n_clicks=0, className=f"btn {kind}".strip())


def layout(view: ViewPage, state: DashboardState) -> html.Div:
    """The page: set-up panel (chooser, policies, seed) | controls, message and charts."""
    p = view.prefix
    speeds = sorted({*SPEEDS, view.page.speed})
    controls = html.Div(
        [
            _button("▶ Start", f"{p}start", "primary"),
            _button("❚❚ Pause", f"{p}pause"),
            _button("Reset", f"{p}reset", "danger"),
            html.Span(
                [
                    html.Label("Speed", className="inline-label"),
                    dcc.Dropdown(
                        id=f"{p}speed",
                        clearable=False,
                        value=view.page.speed,
                        className="speed",
                        options=[{"label": f"{s:g} h/s", "value": s} for s in speeds],
                    ),
                ],
                className="group",
            ),
            *view.tools(),
            html.Span(id=f"{p}msg", className="control-msg"),
        ],
        className="controls",
    )
    panel = html.Aside(
        [
            html.H2("Set-up"),
            *picker(p, state.options(view.page.key)),
            html.Div(id=f"{p}setup-fields"),
            html.P("Policies and seed apply on Reset; a new scenario at once.", className="note"),
        ],
        className="panel setup",
    )
    return html.Div(
        [
            dcc.Store(id=f"{p}pulse", storage_type="memory"),
            dcc.Store(id=f"{p}ack", storage_type="memory"),
            dcc.Store(id=f"{p}cursor", storage_type="memory"),
            dcc.Store(id=f"{p}nudge", storage_type="memory", data=0),
            dcc.Store(id=f"{p}fields-rev", storage_type="memory", data=0),
            dcc.Interval(id=f"{p}interval", interval=int(INTERVAL * 1000)),
            html.Div(
                [html.H2(view.title), html.Div(id=f"{p}clock", className="status")],
                className="page-head",
            ),
            html.Div(
                [panel, html.Main([controls, *view.body()], className="main")], className="body"
            ),
        ],
        className="view",
    )


def setup_fields(view: ViewPage, state: DashboardState, path: str, session: Session) -> list:
    """The policies (the scenario's variants, or itself as written) and the seed: the tab's
    if ``path`` is what it runs, else the page's default set-up of ``path``."""
    scenario = check(path, view.page.suits)
    mine = session.setup if session.setup and session.setup.scenario == path else None
    setup = mine or state.default_setup(view.page.key, path)
    seed = dict(setup.overrides).get("seed", scenario.seed)
    options = list(policy_options(scenario))
    return [
        html.Label("Policies", className="field-label"),
        dcc.Checklist(
            id=field_id(view, "policies"),
            options=options,
            value=list(setup.policies),
            className="checklist",
        ),
        html.Label("Seed", className="field-label"),
        # no min or step: the browser sends a value outside them as empty, and the server
        # says what is wrong with the value itself
        dcc.Input(id=field_id(view, "seed"), type="number", value=seed, className="field-input"),
    ]


def field_id(view: ViewPage, name: str) -> dict[str, str]:
    """The id of a set-up field: pattern-matching, as the fields come and go with the
    scenario (a callback reads them with ``ALL``: none is no error)."""
    return {"type": "view-field", "page": view.page.key, "name": name}


def _named_fields(ids: Any, values: Any) -> dict[str, Any]:
    return {
        i["name"]: v
        for i, v in zip(ids or [], values or [], strict=False)
        if isinstance(i, dict) and isinstance(i.get("name"), str)
    }


def clock(session: Session) -> list:
    status = session.status()
    parts = [
        html.Span(f"t = {status['time']:,.1f} h", className="sim-time"),
        html.Span(status["state"], className="run-state"),
    ]
    if status["behind"]:
        parts.append(html.Span("(the simulation is slower than this speed)", className="note"))
    if status["message"]:
        parts.append(html.Span(status["message"], className="warn"))
    return parts


def reset_to(view: ViewPage, state: DashboardState, session: Session, setup: Setup) -> str:
    """Reset ``session`` to ``setup``; a one-line message if it cannot (the run goes on)."""
    try:
        session.reset(setup)
    except (SetupError, ScenarioError) as exc:
        return f"Not reset: {exc}"
    return ""


def panel_setup(view, state, session, path, policies, seed) -> Setup:
    """The set-up the panel describes: its policies, and its seed over the page's overrides."""
    base = state.default_setup(view.page.key, path)
    overrides = dict(base.overrides)
    if seed is not None and seed != "":
        overrides["seed"] = seed
    if isinstance(policies, list) and all(isinstance(p, str) for p in policies):
        chosen = tuple(policies)
    else:
        chosen = base.policies
    return Setup(path, chosen, overrides=tuple(overrides.items()))


def control(view, state, trigger, sid, speed, path, policies, seed, nudge, *action_args):
    """Apply a control; returns (nudge, message, fields revision or no_update)."""
    if trigger is None:
        raise PreventUpdate
    name = trigger.removeprefix(view.prefix) if isinstance(trigger, str) else None
    if name == "reset" and isinstance(seed, str) and not seed.strip():
        return no_update, f"Not reset: {NO_SEED}", no_update
    with tab_session(state.sessions[view.page.key], sid) as session:
        if name in ("reset", "scenario"):
            try:
                setup = _new_setup(view, state, session, name, path, policies, seed)
            except ScenarioError as exc:
                return no_update, f"Not loaded: {exc}", no_update
            message = reset_to(view, state, session, setup)
            return (nudge or 0) + 1, message, (nudge or 0) + 1
        message = ""
        if name == "speed":
            session.set_speed(speed)
        elif name == "start":
            message = start(session)
        elif name == "pause":
            session.pause()
        elif trigger in view.actions and view.act is not None:
            message = view.act(session, trigger, *action_args)
        else:
            raise PreventUpdate
    return (nudge or 0) + 1, message, no_update


def start(session: Session) -> str:
    """Play; the message if there is nothing to play."""
    session.play()
    if session.setup is None:
        return "Nothing to run: choose a scenario the dashboard can run."
    if session.finished:
        return "The run has finished: Reset to run it again."
    return ""


def _new_setup(view, state, session, name, path, policies, seed) -> Setup:
    """What Reset (the panel's policies and seed) or a newly chosen scenario (its default
    set-up on this page) resets the tab to; PreventUpdate if nothing is new."""
    current = session.setup.scenario if session.setup else None
    if name == "reset":
        if not (path or current):
            raise PreventUpdate
        return panel_setup(view, state, session, path or current, policies, seed)
    if not isinstance(path, str) or path == current:
        raise PreventUpdate  # (the page load setting the list to the tab's own)
    check(path, view.page.suits)
    return state.default_setup(view.page.key, path)


def register(view: ViewPage, app, state: DashboardState) -> None:
    """Attach the page's callbacks to ``app`` (see the module docstring)."""
    p, key = view.prefix, view.page.key
    sessions = state.sessions[key]
    i = ids(p)
    app.clientside_callback(
        GATE_JS,
        Output(f"{p}pulse", "data"),
        Input(f"{p}interval", "n_intervals"),
        State(f"{p}pulse", "data"),
        State(f"{p}ack", "data"),
    )

    @app.callback(
        Output(i["scenario"], "options"),
        Output(i["scenario"], "value"),
        Output(i["path-msg"], "children"),
        Output(f"{p}speed", "value"),
        Input("sid", "data"),
        Input(i["load-path"], "n_clicks"),
        Input(i["scenario-path"], "n_submit"),  # (Enter in the box: as Load)
        Input(i["scenario-upload"], "contents"),
        State(i["scenario-path"], "value"),
        State(i["scenario-upload"], "filename"),
    )
    @guarded(4, 2)
    def _choose(sid, _clicks, _n_submit, upload, path, filename):
        trigger = i["load-path"] if ctx.triggered_id == i["scenario-path"] else ctx.triggered_id
        if trigger in (i["load-path"], i["scenario-upload"]):
            try:
                value = picked(trigger == i["load-path"], path, upload, filename, view.page.suits)
            except ScenarioError as exc:
                return no_update, no_update, str(exc), no_update
            return state.options(key, value), value, "", no_update
        with tab_session(sessions, sid) as session:
            current = session.setup.scenario if session.setup else state.defaults[key]
            return state.options(key, current), current, "", session.speed

    @app.callback(
        Output(f"{p}setup-fields", "children"),
        Output(i["scenario-msg"], "children"),
        Input(i["scenario"], "value"),
        Input(f"{p}fields-rev", "data"),
        State("sid", "data"),
    )
    @guarded(2, 1)
    def _fields(path, _rev, sid):
        if not path:
            raise PreventUpdate
        with tab_session(sessions, sid) as session:
            try:
                return setup_fields(view, state, path, session), ""
            except ScenarioError as exc:
                return [], str(exc)

    @app.callback(
        Output(f"{p}nudge", "data"),
        Output(f"{p}msg", "children"),
        Output(f"{p}fields-rev", "data"),
        Input(f"{p}start", "n_clicks"),
        Input(f"{p}pause", "n_clicks"),
        Input(f"{p}reset", "n_clicks"),
        Input(f"{p}speed", "value"),
        Input(i["scenario"], "value"),
        *(Input(action, "n_clicks") for action in view.actions),
        State("sid", "data"),
        State(field_id(view, ALL), "value"),
        State(field_id(view, ALL), "id"),
        State(f"{p}nudge", "data"),
        *(State(id, prop) for id, prop in view.action_states),
        prevent_initial_call=True,
    )
    @guarded(3, 1)
    def _control(_start, _pause, _reset, speed, path, *rest):
        sid, values, field_ids, nudge, *action_args = rest[len(view.actions) :]
        fields = _named_fields(field_ids, values)
        policies, seed = fields.get("policies"), fields.get("seed")
        if "seed" in fields and seed is None:  # (empty, or not a number the browser can read)
            seed = ""
        return control(
            view, state, ctx.triggered_id, sid, speed, path, policies, seed, nudge, *action_args
        )

    @app.callback(
        Output(f"{p}clock", "children"),
        Output(f"{p}ack", "data"),
        Output(f"{p}cursor", "data"),
        *(Output(id, prop) for id, prop in view.outputs),
        Input(f"{p}pulse", "data"),
        Input(f"{p}nudge", "data"),
        Input("sid", "data"),
        *(Input(id, "value") for id in view.redraw),
        State(f"{p}cursor", "data"),
    )
    @guarded(3 + len(view.outputs), 0)
    def _update(pulse, _nudge, sid, *rest):
        *values, cursor = rest
        ack = pulse.get("n") if isinstance(pulse, dict) else None
        with tab_session(sessions, sid) as session:
            if ctx.triggered_id == f"{p}pulse":
                session.update()
            mark = {"sid": sid, "generation": session.generation, "version": session.version}
            same = cursor == mark and ctx.triggered_id not in view.redraw
            if same:
                return (no_update, ack, no_update, *([no_update] * len(view.outputs)))
            return (clock(session), ack, mark, *view.draw(session, *values))
