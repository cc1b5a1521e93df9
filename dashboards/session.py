"""Per-tab state of the dashboard: the models a browser tab runs, their time series, and the
registry that keeps one :class:`Session` per tab. Pure Python: no Dash, so tests drive it
directly.

A tab's **setup** (:class:`Setup`) is a scenario file, the policies ticked, how to compare them
and the values of a few key parameters. Building it gives the **runs**:

- ``parallel``: one :class:`~market.model.GridMarket` per policy (per variant of the scenario),
  all on the same seed and so on the same job stream: the papers' way of comparing policies;
- ``market``: one GridMarket in which every policy is a service provider of its own, all offered
  the same jobs under the client's offer rule; each rents from a copy of the scenario's resource
  provider (``pool="own"``) or all from the same one (``pool="shared"``).

Every service provider of every run is a **line** of the charts. The session advances all runs
together, by the same simulated time, and records a point per line each time it samples (every
``sample_interval`` hours of the scenario, at the end of each advance, and after each single
step). Points are only ever appended, so a browser that has the first ``n`` points of a line
needs only the rest (:meth:`Session.points_since`).

The :class:`Registry` maps session ids (one per browser tab, kept in the tab's
``sessionStorage``) to sessions, under a lock, and evicts sessions idle for longer than
``max_idle`` seconds or beyond ``max_sessions`` (least recently used first).
"""

from __future__ import annotations

import math
import re
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import count, islice
from typing import Any

import pandas as pd

from agents.policies import SCHEDULERS
from dashboards.scenario_files import load_scenario
from market.metrics import provider_timeseries_reporters
from market.model import GridMarket
from market.result import RunResult
from market.scenario import Scenario, ScenarioError, validate

_GENERATIONS = count(1)  # unique across sessions: a browser never mixes two

SOURCE = "dashboard"  # the source named in scenario errors, stripped before display

#: The time-series metrics recorded for every line, as the model's DataCollector names them.
METRICS = (
    "profit_rate",
    "profit",
    "revenue",
    "rent",
    "utilization",
    "queue_length",
    "accepted_pct",
    "running",
)

MODES = ("parallel", "market")
POOLS = ("own", "shared")


@dataclass(frozen=True)
class Param:
    """A key parameter of the set-up panel: where it lives in a scenario (None: not in the
    model yet) and how to label it."""

    name: str
    label: str
    path: str | None
    note: str = ""


PARAMS = (
    Param(
        "mean_interarrival",
        "Mean inter-arrival time (h)",
        "clients.0.workload.mean_interarrival",
        "the load: smaller is busier",
    ),
    Param("price", "Price per processor-hour", "resource_providers.0.price"),
    Param("capacity", "Capacity (processors)", "resource_providers.0.capacity"),
    Param("jobs", "Jobs", "clients.0.workload.jobs"),
    Param(
        "sigma",
        "Capacity uncertainty σ",
        "resource_providers.0.uncertainty.sigma",
        "sd of the forecast error, processors",
    ),
    Param(
        "risk_bound",
        "Risk bound",
        "service_providers.0.risk",
        "acceptable risk, e.g. 0.1; empty: oblivious",
    ),
    Param("seed", "Seed", "seed", "the same for every run"),
)
PARAMS_BY_NAME = {p.name: p for p in PARAMS}


def one_line(error: ScenarioError) -> str:
    """A scenario error's message without the source prefix: ``field.path: what is wrong``."""
    return str(error).removeprefix(f"{SOURCE}: ")


# -- scenarios --------------------------------------------------------------------------------
def base_of(scenario: Scenario) -> Scenario:
    """The scenario without its variants."""
    return scenario.model_copy(update={"variants": {}})


def policy_options(scenario: Scenario) -> dict[str, dict[str, Any]]:
    """The policies one can compare, by label, as overrides of the scenario: its variants, or one
    per registered scheduler if it has none."""
    if scenario.variants:
        return dict(scenario.variants)
    return {name: {"service_providers.0.scheduler": name} for name in sorted(SCHEDULERS)}


def param_values(scenario: Scenario) -> dict[str, Any]:
    """The key parameters' values in ``scenario`` (None where it has no such field)."""
    data = scenario.model_dump(mode="python")
    values = {p.name: _get_path(data, p.path) for p in PARAMS}
    return {name: None if value is _MISSING else value for name, value in values.items()}


def param_enabled(scenario: Scenario, name: str) -> bool:
    """Whether the scenario has the field of parameter ``name`` (set or not)."""
    path = PARAMS_BY_NAME[name].path
    return _get_path(scenario.model_dump(mode="python"), path) is not _MISSING


_MISSING = object()


