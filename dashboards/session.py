"""Per-tab state of the dashboard: the models a browser tab runs and their recorded series (pure
Python, no Dash). A :class:`~dashboards.setup.Setup` builds the runs; every service provider of
every run is a **line**. The session advances all runs together, one event instant at a time
within its wall-clock :attr:`Session.budget` per update (so a control waits at most one
update), samples a point per line at each multiple of the sample interval (and after a step),
and only appends, so a browser needs only the points beyond those it has. Past
:data:`~dashboards.run_limits.MAX_POINTS` a line keeps every second point and samples half as
often. The QoS curves (the summary's definitions at each sample) are filled on demand
(:meth:`Session.record_qos`). A subclass records more through :meth:`Session.on_sample`.
"""

from __future__ import annotations

import math
import threading
import time
from array import array
from dataclasses import dataclass, field
from itertools import count
from typing import Any

import numpy as np

from dashboards.run_limits import MAX_POINTS, JobBudget
from dashboards.served_scenarios import load_scenario
from dashboards.session_tables import METRICS, SessionTables
from dashboards.setup import AS_WRITTEN, Run, Setup, build_runs, policy_options
from market.experiments.style import policy_styles
from market.inputs.limits import expected_horizon
from market.results.job_outcomes import job_outcomes
from market.results.outcome_curves import QOS_CURVES, qos_curves
from market.sim.model import MarketStalled

_GENERATIONS = count(1)  # unique across sessions: a browser never mixes two

#: The profit rate (profit / elapsed time) is drawn from this share of the run's expected length
#: on (market.inputs.limits.expected_horizon), or from RATE_SAMPLES samples where that is unknown.
RATE_WARMUP = 0.05
RATE_SAMPLES = 10

#: The QoS curves recorded for every line, named as the summary's columns.
QOS = QOS_CURVES


@dataclass
class Line:
    """One service provider of one run: a line in every chart, with its recorded points
    (compact arrays of floats, NaN where a metric is undefined, e.g. % accepted of no job)."""

    label: str
    run: int
    provider: str
    colour: str = "#1F77B4"  # the policy's (market/experiments/style.py), whatever else is shown
    t: array = field(default_factory=lambda: array("d"))
    values: dict[str, array] = field(
        default_factory=lambda: {m: array("d") for m in (*METRICS, *QOS)}
    )

    def __len__(self) -> int:
        return len(self.t)


def as_list(points: array) -> list[float | None]:
    """Points as a JSON-ready list: NaN and infinities become None (a gap in a chart)."""
    return [v if math.isfinite(v) else None for v in points.tolist()]


def rate_warmup(scenario, sample_interval: float) -> float:
    """From when the profit rate is drawn. It is profit over elapsed time, and profit comes in
    lumps when jobs complete (rent and payment are settled at completion): over the first hours
    a few early payments over a short time made every line start with a spike (Table 1, seed 5:
    FirstPrice 242.9/h at t = 3 h against 31.2/h over the run; seed 1: accept-all 139.0/h at
    2.5 h against -10.8/h). So the line starts once :data:`RATE_WARMUP` of the run's expected
    length has passed (8.5 h of Table 1's 170 h), or after :data:`RATE_SAMPLES` samples for a
    trace workload, whose length is known only once it is read. The cumulative profit chart
    shows the early hours."""
    horizon = expected_horizon(scenario)
    if horizon is None or not math.isfinite(horizon):
        return RATE_SAMPLES * sample_interval
    return RATE_WARMUP * horizon


