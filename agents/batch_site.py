"""A best-effort batch site: a space-shared machine whose queue is FCFS with EASY backfilling, no
reservations and no deadlines (VARQ TR 2007-09 §2.1; §4.4 simulates Maui's default).

It replays a trace as background workload and takes jobs from any agent at any time
(:meth:`BatchSiteAgent.submit`; a job wider than the machine is a one-line error). It plans with
the project's EASY on the running jobs' requested wall times, once per instant. A job holds its
nodes until it ends (after holding them idle until ``hold_until``, a VARQ job waiting for its
deadline, §3.1); one running past its requested wall time is killed there if
``kill_at_walltime`` (our parameter), else extended one request at a time. It learns QBETS from
its own queue delays, which VARQ users ask.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agents.participant import Participant
from agents.policies.backfill import EASY
from agents.policies.base import PlanContext
from agents.site_summary import site_rows
from market.core.capacity import CapacityProfile
from market.core.jobs import Job
from market.core.qbets import QBETS
from market.core.rent import PriceSchedule
from market.core.utility import UtilityFunction

if TYPE_CHECKING:
    from market.inputs.workloads.site_trace import SiteTrace
    from market.sim.model import GridMarket

_NOTHING = UtilityFunction.constant(0.0)


class SiteUser(Protocol):
    """An agent submitting to a site: the site is idle only once every user is done."""

    name: str

    @property
    def exhausted(self) -> bool:
        """Nothing more to submit."""
        ...

    def summary(self) -> dict[str, Any]:
        """Its row of the run summary (with the site's figures: :mod:`agents.site_summary`)."""
        ...


class SiteError(ValueError):
    """A job the site cannot take; the message is one line naming the field."""


@dataclass(slots=True, eq=False)
class SiteJob:
    """One job at the site: what was asked (nodes, requested wall time, runtime of its work,
    hours) and what happened (submission, start, end, killed)."""

    id: int
    nodes: int
    runtime: float
    request: float
    owner: str = "trace"
    hold_until: float | None = None
    on_start: Callable[[SiteJob], None] | None = None
    on_end: Callable[[SiteJob], None] | None = None
    submit: float = math.nan
    start: float | None = None
    end: float | None = None
    killed: bool = False
    reserved_until: float = math.nan
    bound: float = math.nan  # QBETS's bound on its delay, predicted at its submission

    @property
    def occupied(self) -> float:
        """Node-hours it held its nodes (so far, if running: 0 before it starts)."""
        if self.start is None or self.end is None:
            return 0.0
        return self.nodes * (self.end - self.start)


def _exactly(start: float, end: float) -> float:
    """A duration ``d`` with ``start + d == end`` in floating point (releases must end where
    the reservation ended)."""
    d = end - start
    while start + d > end:
        d = math.nextafter(d, -math.inf)
    while start + d < end:
        d = math.nextafter(d, math.inf)
    return d


class BatchSiteAgent(Participant):
    """A batch site (see the module docstring); a participant, idle once its trace is replayed,
    its queue empty and every user submitting to it is done.

    Args:
        model: the market.
        name: the site's name.
        background: the trace jobs it replays (ids 0..N-1).
        predictor: its QBETS.
        kill_at_walltime: kill a job at its requested wall time.
    """

    def __init__(
        self,
        model: GridMarket,
        name: str,
        background: SiteTrace,
        predictor: QBETS,
        kill_at_walltime: bool = True,
    ) -> None:
        super().__init__(model)
        self.name = name
        self.capacity = background.capacity
        self.predictor = predictor
        self.kill = kill_at_walltime
        self.scheduler = EASY()
        self.profile = CapacityProfile(self.capacity, model.time)
        self._price = PriceSchedule.constant(0.0)
        self.queue: list[Job] = []
        self.jobs: dict[int, SiteJob] = {}
        self.users: list[SiteUser] = []  # agents submitting here (VARQ users, brokers)
        self.busy = 0
        self.running = 0
        self.killed = 0
        self._dispatch_pending = False
        self._background = background
        self._next_background = 0
        self._next_id = len(background)
        # Mesa keeps weak references to callbacks: keep them (see ServiceProviderAgent).
        self._completions = model.clock.completions(self._complete_due)
        self._overruns = model.clock.completions(self._overrun)
        self._schedule_background()

    # -- submissions -----------------------------------------------------------------------------
    def new_id(self) -> int:
        """A job id no other job at this site has."""
        self._next_id += 1
        return self._next_id - 1

    def submit(self, job: SiteJob) -> None:
        """Queue ``job`` now (any agent, any time)."""
        if not 1 <= job.nodes <= self.capacity:
            raise SiteError(
                f"nodes: a job of {job.nodes} nodes is wider than {self.name} ({self.capacity})"
            )
        if not job.request > 0 or not job.runtime > 0:
            raise SiteError(f"request: job {job.id} needs a positive wall time and runtime")
        job.submit = self.model.time
        job.bound = self.predictor.bound(job.nodes, job.request)  # checked against its delay
        self.jobs[job.id] = job
        work = job.nodes * job.runtime
        estimate = job.nodes * job.request
        self.queue.append(
            Job.rigid(job.id, job.submit, work, _NOTHING, job.nodes, estimate, client=job.owner)
        )
        self._request_dispatch()

    def _schedule_background(self) -> None:
        i = self._next_background
        if i < len(self._background):
            at = max(float(self._background.submit[i]), self.model.time)
            self.model.clock.at(at, self._arrive)

    def _arrive(self) -> None:
        trace, i = self._background, self._next_background
        self._next_background += 1
        runtime, request = float(trace.runtime[i]), float(trace.request[i])
        self.submit(SiteJob(i, int(trace.nodes[i]), runtime, request))
        self._schedule_background()

    # -- scheduling ------------------------------------------------------------------------------
    def _request_dispatch(self) -> None:
        if not self._dispatch_pending:
            self._dispatch_pending = True
            self.model.clock.at_end_of_instant(self._dispatch)

    def _dispatch(self) -> None:
        """Plan the queue with EASY and start what is due now."""
        self._dispatch_pending = False
        if not self.queue:
            return
        now = self.model.time
        self.profile.trim(now)
        plan = self.scheduler.plan(PlanContext(now, self.profile, self._price), self.queue)
        due = plan.due(now, tolerance=0.0)  # a start a hair later waits for its event
        if due:
            started = {p.job.id for p in due}
            for job_id in started:
                self._start(self.jobs[job_id])
            self.queue = [job for job in self.queue if job.id not in started]

    def _start(self, job: SiteJob) -> None:
        now = self.model.time
        job.start = now
        self.predictor.observe(job.nodes, job.request, now - job.submit)
        hold = max(0.0, job.hold_until - now) if job.hold_until is not None else 0.0
        occupy = hold + job.runtime
        if occupy > job.request and self.kill:
            occupy, job.killed = job.request, True
            self.killed += 1
        self.profile.reserve(now, job.request, job.nodes)
        job.reserved_until = now + job.request
        if occupy > job.request:
            self._overruns.add(job.reserved_until, job.id)
        self.busy += job.nodes
        self.running += 1
        self._completions.add(now + occupy, job.id)
        if job.on_start is not None:
            job.on_start(job)

    def _overrun(self, due: list[int], now: float) -> None:
        """A job runs past its requested wall time without being killed: hold its nodes for
        one more request in the plan."""
        for job_id in due:
            job = self.jobs[job_id]
            if job.end is not None:
                continue
            self.profile.trim(now)
            self.profile.reserve(now, job.request, job.nodes)
            job.reserved_until = now + job.request
            self._overruns.add(job.reserved_until, job.id)

    def _complete_due(self, due: list[int], now: float) -> None:
        for job_id in due:
            job = self.jobs[job_id]
            job.end = now
            if job.reserved_until > now:
                self.profile.release(now, _exactly(now, job.reserved_until), job.nodes)
            self.busy -= job.nodes
            self.running -= 1
            if job.on_end is not None:
                job.on_end(job)
        self.model.note_progress(now)
        self._request_dispatch()
        if self.idle:
            self.model.check_finished()

    # -- state -----------------------------------------------------------------------------------
    @property
    def idle(self) -> bool:
        """Nothing queued or running, the trace replayed, and every user done."""
        return (
            not self.queue
            and not self.running
            and self._next_background >= len(self._background)
            and all(user.exhausted for user in self.users)
        )

    @property
    def background_done(self) -> bool:
        """Every trace job has been submitted."""
        return self._next_background >= len(self._background)

    def summary_rows(self) -> list[dict]:
        """This site's rows of the run summary (:mod:`agents.site_summary`)."""
        return site_rows(self, self.model.time)