def _get_path(data: Any, path: str | None) -> Any:
    """``data[a][b][c]`` for ``path`` "a.b.c", or ``_MISSING``."""
    if path is None:
        return _MISSING
    node = data
    for key in path.split("."):
        if isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return _MISSING
    return node


def check_param(scenario: Scenario, name: str, value: Any) -> str | None:
    """Why ``value`` is not valid for parameter ``name`` of ``scenario`` (None if it is)."""
    param = PARAMS_BY_NAME.get(name)
    if param is None:
        return f"unknown parameter {name!r}"
    if not param_enabled(scenario, name):
        return None  # shown disabled: nothing to check
    if value == "":
        value = None
    if value is None and param_values(scenario)[name] is not None:
        return f"{param.path}: enter a number"  # (an optional field may stay empty)
    try:
        base_of(scenario).with_overrides({param.path: value}, SOURCE)
    except ScenarioError as exc:
        return one_line(exc)
    return None


# -- set-up -----------------------------------------------------------------------------------
class SetupError(ValueError):
    """A set-up that cannot be built; ``field`` names the panel field at fault (or None)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Setup:
    """What a tab runs: a scenario file, the policies to compare and how, key parameters."""

    scenario: str
    policies: tuple[str, ...]
    mode: str = "parallel"
    pool: str = "own"
    params: tuple[tuple[str, Any], ...] = ()  # (name, value) of the parameters changed

    @classmethod
    def default(cls, scenario_path: str) -> Setup:
        """Every policy of the scenario in parallel runs, its own parameter values."""
        scenario = load_scenario(scenario_path)
        return cls(scenario_path, tuple(policy_options(scenario)))

    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)


@dataclass
class Line:
    """One service provider of one run: a line in every chart, with its recorded points
    (compact arrays of floats, NaN where a metric is undefined, e.g. % accepted of no job)."""

    label: str
    run: int
    provider: str
    t: array = field(default_factory=lambda: array("d"))
    values: dict[str, array] = field(default_factory=lambda: {m: array("d") for m in METRICS})

    def __len__(self) -> int:
        return len(self.t)


def as_list(points: array) -> list[float | None]:
    """Points as a JSON-ready list: NaN becomes None (a gap in a chart)."""
    return [None if v != v else v for v in points.tolist()]


@dataclass
class Run:
    """One market: a GridMarket, with its label (the policy, or ``market``)."""

    label: str
    model: GridMarket
    stalled: bool = False

    @property
    def active(self) -> bool:
        return self.model.running and not self.stalled


def build_runs(setup: Setup) -> tuple[list[Run], float]:
    """The runs of ``setup`` and the sample interval; a :class:`SetupError` if it is invalid."""
    try:
        scenario = load_scenario(setup.scenario)
    except ScenarioError as exc:
        raise SetupError(str(exc), "scenario") from None
    if setup.mode not in MODES:
        raise SetupError(f"mode: must be one of {', '.join(MODES)}", "mode")
    if setup.pool not in POOLS:
        raise SetupError(f"pool: must be one of {', '.join(POOLS)}", "pool")
    options = policy_options(scenario)
    unknown = [p for p in setup.policies if p not in options]
    if unknown:
        raise SetupError(f"policies: {unknown[0]!r} is not a policy of this scenario", "policies")
    if not setup.policies:
        raise SetupError("policies: tick at least one", "policies")

    base = base_of(scenario)
    overrides = {}
    for name, value in setup.params:
        message = check_param(scenario, name, value)
        if message:
            raise SetupError(message, name)
        if param_enabled(scenario, name):
            overrides[PARAMS_BY_NAME[name].path] = None if value == "" else value
    try:
        base = base.with_overrides(overrides, SOURCE)
        variants = {
            label: base.with_overrides(options[label], f"{SOURCE}: {label}")
            for label in setup.policies
        }
    except ScenarioError as exc:
        raise SetupError(one_line(exc)) from None

    if setup.mode == "parallel":
        runs = [Run(label, GridMarket(variant)) for label, variant in variants.items()]
    else:
        runs = [Run("market", GridMarket(_one_market(base, variants, setup.pool)))]
    return runs, base.sample_interval


def _one_market(base: Scenario, variants: dict[str, Scenario], pool: str) -> Scenario:
    """One market whose service providers are the first service provider of each variant,
    named by the variant's label; with ``pool="own"`` each rents from a copy of its variant's
    resource provider, with ``"shared"`` all from the base scenario's."""
    data = base.model_dump(mode="python")
    providers, pools = [], []
    for label, variant in variants.items():
        sp = variant.service_providers[0].model_dump(mode="python")
        sp["name"] = label
        if pool == "own":
            wanted = sp["resource_provider"] or variant.resource_providers[0].name
            rp = next(r for r in variant.resource_providers if r.name == wanted)
            rp = rp.model_dump(mode="python") | {"name": f"{label} pool"}
            sp["resource_provider"] = rp["name"]
            pools.append(rp)
        providers.append(sp)
    data["service_providers"] = providers
    if pool == "own":
        data["resource_providers"] = pools
    for client in data["clients"]:
        client["providers"] = None
    try:
        return validate(data, SOURCE)
    except ScenarioError as exc:
        raise SetupError(one_line(exc)) from None


