"""How much one browser tab may make the dashboard do, checked before any work: at most
:data:`MAX_TAB_JOBS` jobs over the runs of one page of one tab, counted from the scenario
(:func:`jobs_of`: a synthetic client's ``jobs``; a trace's ``first_jobs``/``last_jobs`` or its
data lines, streamed and counted only up to the limit, times the load factor where jobs are
duplicated; a batch site's trace and its brokers' clients the same way); at most
:data:`MAX_POINTS` recorded points per line (:meth:`dashboards.session.Session._thin`). The work
of one update is bounded by the session's budget (:mod:`dashboards.session`). The CLI has its
own, larger limits (:mod:`market.inputs.limits`); these keep a server many tabs share answering,
with at most :data:`MAX_SERVER_JOBS` jobs held by all its tabs (:class:`JobBudget`).
"""

from __future__ import annotations

import gzip
import math
import threading
from functools import lru_cache
from pathlib import Path

from market.inputs.scenario import Scenario, ScenarioError

MAX_TAB_JOBS = 150_000  # jobs over the runs of one page of one tab (VQoPS's 7 x 14,000 fit)
MAX_SERVER_JOBS = 600_000  # jobs over every tab's runs on one server
MAX_POINTS = 20_000  # recorded points per line before the samples are thinned


def jobs_of(scenario: Scenario, limit: int = MAX_TAB_JOBS) -> int:
    """An upper bound of the jobs a run of ``scenario`` submits (``limit + 1`` once it is
    known to be more). Trace paths must be real paths already (see
    :func:`dashboards.confined_paths.confine`)."""
    total = 0
    for client in scenario.clients:
        total += _workload_jobs(client.workload, limit)
    for site in scenario.batch_sites:
        total += site.first_jobs or trace_records(site.trace, limit)
        for broker in site.brokers:
            total += _workload_jobs(broker.workload, limit)
    return min(total, limit + 1)


def _workload_jobs(workload, limit: int) -> int:
    if workload.kind == "profit":
        return int(workload.jobs)
    records = workload.first_jobs or workload.last_jobs or trace_records(workload.trace, limit)
    if workload.load_method == "duplicate":
        return math.ceil(records * workload.load_factor)
    return records


def trace_records(path: str, limit: int = MAX_TAB_JOBS) -> int:
    """How many data lines (not ``;`` comments, not blank) the trace file ``path`` has, up to
    ``limit + 1`` (reading stops there)."""
    real = Path(path)
    try:
        info = real.stat()
    except OSError:
        return 0  # the model says what is wrong with it
    return _count(str(real), info.st_mtime_ns, info.st_size, limit)


@lru_cache(maxsize=32)
def _count(path: str, mtime: int, size: int, limit: int) -> int:
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if gz else open
    count = 0
    try:
        with opener(path, "rb") as handle:
            for line in handle:
                text = line.strip()
                if text and not text.startswith(b";"):
                    count += 1
                    if count > limit:
                        break
    except (OSError, EOFError):
        pass  # a damaged file: the model's reader says so in one line
    return count


def check_run_size(scenarios: list[Scenario], limit: int = MAX_TAB_JOBS) -> int:
    """How many jobs the runs of ``scenarios`` submit together (an upper bound); a one-line
    :class:`ScenarioError` if more than ``limit``."""
    total = 0
    for scenario in scenarios:
        total += jobs_of(scenario, limit)
        if total > limit:
            break
    if total > limit:
        runs = f"these {len(scenarios)} runs" if len(scenarios) > 1 else "this run"
        raise ScenarioError(
            f"{runs} would submit more than {limit:,} jobs, the most a dashboard tab runs: "
            f"tick fewer policies, or fewer jobs (jobs, first_jobs, last_jobs), or run it with "
            f"gridmarket run"
        )
    return total


class JobBudget:
    """The jobs every session of one server holds, at most ``limit``: a session claims its
    runs' jobs before they are built (:meth:`claim`); to make room, the least recently used
    sessions of the other tabs that are not busy are dropped (``registries``: the
    :class:`~dashboards.tab_sessions.TabSessions` of every page)."""

    def __init__(self, limit: int = MAX_SERVER_JOBS) -> None:
        self.limit = limit
        self.registries: list = []
        self._held: dict[int, int] = {}  # id(session) -> jobs
        self._lock = threading.Lock()

    def held(self, session: object | None = None) -> int:
        """The jobs ``session`` holds (every session's, if None)."""
        with self._lock:
            if session is None:
                return sum(self._held.values())
            return self._held.get(id(session), 0)

    def claim(self, session: object, jobs: int) -> None:
        """Let ``session`` hold ``jobs`` jobs instead of what it held; a one-line
        :class:`ScenarioError` if the server cannot make room."""
        others = self.held() - self.held(session)
        if others + jobs > self.limit and jobs <= self.limit:
            self._make_room(others + jobs - self.limit, session)
            others = self.held() - self.held(session)
        if others + jobs > self.limit:
            raise ScenarioError(
                f"the server runs {others:,} jobs for other tabs and at most {self.limit:,}: "
                f"try again when a tab has closed, or run it with gridmarket run"
            )
        self.keep(session, jobs)

    def keep(self, session: object, jobs: int) -> None:
        """Let ``session`` hold ``jobs`` again (what its runs hold after a failed reset)."""
        with self._lock:
            if jobs:
                self._held[id(session)] = jobs
            else:
                self._held.pop(id(session), None)

    def release(self, session: object) -> None:
        with self._lock:
            self._held.pop(id(session), None)

    def _make_room(self, needed: int, keep: object) -> None:
        """Drop the least recently used sessions but ``keep`` that no request is using."""
        candidates = [
            (session.last_used, registry, session)
            for registry in self.registries
            for session in registry.sessions()
            if session is not keep and self.held(session)
        ]
        for _, registry, session in sorted(candidates, key=lambda c: c[0]):
            if needed <= 0:
                return
            if session.lock.acquire(blocking=False):
                try:
                    needed -= self.held(session)
                    registry.drop(session.sid)
                finally:
                    session.lock.release()
