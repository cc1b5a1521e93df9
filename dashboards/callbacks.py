"""The live page's callbacks: plain methods of :class:`Callbacks` (tests call them directly),
wired by :meth:`Callbacks.register`. An interval tick, gated in the browser until the previous
update is answered (:mod:`dashboards.client_scripts`), asks :meth:`Callbacks.update` to advance
the tab's runs within the session's budget and send what the browser lacks
(:mod:`dashboards.live_update`); a control acts on the session and bumps ``nudge``, so that a
step or reset shows at once; choosing another scenario resets the tab to it at once. Every
callback answers: an unexpected error is one line in the page, never an HTTP 500.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from dash import ALL, MATCH, Input, Output, State, ctx, dcc, no_update
from dash.exceptions import PreventUpdate

from dashboards import live_update
from dashboards.client_scripts import GATE_JS
from dashboards.live_page import view_note
from dashboards.safe_callbacks import guarded, tab_session
from dashboards.scenario_picker import check, options_of, picked
from dashboards.session import Session
from dashboards.setup import Setup, SetupError
from dashboards.setup_panel import check_field, check_policies, setup_fields, setup_from_fields
from dashboards.tab_sessions import TabSessions
from dashboards.views import GRAPHS
from market.inputs.scenario import ScenarioError

logger = logging.getLogger(__name__)

CONTROLS = ("start", "pause", "step", "run-until", "reset")
PARTS = live_update.PARTS
OUTPUT_KEYS = (
    *(f"{graph}-{part}" for graph in GRAPHS for part in PARTS),
    *live_update.PANELS,
    "cursor",
    "ack",
)


def _nothing_to_play(session: Session) -> str:
    """Why Start or Run until does nothing, if it does nothing."""
    if session.setup is None:
        return "Nothing to run: choose a scenario the dashboard can run."
    if session.finished:
        return "The run has finished: Reset to run it again."
    return ""


class Callbacks:
    """The callbacks of the live page, over its sessions by tab and its scenario catalog;
    ``overrides(path)`` are the operator's ``--set`` for the scenario at ``path``."""

    def __init__(
        self,
        sessions: TabSessions,
        catalog: list[tuple[str, str]],
        overrides: Callable[[str], dict[str, Any]] = lambda path: {},
    ) -> None:
        self.sessions = sessions
        self.catalog = catalog
        self.overrides = overrides

    @property
    def registry(self) -> TabSessions:  # (the name tests and tools know)
        return self.sessions

    @contextmanager
    def _session(self, sid: Any) -> Iterator[Session]:
        """The tab's session, locked; no update at all for a missing or malformed id."""
        with tab_session(self.sessions, sid) as session:
            yield session

    # -- scenario and set-up ----------------------------------------------------------------
    def _options(self, extra: str | None = None) -> list[dict[str, str]]:
        return options_of(self.catalog, extra)

    def choose_scenario(
        self,
        trigger: Any,
        sid: str | None,
        n_clicks: int | None,
        path: Any,
        options,
        upload: Any = None,
        filename: Any = None,
    ) -> tuple[Any, Any, Any, Any]:
        """On page load, the tab's scenario and speed; on "Load", the file at ``path`` (a file
        of the scenario folders only); on an upload, the uploaded file (both checked by
        :func:`dashboards.scenario_picker.picked`). Returns (dropdown options, dropdown value,
        message under the path, speed); the new value resets the tab (:meth:`control`)."""
        if trigger in ("load-path", "scenario-upload"):
            try:
                value = picked(trigger == "load-path", path, upload, filename)
            except ScenarioError as exc:
                return no_update, no_update, str(exc), no_update
            merged = [o for o in options or self._options() if isinstance(o, dict)]
            if all(o.get("value") != value for o in merged):
                merged += options_of([], value)
            return merged, value, "", no_update
        with self._session(sid) as session:
            current = session.setup.scenario if session.setup else None
            speed = session.speed
        return self._options(current), current, "", speed

    def render_setup(self, scenario_path: Any, sid: str | None) -> tuple[Any, str]:
        """The set-up fields of the chosen scenario: the tab's current values if it is the
        scenario running, else the file's with the operator's ``--set`` (what Reset then runs).
        Returns (fields, message under the scenario)."""
        if not scenario_path or not isinstance(scenario_path, str):
            raise PreventUpdate
        try:
            scenario = check(scenario_path)
            if overrides := self.overrides(scenario_path):
                scenario = scenario.with_overrides(overrides)
        except ScenarioError as exc:
            return [], str(exc)
        with self._session(sid) as session:
            mine = session.setup is not None and session.setup.scenario == scenario_path
            setup = session.setup if mine else None
        return [*view_note(scenario), *setup_fields(scenario, setup)], ""

    check_policies = staticmethod(check_policies)
    setup_from_fields = staticmethod(setup_from_fields)

    def check_field(self, value: Any, field_id: Any, scenario_path: Any) -> str:
        """The message under a parameter field: why its value is invalid, or nothing."""
        overrides = self.overrides(scenario_path) if isinstance(scenario_path, str) else {}
        return check_field(value, field_id, scenario_path, overrides)

    # -- run controls -----------------------------------------------------------------------
    def control(
        self,
        trigger: Any,
        sid: str | None,
        speed: Any,
        until: Any,
        scenario_path: Any,
        setup_values: list[Any],
        setup_ids: list[dict[str, str]],
        param_values: list[Any],
        param_ids: list[dict[str, str]],
        nudge: int | None,
    ) -> tuple[int, str]:
        """Start, pause, step, run until T, reset (to the panel's set-up), change the speed,
        or reset to a newly chosen scenario (``trigger="scenario"``). Returns (the new nudge, a
        message for the controls bar)."""
        if trigger is None:
            raise PreventUpdate
        with self._session(sid) as session:
            try:
                message = self._apply(session, trigger, speed, until, scenario_path)
                if trigger == "reset":
                    setup = self.setup_from_fields(
                        scenario_path, setup_values, setup_ids, param_values, param_ids,
                        self.overrides(scenario_path) if isinstance(scenario_path, str) else {},
                    )  # fmt: skip
                    session.reset(setup)
            except SetupError as exc:
                message = f"Not reset: {exc}"
            except ScenarioError as exc:
                message = f"Not loaded: {exc}"
            except ValueError as exc:
                message = str(exc)
            except PreventUpdate:
                raise
            except Exception as exc:  # a model error stops the run, not the server
                message = _stopped(session, exc)
        return (nudge or 0) + 1, message

    def _apply(self, session: Session, trigger: Any, speed, until, scenario_path) -> str:
        """Every control but the panel's reset; the message for the controls bar."""
        if trigger == "speed":
            session.set_speed(speed)
        elif trigger == "start":
            session.play()
            return _nothing_to_play(session)
        elif trigger == "pause":
            session.pause()
        elif trigger == "step":
            if not session.step():
                return "Nothing more to step: the run has finished."
        elif trigger == "run-until":
            session.run_until(until if until is not None else float("nan"))
            return _nothing_to_play(session)
        elif trigger == "scenario":
            current = session.setup.scenario if session.setup else None
            if not isinstance(scenario_path, str) or scenario_path == current:
                raise PreventUpdate  # (the page load setting the list to the tab's own)
            session.reset(Setup.default(scenario_path, self.overrides(scenario_path)))
        elif trigger != "reset":
            raise PreventUpdate
        return ""

    # -- live views -------------------------------------------------------------------------
    def update(
        self, sid: str | None, cursor: dict[str, Any] | None, pulse: Any, advance: bool
    ) -> dict[str, Any]:
        """One update of a tab: advance its models if ``advance`` (an interval pulse), then what
        the browser lacks (:func:`dashboards.live_update.update`). Returns a dict of outputs
        (``no_update`` where nothing changed)."""
        ack = pulse.get("n") if isinstance(pulse, dict) else None
        with self._session(sid) as session:
            if advance:
                try:
                    session.update()
                except Exception as exc:  # a model error stops the run, not the server
                    _stopped(session, exc)
            return live_update.update(session, sid, cursor, ack)

    # -- export -----------------------------------------------------------------------------
    def export_timeseries(self, n_clicks: int | None, sid: str | None) -> dict[str, Any]:
        """The time series of every line, as CSV."""
        return self._export(n_clicks, sid, Session.timeseries_frame, "timeseries")

    def export_jobs(self, n_clicks: int | None, sid: str | None) -> dict[str, Any]:
        """The per-job table of every run, as CSV."""
        return self._export(n_clicks, sid, Session.jobs_frame, "jobs")

    def _export(self, n_clicks, sid, frame_of, what: str) -> dict[str, Any]:
        if not n_clicks:
            raise PreventUpdate
        with self._session(sid) as session:
            if not session.runs:
                raise PreventUpdate
            frame = frame_of(session)
            name = _slug(session.runs[0].model.spec.name)
        return dcc.send_data_frame(frame.to_csv, f"{name}-{what}.csv", index=False)

    # -- wiring -----------------------------------------------------------------------------
    def register(self, app) -> None:
        """Attach every callback to ``app`` (whose live page is
        :func:`dashboards.live_page.layout`)."""
        app.clientside_callback(
            GATE_JS,
            Output("pulse", "data"),
            Input("interval", "n_intervals"),
            State("pulse", "data"),
            State("ack", "data"),
        )

        @app.callback(
            Output("scenario", "options"),
            Output("scenario", "value"),
            Output("path-msg", "children"),
            Output("speed", "value"),
            Input("sid", "data"),
            Input("load-path", "n_clicks"),
            Input("scenario-path", "n_submit"),  # (Enter in the box: as Load)
            Input("scenario-upload", "contents"),
            State("scenario-path", "value"),
            State("scenario", "options"),
            State("scenario-upload", "filename"),
        )
        @guarded(4, 2)
        def _choose_scenario(sid, n_clicks, _n_submit, upload, path, options, filename):
            trigger = "load-path" if ctx.triggered_id == "scenario-path" else ctx.triggered_id
            return self.choose_scenario(trigger, sid, n_clicks, path, options, upload, filename)

        @app.callback(
            Output("setup-fields", "children"),
            Output("scenario-msg", "children"),
            Input("scenario", "value"),
            State("sid", "data"),
        )
        @guarded(2, 1)
        def _render_setup(scenario_path, sid):
            return self.render_setup(scenario_path, sid)

        @app.callback(
            Output({"type": "param-msg", "name": MATCH}, "children"),
            Input({"type": "param", "name": MATCH}, "value"),
            State({"type": "param", "name": MATCH}, "id"),
            State("scenario", "value"),
            prevent_initial_call=True,
        )
        @guarded(1, 0)
        def _check_field(value, field_id, scenario_path):
            return self.check_field(value, field_id, scenario_path)

        @app.callback(
            Output("policies-msg", "children"),
            Input({"type": "setup", "name": "policies"}, "value"),
            prevent_initial_call=True,
        )
        @guarded(1, 0)
        def _check_policies(ticked):
            return self.check_policies(ticked)

        @app.callback(
            Output("nudge", "data"),
            Output("control-msg", "children"),
            *[Input(name, "n_clicks") for name in CONTROLS],
            Input("speed", "value"),
            Input("scenario", "value"),
            State("sid", "data"),
            State("until", "value"),
            State({"type": "setup", "name": ALL}, "value"),
            State({"type": "setup", "name": ALL}, "id"),
            State({"type": "param", "name": ALL}, "value"),
            State({"type": "param", "name": ALL}, "id"),
            State("nudge", "data"),
            prevent_initial_call=True,
        )
        @guarded(2, 1)
        def _control(*args):
            n = len(CONTROLS)
            speed, scenario_path, sid, until, s_values, s_ids, p_values, p_ids, nudge = args[n:]
            return self.control(
                ctx.triggered_id,
                sid,
                speed,
                until,
                scenario_path,
                s_values,
                s_ids,
                p_values,
                p_ids,
                nudge,
            )

        outputs = []
        for graph in GRAPHS:
            outputs += [
                Output(f"{graph}-graph", "figure"),
                Output(f"{graph}-graph", "extendData"),
                Output(f"{graph}-graph", "style"),
            ]
        outputs += [
            Output("gantt-graph", "figure"),
            Output("monitors", "children"),
            Output("decisions", "children"),
            Output("status", "children"),
            Output("cursor", "data"),
            Output("ack", "data"),
        ]

        @app.callback(
            *outputs,
            Input("pulse", "data"),
            Input("nudge", "data"),
            Input("sid", "data"),
            State("cursor", "data"),
        )
        @guarded(len(OUTPUT_KEYS), OUTPUT_KEYS.index("status"))
        def _update(pulse, nudge, sid, cursor):
            out = self.update(sid, cursor, pulse, advance=ctx.triggered_id == "pulse")
            return tuple(out[key] for key in OUTPUT_KEYS)

        @app.callback(
            Output("download-timeseries", "data"),
            Input("export-timeseries", "n_clicks"),
            State("sid", "data"),
            prevent_initial_call=True,
        )
        @guarded(1, None)
        def _export_timeseries(n_clicks, sid):
            return self.export_timeseries(n_clicks, sid)

        @app.callback(
            Output("download-jobs", "data"),
            Input("export-jobs", "n_clicks"),
            State("sid", "data"),
            prevent_initial_call=True,
        )
        @guarded(1, None)
        def _export_jobs(n_clicks, sid):
            return self.export_jobs(n_clicks, sid)


def _stopped(session, exc: Exception) -> str:
    """Pause ``session`` after an unexpected error in its models; log it; say so."""
    logger.exception("dashboard session %s: the run stopped", session.sid)
    session.pause()
    session.message = f"The run stopped at t = {session.now:g} h: {type(exc).__name__}: {exc}"
    return session.message


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name) or "gridmarket"
