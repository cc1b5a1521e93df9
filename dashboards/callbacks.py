"""The dashboard's callbacks: plain methods of :class:`Callbacks` (tests call them directly),
wired to the page by :meth:`Callbacks.register`.

How a tab stays up to date, incrementally:

- the tab's session id lives in a ``dcc.Store`` with ``storage_type="session"`` (``sid``),
  so it survives a reload and differs between tabs; a client-side callback makes one up the
  first time;
- a ``dcc.Interval`` ticks every :attr:`Session.interval` seconds; a client-side gate turns a
  tick into a ``pulse`` only when the previous update has been answered (``ack``), so that a
  slow update is never superseded and lost, and the browser never queues work;
- :meth:`Callbacks.update` advances the tab's models by ``speed x interval`` of simulated time
  (on a pulse only) and sends the points each line has beyond what the browser holds. The
  browser says what it holds in ``cursor`` (a memory store: the session id, the generation of
  the runs, the number of points per line, the version of the rest); new points go out as
  ``extendData`` of the time-series graphs; a browser that holds nothing, or points of another
  generation (after a reset or a reload), gets whole figures instead. Past
  :data:`~dashboards.views.DISPLAY_LIMIT` points a line shows every 2nd, 4th, ... point (the
  stride doubles as the series does, and the charts are redrawn whole then), so the browser's
  work per update stays bounded however long the run. Which graphs show follows the run's
  kind (:func:`~dashboards.views.shown_graphs`: money, QoS or both); a hidden graph holds
  nothing and gets nothing, and one shown again gets its whole figure. The Gantt chart, the
  monitors and the decisions table are small and are sent whole, when they change;
- the run controls act on the session and bump ``nudge``, which runs :meth:`update` without
  advancing time, so that a step or a reset shows at once.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dash import ALL, MATCH, Input, Output, State, ctx, dcc, no_update
from dash.exceptions import PreventUpdate

from dashboards import served_scenarios
from dashboards.confined_paths import check_paths
from dashboards.paper_page import view_note
from dashboards.served_scenarios import load_scenario
from dashboards.session import Session
from dashboards.setup import PARAMS_BY_NAME, Setup, SetupError, check_param
from dashboards.tab_sessions import SESSION_ID, TabSessions
from dashboards.views import (
    GRAPHS,
    HIDDEN,
    QOS_GRAPHS,
    decisions_view,
    display_stride,
    extend_payload,
    gantt_figure,
    monitors_view,
    rows_kind,
    setup_fields,
    shown_graphs,
    status_view,
    timeseries_figure,
)
from market.inputs.scenario import ScenarioError

logger = logging.getLogger(__name__)

CONTROLS = ("start", "pause", "step", "run-until", "reset")
PARTS = ("figure", "extend", "style")  # the outputs of each time-series graph

# Makes up the tab's session id the first time (or takes the one sessionStorage kept).
SID_JS = """
function(ts, data) {
    if (data) { return window.dash_clientside.no_update; }
    let old = null;
    try { old = JSON.parse(window.sessionStorage.getItem("sid")); } catch (e) {}
    if (typeof old === "string" && old.length >= 8) { return old; }
    const bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.from(bytes, b => b.toString(16).padStart(2, "0")).join("");
}
"""

# Turns an interval tick into a pulse unless the last pulse is still unanswered (for < 5 s).
GATE_JS = """
function(n, pulse, ack) {
    const now = Date.now();
    if (pulse && ack !== pulse.n && now - pulse.t < 5000) {
        return window.dash_clientside.no_update;
    }
    return {n: n, t: now};
}
"""


class Callbacks:
    """The callbacks of one app, over its registry of sessions and its scenario catalog."""

    def __init__(self, registry: TabSessions, catalog: list[tuple[str, str]]) -> None:
        self.registry = registry
        self.catalog = catalog

    @contextmanager
    def _session(self, sid: Any) -> Iterator[Session]:
        """The tab's session, locked; no update at all for a missing or malformed id."""
        if not isinstance(sid, str) or not SESSION_ID.fullmatch(sid):
            raise PreventUpdate
        with self.registry.use(sid) as session:
            yield session

    # -- scenario and set-up ----------------------------------------------------------------
    def _options(self, extra: str | None = None) -> list[dict[str, str]]:
        options = [{"label": label, "value": path} for label, path in self.catalog]
        if extra and all(o["value"] != extra for o in options):
            options.append({"label": extra, "value": extra})
        return options

    def choose_scenario(
        self,
        trigger: Any,
        sid: str | None,
        n_clicks: int | None,
        path: str | None,
        options,
        upload: str | None = None,
        filename: str | None = None,
    ) -> tuple[Any, Any, Any, Any]:
        """On page load, the tab's scenario and speed; on "Load", the file at ``path`` (a file
        of the scenario folders only: :mod:`dashboards.served_scenarios`); on an upload, the
        uploaded file. Returns (dropdown options, dropdown value, message under the path,
        speed)."""
        if trigger in ("load-path", "scenario-upload"):
            try:
                if trigger == "load-path":
                    path = str(served_scenarios.find(path or ""))
                    label = path
                else:
                    path = served_scenarios.add_upload(filename, upload)
                    label = f"{path.rsplit('/', 1)[-1]} (uploaded)"
                check_paths(load_scenario(path), label)
            except ScenarioError as exc:
                return no_update, no_update, str(exc), no_update
            merged = list(options or self._options())
            if all(o.get("value") != path for o in merged):
                merged.append({"label": label, "value": path})
            return merged, path, "", no_update
        with self._session(sid) as session:
            current, speed = session.setup.scenario, session.speed
        return self._options(current), current, "", speed

    def render_setup(self, scenario_path: str | None, sid: str | None) -> tuple[Any, str]:
        """The set-up fields of the chosen scenario: the tab's current values if it is the
        scenario running, else the file's. Returns (fields, message under the scenario)."""
        if not scenario_path:
            raise PreventUpdate
        try:
            scenario = load_scenario(scenario_path)
            check_paths(scenario, scenario_path.rsplit("/", 1)[-1])
        except ScenarioError as exc:
            return [], str(exc)
        with self._session(sid) as session:
            setup = session.setup if session.setup.scenario == scenario_path else None
        return [*view_note(scenario_path, scenario), *setup_fields(scenario, setup)], ""

    def check_field(self, value: Any, field_id: dict[str, str], scenario_path: str | None) -> str:
        """The message under a parameter field: why its value is invalid, or nothing."""
        name = field_id.get("name") if isinstance(field_id, dict) else None
        if name not in PARAMS_BY_NAME or not scenario_path:
            return ""
        try:
            scenario = load_scenario(scenario_path)
        except ScenarioError as exc:
            return str(exc)
        return check_param(scenario, name, value) or ""

    @staticmethod
    def check_policies(ticked: list[str] | None) -> str:
        return "" if ticked else "tick at least one policy"

    @staticmethod
    def setup_from_fields(
        scenario_path: str | None,
        setup_values: list[Any],
        setup_ids: list[dict[str, str]],
        param_values: list[Any],
        param_ids: list[dict[str, str]],
    ) -> Setup:
        """The set-up the panel describes (not validated yet: see :meth:`Session.reset`)."""
        if not scenario_path:
            raise SetupError("scenario: choose a scenario", "scenario")
        fields = {i["name"]: v for i, v in zip(setup_ids or [], setup_values or [], strict=False)}
        if "policies" not in fields:
            raise SetupError("the set-up panel is still loading", None)
        params = tuple(
            (i["name"], v)
            for i, v in zip(param_ids or [], param_values or [], strict=False)
            if PARAMS_BY_NAME.get(i["name"]) is not None and PARAMS_BY_NAME[i["name"]].path
        )
        return Setup(
            scenario=scenario_path,
            policies=tuple(fields.get("policies") or ()),
            mode=fields.get("mode") or "parallel",
            pool=fields.get("pool") or "own",
            params=params,
        )

    # -- run controls -----------------------------------------------------------------------
    def control(
        self,
        trigger: Any,
        sid: str | None,
        speed: Any,
        until: Any,
        scenario_path: str | None,
        setup_values: list[Any],
        setup_ids: list[dict[str, str]],
        param_values: list[Any],
        param_ids: list[dict[str, str]],
        nudge: int | None,
    ) -> tuple[int, str]:
        """Start, pause, step, run until T, reset (to the panel's set-up) or change the speed.
        Returns (the new nudge, a message for the controls bar)."""
        if trigger is None:
            raise PreventUpdate
        message = ""
        with self._session(sid) as session:
            try:
                if trigger == "speed":
                    session.set_speed(speed)
                elif trigger == "start":
                    if session.finished:
                        message = "The run has finished: Reset to run it again."
                    session.play()
                elif trigger == "pause":
                    session.pause()
                elif trigger == "step":
                    if not session.step():
                        message = "Nothing more to step: the run has finished."
                elif trigger == "run-until":
                    session.run_until(until if until is not None else float("nan"))
                elif trigger == "reset":
                    setup = self.setup_from_fields(
                        scenario_path, setup_values, setup_ids, param_values, param_ids
                    )
                    session.reset(setup)
                else:
                    raise PreventUpdate
            except SetupError as exc:
                message = f"Not reset: {exc}"
            except ValueError as exc:
                message = str(exc)
            except PreventUpdate:
                raise
            except Exception as exc:  # a model error stops the run, not the server
                message = _stopped(session, exc)
        return (nudge or 0) + 1, message

    # -- live views -------------------------------------------------------------------------
    def update(
        self, sid: str | None, cursor: dict[str, Any] | None, pulse: Any, advance: bool
    ) -> dict[str, Any]:
        """One update of a tab: advance its models if ``advance`` (an interval pulse), then what
        the browser lacks. Returns a dict of outputs (``no_update`` where nothing changed)."""
        ack = pulse.get("n") if isinstance(pulse, dict) else None
        with self._session(sid) as session:
            if advance:
                try:
                    session.update()
                except Exception as exc:  # a model error stops the run, not the server
                    _stopped(session, exc)
            lines = session.lines
            stride = display_stride(lines)
            full = (
                not isinstance(cursor, dict)
                or cursor.get("sid") != sid
                or cursor.get("generation") != session.generation
                or cursor.get("stride") != stride
                or not isinstance(cursor.get("counts"), list)
                or len(cursor["counts"]) != len(lines)
                or any(
                    not isinstance(c, int) or c > len(line)
                    for c, line in zip(cursor["counts"], lines, strict=True)
                )
                or not isinstance(cursor.get("shown"), list)
            )
            out: dict[str, Any] = {"ack": ack}
            changed = full or cursor.get("version") != session.version
            rows = session.monitors() if changed else None
            if rows is not None:
                shown = shown_graphs(rows_kind(rows))
            else:
                shown = [graph for graph in cursor["shown"] if graph in GRAPHS]
            if any(graph in shown for graph in QOS_GRAPHS):
                session.record_qos()
            new = None if full else session.points_since(cursor["counts"])
            for graph in GRAPHS:
                out.update(dict.fromkeys((f"{graph}-{p}" for p in PARTS), no_update))
                was_shown = not full and graph in cursor["shown"]
                if graph in shown and was_shown:  # new points only
                    payload = extend_payload(graph, lines, new, stride)
                    out[f"{graph}-extend"] = no_update if payload is None else payload
                elif graph in shown:  # shown from now on: whole
                    figure = timeseries_figure(graph, lines, session.generation, stride)
                    out[f"{graph}-figure"], out[f"{graph}-style"] = figure, {}
                elif full or was_shown:  # hidden from now on: empty, so cheap to keep
                    figure = timeseries_figure(graph, [], session.generation)
                    out[f"{graph}-figure"], out[f"{graph}-style"] = figure, HIDDEN
            if changed:
                labels = [line.label for line in lines]
                out["gantt"] = gantt_figure(
                    session.gantt(), labels, session.now, session.colours(), session.capacities()
                )
                out["monitors"] = monitors_view(rows)
                out["decisions"] = decisions_view(session.decisions())
                out["status"] = status_view(session.status())
            else:
                for key in ("gantt", "monitors", "decisions", "status"):
                    out[key] = no_update
            out["cursor"] = {
                "sid": sid,
                "generation": session.generation,
                "counts": session.counts(),
                "stride": stride,
                "version": session.version,
                "shown": shown,
            }
        return out

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
            frame = frame_of(session)
            name = _slug(session.runs[0].model.spec.name)
        return dcc.send_data_frame(frame.to_csv, f"{name}-{what}.csv", index=False)

    # -- wiring -----------------------------------------------------------------------------
    def register(self, app) -> None:
        """Attach every callback to ``app`` (whose layout is :func:`dashboards.app.layout`)."""
        app.clientside_callback(
            SID_JS,
            Output("sid", "data"),
            Input("sid", "modified_timestamp"),
            State("sid", "data"),
        )
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
            Input("scenario-upload", "contents"),
            State("scenario-path", "value"),
            State("scenario", "options"),
            State("scenario-upload", "filename"),
        )
        def _choose_scenario(sid, n_clicks, upload, path, options, filename):
            trigger = ctx.triggered_id
            return self.choose_scenario(trigger, sid, n_clicks, path, options, upload, filename)

        @app.callback(
            Output("setup-fields", "children"),
            Output("scenario-msg", "children"),
            Input("scenario", "value"),
            State("sid", "data"),
        )
        def _render_setup(scenario_path, sid):
            return self.render_setup(scenario_path, sid)

        @app.callback(
            Output({"type": "param-msg", "name": MATCH}, "children"),
            Input({"type": "param", "name": MATCH}, "value"),
            State({"type": "param", "name": MATCH}, "id"),
            State("scenario", "value"),
            prevent_initial_call=True,
        )
        def _check_field(value, field_id, scenario_path):
            return self.check_field(value, field_id, scenario_path)

        @app.callback(
            Output("policies-msg", "children"),
            Input({"type": "setup", "name": "policies"}, "value"),
            prevent_initial_call=True,
        )
        def _check_policies(ticked):
            return self.check_policies(ticked)

        @app.callback(
            Output("nudge", "data"),
            Output("control-msg", "children"),
            *[Input(name, "n_clicks") for name in CONTROLS],
            Input("speed", "value"),
            State("sid", "data"),
            State("until", "value"),
            State("scenario", "value"),
            State({"type": "setup", "name": ALL}, "value"),
            State({"type": "setup", "name": ALL}, "id"),
            State({"type": "param", "name": ALL}, "value"),
            State({"type": "param", "name": ALL}, "id"),
            State("nudge", "data"),
            prevent_initial_call=True,
        )
        def _control(*args):
            n = len(CONTROLS)
            speed, sid, until, scenario_path, s_values, s_ids, p_values, p_ids, nudge = args[n:]
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
        def _update(pulse, nudge, sid, cursor):
            out = self.update(sid, cursor, pulse, advance=ctx.triggered_id == "pulse")
            keys = [f"{graph}-{part}" for graph in GRAPHS for part in PARTS]
            keys += ["gantt", "monitors", "decisions", "status", "cursor", "ack"]
            return tuple(out[key] for key in keys)

        @app.callback(
            Output("download-timeseries", "data"),
            Input("export-timeseries", "n_clicks"),
            State("sid", "data"),
            prevent_initial_call=True,
        )
        def _export_timeseries(n_clicks, sid):
            return self.export_timeseries(n_clicks, sid)

        @app.callback(
            Output("download-jobs", "data"),
            Input("export-jobs", "n_clicks"),
            State("sid", "data"),
            prevent_initial_call=True,
        )
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
