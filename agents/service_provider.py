"""The service provider: admits jobs, plans them, rents processors and runs them for profit.

Popovici & Wilkes SC'05 §3: when offered a job, the service provider runs its admission policy
(§3.4); admitted jobs wait in a queue from which its scheduler builds a preferred plan (§3.3).
A job keeps the shape it was admitted on: admission chose the plan with that shape (§3.4), and
re-shaping it later by the scheduler's standalone rule would undo the choice the admission made.
The scheduler runs "whenever a job arrives, a job completes, or the number of available resources
changes": each run re-plans the queue on the resource provider's forecast and starts every job
planned to start now, renting its processors; the provider then sleeps until the next event or
the next planned start. A started job keeps its processors to the end (no preemption); it is
paid the job's utility at completion and pays the rent for the time it held them. Every admitted
job is completed (§3.1).

Under uncertain capacity (§3.5, §6) a provider with an acceptable ``risk`` plans on the capacity
available with probability ``1 - risk`` and admits only plans that likely (see
:class:`agents.policies.admission.PositiveOpportunity`); without one it is
uncertainty-oblivious and plans on the forecast. When a job is due and fewer processors are free
than planned, it is reshaped to the widest of its shapes that fits now if ``reshape`` is on ("we
allowed the uncertainty-oblivious schedulers to reshape a job if it could not fit at
attempted-execution time", §6), and otherwise waits for the next run.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import mesa
from mesa.time import Event, Priority

from agents.policies.base import Admission, Decision, Placement, Plan, PlanContext, Scheduler
from agents.policies.risk import plan_within_risk, start_early
from agents.resource_provider import Lease, ResourceProviderAgent
from market.jobs import Job
from market.ledger import Kind

if TYPE_CHECKING:
    from market.model import GridMarket


@dataclass(slots=True)
class JobRecord:
    """What happened to a job offered to this provider (one row of the per-job table)."""

    job: Job
    decision: Decision
    committed: bool = False  # the client gave the job to this provider
    processors: int | None = None
    start: float | None = None
    end: float | None = None
    paid: float | None = None  # the utility at completion (negative: a penalty)
    rent: float | None = None
    lease: Lease | None = None

    @property
    def profit(self) -> float | None:
        """Realised profit: what the client paid minus the rent."""
        if self.paid is None or self.rent is None:
            return None
        return self.paid - self.rent


class ServiceProviderAgent(mesa.Agent):
    """Admits, plans and runs jobs on processors rented from one resource provider."""

    def __init__(
        self,
        model: GridMarket,
        name: str,
        scheduler: Scheduler,
        admission: Admission,
        resource_provider: ResourceProviderAgent,
        risk: float | None = None,
        reshape: bool = True,
    ) -> None:
        super().__init__(model)
        self.name = name
        self.scheduler = scheduler
        self.admission = admission
        self.resource_provider = resource_provider
        self.risk = risk
        self.reshape = reshape
        self.reshaped = 0  # jobs started on fewer processors than planned
        resource_provider.tenants.append(self)
        self.queue: list[Job] = []  # admitted, not started
        self.shapes: dict[int, int] = {}  # the shape each queued job was admitted on
        self.records: dict[int, JobRecord] = {}  # every job offered, by id
        self.accepted = 0  # jobs committed to this provider
        self.busy = 0  # processors held now
        self.running = 0  # jobs running now
        self.last_plan = None
        self._completions: list[tuple[float, int]] = []  # (actual end, job id) heap
        # When the completion events still to come are due, latest first: one event per time
        # that becomes the earliest completion, none cancelled, so that Mesa's event heap stays
        # small (a heap of every running job's completion makes every event dearer).
        self._completion_times: list[float] = []
        self._dispatch_event: Event | None = None
        self._wake_event: Event | None = None
        # Event handlers kept as attributes: Mesa holds an event's callable by weak reference,
        # and for a bound method it builds a WeakMethod per event (a tenth of a trace replay's
        # time); a callable the agent keeps gets a plain weak reference, with the same lifetime.
        self._on_dispatch = partial(self._dispatch)
        self._on_wake = partial(self._wake)
        self._on_complete = partial(self._complete_due)
        self._context: tuple[tuple[float, int], PlanContext] | None = None
        # The plan admission made with the last job quoted: (job id, context key, plan), and
        # with the last job committed: (context key, queue ids, plan).
        self._quoted: tuple[int, tuple[float, int], Plan] | None = None
        self._admitted: tuple[tuple[float, int], tuple[int, ...], Plan] | None = None

    # -- what a client sees --------------------------------------------------------------------
    def context(self) -> PlanContext:
        """What this provider knows now: the capacity to plan on, the price and the forecast.

        Built once per instant and state of the resource provider: the quotes of an instant and
        the scheduler run after them share it (and its ``memo``) until a lease or the
        availability changes. Policies never change a context's profile (they plan on copies).
        """
        rp = self.resource_provider
        key = self._context_key()
        now = key[0]
        if self._context is not None and self._context[0] == key:
            return self._context[1]
        if rp.varies:
            forecast = rp.forecast(now)
            capacity = forecast.profile(self.risk)
        else:  # every plan is certain: plan on the pool, as a risk-aware provider would too
            forecast, capacity = None, rp.free_profile(now)
        ctx = PlanContext(now, capacity, rp.price, forecast, self.risk, self.shapes)
        self._context = (key, ctx)
        return ctx

    def capacity_changed(self) -> None:
        """The resource provider's availability changed: run the scheduler again (§3.3)."""
        if self.queue:
            self._request_dispatch()

    def quote(self, job: Job) -> Decision:
        """Run admission control on ``job``; the decision is recorded whatever the client does
        (without its plan, which is kept only until the job is committed)."""
        decision = self.admission.decide(job, self.queue, self.context(), self.scheduler)
        if decision.plan is not None:
            self._quoted = (job.id, self._context[0], decision.plan)
            decision = decision.without_plan()
        self.records[job.id] = JobRecord(job, decision)
        return decision

    def commit(self, job: Job) -> None:
        """The client gives ``job`` to this provider (after an accepting :meth:`quote`)."""
        record = self.records[job.id]
        if not record.decision.accepted:
            raise ValueError(f"{self.name} did not accept job {job.id}")
        record.committed = True
        self.accepted += 1
        self.queue.append(job)
        decision = record.decision
        if decision.processors is not None:
            self.shapes[job.id] = decision.processors
        order = decision.queue_order
        if order is not None:
            position = {job_id: i for i, job_id in enumerate(order)}
            if len(position) != len(self.queue) or any(j.id not in position for j in self.queue):
                raise ValueError(f"{self.name}: the decision's queue order is not the queue's")
            self.queue.sort(key=lambda j: position[j.id])
        plan = self._quoted_plan(job)
        self._admitted = None
        if plan is not None and self._dispatch_event is None:
            due = plan.due(self.model.time)
            if not due or self.model.instant_is_over():
                # Nothing starts now (a run at the end of the instant would only wait), or
                # nothing else happens at this instant (that run is now, on this plan).
                self._follow(plan, due)
                return
        if plan is not None:
            self._admitted = (self._context[0], tuple(j.id for j in self.queue), plan)
        self._request_dispatch()

    def _quoted_plan(self, job: Job) -> Plan | None:
        """The plan admission made with ``job`` (just committed), if this provider plans
        without a risk bound and nothing changed since the quote."""
        quoted, self._quoted = self._quoted, None
        if quoted is None or quoted[0] != job.id or self.risk is not None:
            return None
        if self._context is None or quoted[1] != self._context_key():
            return None
        return quoted[2]  # of the queue with the job, in the order the decision set

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing running."""
        return not self.queue and not self.running

    # -- the scheduler run ---------------------------------------------------------------------
    def _request_dispatch(self) -> None:
        """Re-plan once, after everything else that happens at this instant: at once if nothing
        else is scheduled now (the usual case in a trace replay), else in a low-priority event."""
        if self._dispatch_event is not None:
            return
        if self.model.instant_is_over():
            self._dispatch()
        else:
            self._dispatch_event = self.model.schedule_event(
                self._on_dispatch, at=self.model.time, priority=Priority.LOW
            )

    def _wake(self) -> None:
        self._wake_event = None
        self._request_dispatch()

    def _dispatch(self) -> None:
        self._dispatch_event = None
        if not self.queue:
            self._admitted = None
            self._set_wake(None)
            return
        plan = self._admitted_plan() or plan_within_risk(self.scheduler, self.context(), self.queue)
        self._follow(plan)

    def _follow(self, plan: Plan, due: list[Placement] | None = None) -> None:
        """Carry out ``plan``: start the jobs due now (``due``, if the caller has them), keep
        the queue in plan order if the scheduler compresses, and sleep until the next planned
        start."""
        now = self.model.time
        self.last_plan = plan
        for placement in plan.due(now) if due is None else due:
            if self._start(placement):
                self.queue.remove(placement.job)  # (by identity: jobs compare so)
        if self.scheduler.compresses:
            planned = {p.job.id: p.start for p in plan.placements}
            self.queue.sort(key=lambda job: planned.get(job.id, math.inf))  # stable
        if self.risk is not None:
            self._start_early()
        self._set_wake(plan.next_start(now))

    def _context_key(self) -> tuple[float, int]:
        return self.model.time, self.resource_provider.version

    def _admitted_plan(self) -> Plan | None:
        """The plan admission made with the last job committed, if nothing changed since: the
        same instant, leases and availability, and queue (the job pinned to the shape that plan
        gave it, which leaves a scheduler's plan as it was)."""
        admitted, self._admitted = self._admitted, None
        if admitted is None:
            return None
        key, ids, plan = admitted
        if key != self._context_key() or len(ids) != len(self.queue):
            return None
        if any(i != job.id for i, job in zip(ids, self.queue, strict=True)):
            return None
        return plan

    def _start_early(self) -> None:
        """Risk-aware: start jobs ahead of the plan on processors free now while
        :func:`agents.policies.risk.start_early` finds one worth it."""
        while self.queue:
            ctx = self.context()
            current = plan_within_risk(self.scheduler, ctx, self.queue)
            early = start_early(self.scheduler, ctx, self.queue, current)
            if early is None or not self._start(early):
                return
            self.queue.remove(early.job)

    def _set_wake(self, at: float | None) -> None:
        if self._wake_event is not None:
            if self._wake_event.time == at:
                return
            self._wake_event.cancel()
            self._wake_event = None
        if at is not None:
            self._wake_event = self.model.schedule_event(self._on_wake, at=at)

    def _start(self, placement: Placement) -> bool:
        job, n = placement.job, placement.processors
        now = self.model.time
        rp = self.resource_provider
        lease = rp.rent(self.name, n, now + job.predicted_runtime(n), job.id)
        if lease is None and self.reshape:
            fits = [m for m in job.shapes if m <= rp.available()]
            if fits:
                n = fits[-1]
                lease = rp.rent(self.name, n, now + job.predicted_runtime(n), job.id)
                self.reshaped += 1
        if lease is None:
            return False  # fewer processors free than planned: wait for the next run
        record = self.records[job.id]
        record.processors, record.start, record.lease = n, now, lease
        self.shapes.pop(job.id, None)
        self.busy += n
        self.running += 1
        end = now + job.runtime(n)
        heapq.heappush(self._completions, (end, job.id))
        self._expect_completion(end)
        return True

    def _expect_completion(self, end: float) -> None:
        """Make sure an event comes at ``end`` if no earlier one is scheduled: each completion
        event schedules the next (see :meth:`_complete_due`)."""
        times = self._completion_times
        if not times or end < times[-1]:
            times.append(end)
            self.model.schedule_event(self._on_complete, at=end, priority=Priority.HIGH)

    def _complete_due(self) -> None:
        """Every job of this provider due to end now ends: it gives its processors back and is
        paid for; then the scheduler runs (§3.3)."""
        now = self.model.time
        ledger = self.model.ledger
        self._completion_times.pop()  # this event's
        completions = self._completions
        while completions and completions[0][0] <= now:
            _, job_id = heapq.heappop(completions)
            record = self.records[job_id]
            record.rent = self.resource_provider.release(record.lease)
            record.lease = None
            record.end = now
            record.paid = record.job.utility(now)
            ledger.settle(now, record.job.client or "client", self.name, record.paid, job_id)
            self.busy -= record.processors
            self.running -= 1
        if completions:
            self._expect_completion(completions[0][0])
        self._request_dispatch()
        if self.idle:  # the market can only have finished if this provider is idle
            self.model.check_finished()

    # -- money -------------------------------------------------------------------------------
    @property
    def revenue(self) -> float:
        """Payments received minus penalties paid."""
        ledger = self.model.ledger
        return ledger.received(self.name, Kind.PAYMENT) - ledger.paid(self.name, Kind.PENALTY)

    @property
    def rent_paid(self) -> float:
        """Rent paid so far (for finished leases)."""
        return self.model.ledger.paid(self.name, Kind.RENT)

    @property
    def profit(self) -> float:
        """Revenue minus rent so far."""
        return self.revenue - self.rent_paid