# -- the session ------------------------------------------------------------------------------
def _or_none(value: float) -> float | None:
    return None if math.isnan(value) else value


def _rent(price: Any, processors: int, start: float, end: float) -> float:
    """Rent for ``processors`` over ``[start, end)`` at ``price`` (a number or a schedule with
    a ``cost`` method)."""
    if hasattr(price, "cost"):
        return price.cost(processors, start, end)
    return price * processors * (end - start)


def _finite(value: Any) -> float:
    value = float(value)
    return value if math.isfinite(value) else math.nan


class Session:
    """The models of one browser tab and everything recorded from them.

    Not thread-safe by itself: the caller holds :attr:`lock` (see :meth:`Registry.use`).
    ``generation`` changes whenever the runs are rebuilt, so that a browser holding points of
    an earlier generation knows to redraw from scratch; ``version`` changes whenever anything
    shown changes.
    """

    interval = 0.5  # wall-clock seconds between browser updates (the dcc.Interval)
    budget = 0.3  # at most this many wall-clock seconds of simulation per update

    def __init__(self, sid: str, setup: Setup) -> None:
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
        self.reset(setup)

    # -- building ---------------------------------------------------------------------------
    def reset(self, setup: Setup) -> None:
        """Build ``setup``'s runs afresh, at time 0, paused (raises :class:`SetupError`)."""
        runs, sample_interval = build_runs(setup)
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
                if setup.mode == "market":
                    label = name  # the providers are named by their policies
                else:
                    label = run.label if len(sps) == 1 else f"{run.label} · {name}"
                self.lines.append(Line(label, i, name))
        self._reporters = {
            name: reporter
            for name, reporter in provider_timeseries_reporters().items()
            if name in METRICS
        }
        self._record(range(len(runs)))
        self.generation = next(_GENERATIONS)
        self.version += 1

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
        due = [
            t for run in self.runs if run.active if (t := run.model.next_event_time()) is not None
        ]
        self._check_stalled()
        if not due:
            return False
        at = max(min(due), self.now)
        advanced = []
        for i, run in enumerate(self.runs):
            if run.active:
                run.model.advance(max(0.0, at - run.model.time))
                advanced.append(i)
        self.now = at
        self._record(advanced)
        self.version += 1
        return True

    # -- running ----------------------------------------------------------------------------
    def update(self) -> bool:
        """One browser update: if playing, simulate ``speed x interval`` hours (or towards
        ``until`` as far as the budget allows). Returns whether anything changed."""
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
        interval on the way; stop early (at a sample) once ``perf_counter()`` passes
        ``deadline``. Returns whether ``target`` was reached."""
        step = self.sample_interval
        while self.now < target - 1e-12:
            nxt = min(target, (math.floor(self.now / step + 1e-9) + 1) * step)
            advanced = []
            for i, run in enumerate(self.runs):
                if run.active:
                    run.model.advance(nxt - run.model.time)
                    advanced.append(i)
            if not advanced:
                break
            self.now = nxt
            self._record(advanced)
            self._check_stalled()
            if self.finished:
                return True
            if time.perf_counter() > deadline:
                return self.now >= target - 1e-12
        return True

    def _check_stalled(self) -> None:
        for run in self.runs:
            if run.active and run.model.next_event_time() is None:
                run.stalled = True  # jobs wait, nothing is due: it would never end
                self.message = f"{run.label} stalled at t = {run.model.time:g} h"

    def _record(self, runs) -> None:
        wanted = set(runs)
        for line in self.lines:
            if line.run not in wanted:
                continue
            model = self.runs[line.run].model
            sp = model.service_providers[line.provider]
            line.t.append(float(model.time))
            for name, reporter in self._reporters.items():
                value = getattr(sp, reporter) if isinstance(reporter, str) else reporter(sp)
                line.values[name].append(_finite(value))

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
        if self.finished:
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

    def monitors(self) -> list[dict[str, Any]]:
        """The current values of every line."""
        rows = []
        for line in self.lines:
            run = self.runs[line.run]
            state = "stalled" if run.stalled else "running" if run.model.running else "finished"
            row = {"line": line.label, "state": state, "time": line.t[-1]}
            row.update({m: _or_none(line.values[m][-1]) for m in METRICS})
            rows.append(row)
        return rows

    def decisions(self, limit: int = 15) -> list[dict[str, Any]]:
        """The latest admission decisions of every line, newest first."""
        rows = []
        for line in self.lines:
            sp = self.runs[line.run].model.service_providers[line.provider]
            for record in islice(reversed(sp.records.values()), limit):
                d = record.decision
                rows.append(
                    {
                        "time": record.job.arrival,
                        "line": line.label,
                        "job": record.job.id,
                        "accepted": d.accepted,
                        "committed": record.committed,
                        "reason": d.reason,
                        "detail": d.detail,
                        "processors": d.processors,
                        "expected_profit": d.expected_profit,
                    }
                )
        rows.sort(key=lambda r: (-r["time"], r["job"], r["line"]))
        return rows[:limit]

    def gantt(self, planned_limit: int = 40) -> list[dict[str, Any]]:
        """The running and planned jobs of every line: job, shape, start, predicted end and
        expected profit (value at the predicted end minus the rent to then)."""
        rows = []
        for line in self.lines:
            sp = self.runs[line.run].model.service_providers[line.provider]
            rp = sp.resource_provider
            for lease in rp.leases.values():
                if lease.tenant != sp.name or lease.job is None:
                    continue
                job = sp.records[lease.job].job
                end = max(lease.until, self.now)
                rent = _rent(rp.price, lease.processors, lease.start, end)
                rows.append(
                    {
                        "line": line.label,
                        "job": job.id,
                        "processors": lease.processors,
                        "start": lease.start,
                        "end": end,
                        "status": "running",
                        "expected_profit": job.utility(end) - rent,
                    }
                )
            plan = sp.last_plan
            if plan is None or not sp.queue:
                continue
            queued = {job.id for job in sp.queue}
            planned = [p for p in plan.placements if p.job.id in queued]
            planned.sort(key=lambda p: p.start)
            for p in planned[:planned_limit]:
                rows.append(
                    {
                        "line": line.label,
                        "job": p.job.id,
                        "processors": p.processors,
                        "start": max(p.start, self.now),
                        "end": max(p.end, self.now),
                        "status": "planned",
                        "expected_profit": p.profit,
                    }
                )
        return rows

    # -- export -----------------------------------------------------------------------------
    def timeseries_frame(self) -> pd.DataFrame:
        """Every recorded point: one row per line and time."""
        frames = []
        for line in self.lines:
            frame = pd.DataFrame({"time": line.t, **line.values})
            frame.insert(0, "provider", line.provider)
            frame.insert(0, "run", self.runs[line.run].label)
            frame.insert(0, "line", line.label)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def jobs_frame(self) -> pd.DataFrame:
        """The per-job table of every run so far (see :class:`market.result.RunResult`)."""
        frames = [RunResult.from_model(run.model).jobs.assign(run=run.label) for run in self.runs]
        frame = pd.concat(frames, ignore_index=True)
        return frame[["run", *[c for c in frame if c != "run"]]]


# -- the registry -----------------------------------------------------------------------------
SESSION_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")


class Registry:
    """Sessions by id (one per browser tab), created on first use from ``default_setup``.

    Sessions idle for more than ``max_idle`` seconds are dropped, and beyond ``max_sessions``
    the least recently used one is, so memory stays bounded.
    """

    def __init__(
        self,
        default_setup: Callable[[], Setup],
        max_idle: float = 3600.0,
        max_sessions: int = 32,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.default_setup = default_setup
        self.max_idle = max_idle
        self.max_sessions = max_sessions
        self.clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, sid: str) -> bool:
        return sid in self._sessions

    def get(self, sid: str) -> Session:
        """The session ``sid``, created if new; a ValueError for a malformed id."""
        if not isinstance(sid, str) or not SESSION_ID.fullmatch(sid):
            raise ValueError("not a session id")
        with self._lock:
            now = self.clock()
            self._evict(now)
            session = self._sessions.get(sid)
            if session is None:
                session = Session(sid, self.default_setup())
                session.last_used = now
                self._sessions[sid] = session
                while len(self._sessions) > self.max_sessions:
                    oldest = min(self._sessions.values(), key=lambda s: s.last_used)
                    del self._sessions[oldest.sid]
            session.last_used = now
            return session

    @contextmanager
    def use(self, sid: str) -> Iterator[Session]:
        """``with registry.use(sid) as session:`` the session, locked."""
        session = self.get(sid)
        with session.lock:
            yield session
            session.last_used = self.clock()

    def _evict(self, now: float) -> None:
        for sid in [s.sid for s in self._sessions.values() if now - s.last_used > self.max_idle]:
            del self._sessions[sid]