class Session(SessionTables):
    """The models of one browser tab and everything recorded from them.

    Not thread-safe by itself: the caller holds :attr:`lock` (see :meth:`TabSessions.use`).
    ``generation`` changes whenever the runs are rebuilt, so that a browser holding points of
    an earlier generation knows to redraw from scratch; ``version`` changes whenever anything
    shown changes.
    """

    interval = 0.5  # wall-clock seconds between browser updates (the dcc.Interval)
    budget = 0.3  # at most this many wall-clock seconds of simulation per update
    jobs_budget: JobBudget | None = None  # the server's, if it has one: see run_limits

    def __init__(self, sid: str, setup: Setup | None) -> None:
        self.sid = sid
        self.lock = threading.RLock()
        self.generation = 0
        self.version = 0
        self.last_used = time.monotonic()  # the registry keeps it by its own clock
        self.playing = False
        self.speed = 2.0  # simulated hours per wall-clock second
        self.until: float | None = None
        self.behind = False  # the last update could not simulate as far as asked
        self.message = ""
        self.setup: Setup | None = None  # None: idle, nothing to run (the message says why)
        self.runs: list[Run] = []
        self.lines: list[Line] = []
        self.sample_interval = 1.0
        self.now = self.rate_from = 0.0
        if setup is not None:
            self.reset(setup)

    # -- building ---------------------------------------------------------------------------
    def reset(self, setup: Setup) -> None:
        """Build ``setup``'s runs afresh, at time 0, paused (raises :class:`SetupError`)."""
        held = self.jobs_budget.held(self) if self.jobs_budget else 0
        try:
            runs, sample_interval = build_runs(setup, self._claim)
        except Exception:
            if self.jobs_budget:
                self.jobs_budget.keep(self, held)  # (what the runs kept still hold)
            raise
        self.setup = setup
        self.runs = runs
        self.sample_interval = sample_interval
        self.now = 0.0
        self.playing = False
        self.until = None
        self.behind = False
        self.message = ""
        self.lines = []
        for i, run in enumerate(runs):
            sps = run.model.service_providers
            for name in sps:
                if setup.mode == "market" or (run.label == AS_WRITTEN and len(sps) > 1):
                    label = name  # the providers are named by their policies, or as written
                else:
                    label = run.label if len(sps) == 1 else f"{run.label} · {name}"
                self.lines.append(Line(label, i, name))
        self._style_lines()
        self.rate_from = rate_warmup(runs[0].model.spec, sample_interval)
        self._record(range(len(runs)))
        self.generation = next(_GENERATIONS)
        self.version += 1

    def _claim(self, jobs: int) -> None:
        if self.jobs_budget is not None:
            self.jobs_budget.claim(self, jobs)

    def _style_lines(self) -> None:
        """Each line's colour, from every policy the scenario offers (not only those ticked),
        so a policy keeps its colour when another is unticked."""
        try:
            options = list(policy_options(load_scenario(self.setup.scenario)))
        except Exception:  # the runs are built: the file was readable a moment ago
            options = []
        styles = policy_styles([*options, *(line.label for line in self.lines)])
        for line in self.lines:
            line.colour = styles[line.label][0]

    @property
    def finished(self) -> bool:
        """Every run has ended (or stalled)."""
        return not any(run.active for run in self.runs)

    # -- controls ---------------------------------------------------------------------------
    def play(self) -> None:
        if not self.finished:
            self.playing = True
            self.until = None
            self.version += 1

    def pause(self) -> None:
        self.playing = False
        self.until = None
        self.version += 1

    def set_speed(self, speed: float) -> None:
        if not (isinstance(speed, int | float) and math.isfinite(speed) and speed > 0):
            raise ValueError("speed: must be a positive number of hours per second")
        self.speed = float(speed)

    def run_until(self, until: float) -> None:
        """Run as fast as the per-update budget allows, and pause at time ``until``."""
        if not (isinstance(until, int | float) and math.isfinite(until)):
            raise ValueError("T: enter a time in hours")
        if until <= self.now:
            raise ValueError(f"T: must be later than now (t = {self.now:g} h)")
        if not self.finished:
            self.until = float(until)
            self.playing = True
            self.version += 1

    def step(self) -> bool:
        """Pause, then run every event due at the next event time of any run (one instant)."""
        self.pause()
        due = []
        for run in self.runs:
            if run.active:
                if (t := run.model.next_event_time()) is not None:
                    due.append(t)
                else:  # nothing is due: it cannot progress (the model says why)
                    self._sample([self.runs.index(run)], run.model.time)
        if not due:
            return False
        at = max(min(due), self.now)
        advanced = self._advance_runs(at)
        self.now = at
        self._record(advanced)
        self.version += 1
        return True

    # -- running ----------------------------------------------------------------------------
    def update(self) -> bool:
        """One browser update: if playing, simulate ``speed x interval`` hours (or towards
        ``until``), for at most :attr:`budget` seconds. Returns whether anything changed."""
        if not self.playing:
            return False
        if self.finished:
            self.playing = False
            self.version += 1
            return True
        if self.until is not None:
            target, must_reach = self.until, False
        else:
            target, must_reach = self.now + self.speed * self.interval, True
        reached = self.advance_to(target, time.perf_counter() + self.budget)
        self.behind = must_reach and not reached
        if self.until is not None and self.now >= self.until - 1e-12:
            self.playing = False
            self.until = None
        if self.finished:
            self.playing = False
        self.version += 1
        return True

    def advance_to(self, target: float, deadline: float = math.inf) -> bool:
        """Advance every active run to ``target``, sampling at each multiple of the sample
        interval on the way; stop, between two events, once ``perf_counter()`` passes
        ``deadline`` (the next call goes on from there). Returns whether ``target`` was
        reached."""
        try:
            return self._advance_to(target, deadline)
        finally:
            self.version += 1

    def _advance_to(self, target: float, deadline: float) -> bool:
        while self.now < target - 1e-12:
            step = self.sample_interval
            nxt = min(target, (math.floor(self.now / step + 1e-9) + 1) * step)
            advanced = self._advance_runs(nxt, deadline=deadline)
            if advanced is None:  # out of time between two events: resumed next time
                return False
            if not advanced:
                break
            self.now = nxt
            self._record(advanced)
            if self.finished:
                return True
            if time.perf_counter() > deadline:
                return self.now >= target - 1e-12
        return True

    def _advance_runs(self, to: float, runs=None, deadline: float = math.inf) -> list[int] | None:
        """Run the events of every active run (of ``runs``) due by ``to``, one instant at a
        time, then sample each there; the indices of those advanced, or None if ``deadline``
        passed first (nothing sampled; the runs resume from their last instant)."""
        active = [
            i for i, run in enumerate(self.runs) if run.active and (runs is None or run in runs)
        ]
        for i in active:
            if not run_events(self.runs[i].model, to, deadline):
                return None
        self._sample(active, to)
        return active

    def _sample(self, indices: list[int], to: float) -> None:
        """Let runs ``indices`` sample at ``to`` (and check that they can progress: a run that
        cannot stops there, and the session says so)."""
        for i in indices:
            run = self.runs[i]
            try:
                if to > run.model.time:
                    run.model.advance_to(to)
                else:  # there already (after a step): the same checks and sample, no run
                    run.model.check_stalled()
                    run.model.datacollector.collect(run.model)
            except MarketStalled as stalled:
                self.message = f"{run.label}: {stalled}"

    def _record(self, runs) -> None:
        runs = list(runs)
        for i in runs:
            snapshot = self.runs[i].model.snapshot(jobs=False)
            views = {view.name: view for view in snapshot.providers}
            for line in self.lines:
                if line.run == i:
                    line.t.append(float(snapshot.time))
                    metrics = views[line.provider].metrics
                    for name in METRICS:
                        line.values[name].append(metrics[name])
                    if snapshot.time < self.rate_from - 1e-9:  # see rate_warmup
                        line.values["profit_rate"][-1] = math.nan
        self.on_sample(runs)
        if max((len(line) for line in self.lines), default=0) > MAX_POINTS:
            self._thin()

    def _thin(self) -> None:
        """Keep every second recorded point of every line (all lines share the sample times,
        so they stay aligned) and sample half as often from then on: a line never holds more
        than :data:`~dashboards.run_limits.MAX_POINTS` points. A new generation: browsers
        redraw."""
        for line in self.lines:
            line.t = line.t[::2]
            line.values = {name: values[::2] for name, values in line.values.items()}
        self.on_thin()
        self.sample_interval *= 2
        self.generation = next(_GENERATIONS)

    def on_thin(self) -> None:
        """Called when every line has just kept every second point: a subclass thins what it
        records per sample the same way."""

    def on_sample(self, runs: list[int]) -> None:
        """Called after every sample with the indices of the runs sampled, whose lines have
        just got a point at the session's time: a subclass records more here."""

    def record_qos(self) -> None:
        """Extend every line's :data:`QOS` curves to its sample times: one pass over the jobs
        of each run with samples not filled yet (:func:`market.results.job_outcomes.job_outcomes`),
        then
        the curves at those times (:func:`market.results.outcome_curves.qos_curves`). Called on
        demand: a point is the definition at its time applied to the outcomes as they stand
        when it is filled (the same, as admissions are decided at arrival and completions are
        final)."""
        outcomes: dict[int, dict[str, object]] = {}
        for line in self.lines:
            first = len(line.values[QOS[0]])
            if first >= len(line):
                continue
            if line.run not in outcomes:
                model = self.runs[line.run].model
                outcomes[line.run] = {o.provider: o for o in job_outcomes(model)}
            times = np.asarray(line.t[first:], dtype=float)
            for name, values in qos_curves(outcomes[line.run][line.provider], times).items():
                line.values[name].extend(values.tolist())

    # -- what the browser shows -------------------------------------------------------------
    def points_since(self, counts: list[int] | None) -> list[tuple[int, int]]:
        """``(line index, first new point)`` for every line with points beyond ``counts`` (the
        points a browser already has, per line; None: none)."""
        counts = list(counts or [])
        counts += [0] * (len(self.lines) - len(counts))
        return [(i, counts[i]) for i, line in enumerate(self.lines) if len(line) > counts[i]]

    def counts(self) -> list[int]:
        """How many points every line has."""
        return [len(line) for line in self.lines]

    def status(self) -> dict[str, Any]:
        """The run state for the monitors."""
        if self.setup is None:
            state = "nothing to run"
        elif self.finished:
            state = "finished"
        elif self.playing and self.until is not None:
            state = f"running until t = {self.until:g} h"
        elif self.playing:
            state = f"playing at {self.speed:g} h/s"
        else:
            state = "paused"
        return {
            "time": self.now,
            "state": state,
            "behind": self.behind and self.playing,
            "message": self.message,
            "generation": self.generation,
        }


def run_events(model, to: float, deadline: float = math.inf) -> bool:
    """Run ``model``'s events due by time ``to``, one instant at a time, until
    ``perf_counter()`` passes ``deadline``; whether every event due by ``to`` has run. (An
    instant due now, e.g. arrivals at time 0, runs by moving the clock one float past now,
    as Mesa runs only events later than its time.)"""
    while model.running:
        at = model.next_event_time()
        if at is None or at > to:
            return True
        if time.perf_counter() > deadline:
            return False
        model.run_until(at if at > model.time else math.nextafter(model.time, math.inf))
    return True
