"""The service provider: admits jobs, plans them, rents processors and runs them for profit.

Popovici & Wilkes SC'05 §3: an offered job goes through admission (§3.4, :meth:`quote`); a
committed job waits in the queue its scheduler plans (§3.3), keeping the shape admission chose.
The scheduler runs "whenever a job arrives, a job completes, or the number of available resources
changes" (:meth:`dispatch`): it starts every job planned to start now, renting its processors,
then sleeps until the next planned start. A started job keeps its processors to the end and is
paid at completion (§3.1). Under uncertain capacity (§3.5, §6) a provider with a ``risk`` plans
on the capacity available with probability ``1 - risk``; a due job that does not fit is reshaped
to its widest shape that fits if ``reshape`` is on (§6), else it waits. What to plan is the
:class:`~agents.planner.Planner`'s (one per pool, :mod:`agents.pool_choice`); prices are the
:class:`~agents.sales.Sales`'.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mesa.time import Event

from agents.planner import Planner
from agents.policies.base import Admission, Decision, Placement, Plan, Scheduler
from agents.policies.pricing import Pricing, UtilityPricing
from agents.pool_choice import choose_pool, merged
from agents.provider import Provider
from agents.records import JobRecord
from agents.resource_provider import ResourceProviderAgent
from agents.sales import Sales
from market.core.jobs import Job

if TYPE_CHECKING:
    from market.sim.model import GridMarket


class ServiceProviderAgent(Provider):
    """Admits, prices, plans and runs jobs on processors rented from its resource providers.

    Its life: :meth:`quote` (admission), :meth:`commit` (queue the job), :meth:`dispatch` (the
    scheduler run: start what is due), :meth:`start` (rent and run), :meth:`complete` (release,
    get paid, run the scheduler again).
    """

    def __init__(
        self,
        model: GridMarket,
        name: str,
        scheduler: Scheduler,
        admission: Admission,
        resource_provider: ResourceProviderAgent | Sequence[ResourceProviderAgent],
        risk: float | None = None,
        reshape: bool = True,
        pricing: Pricing | None = None,
    ) -> None:
        super().__init__(model, name, resource_provider)
        pools, fast = self.pools, model.clock.fast
        # One planner per pool; each with its own copy of the (possibly adaptive) policies.
        self.planners = [Planner(scheduler, admission, pools[0], risk, fast)] + [
            Planner(copy.deepcopy(scheduler), copy.deepcopy(admission), pool, risk, fast)
            for pool in pools[1:]
        ]
        self.planner = self.planners[0]
        # Each planner with its pool, paired once: dispatch walks them on every scheduler run.
        self._pooled = list(zip(self.planners, pools, strict=True))
        self.sales = Sales(pricing if pricing is not None else UtilityPricing())
        self.reshape = reshape
        self.reshaped = 0  # jobs started on fewer processors than planned
        self.completions = model.clock.completions(self.complete)
        self._plans: list[Plan] = []  # the latest scheduler run's plans (pools with jobs)
        self._dispatch_event: Event | None = None
        self._wake_event: Event | None = None

    scheduler = property(lambda self: self.planner.scheduler)  # (the first pool's policies)
    admission = property(lambda self: self.planner.admission)

    @property
    def queue(self) -> list[Job]:
        """Admitted jobs waiting to start, in the order plans take them (pool by pool)."""
        return [job for planner in self.planners for job in planner.queue]

    @property
    def waiting(self) -> bool:
        """Whether admitted jobs wait to start (on any pool)."""
        for planner in self.planners:  # noqa: SIM110  (a loop: asked after every end)
            if planner.queue:
                return True
        return False

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing running."""
        return not self.running and not self.waiting

    @property
    def last_plan(self) -> Plan | None:
        """The plan of the latest scheduler run that had jobs to plan (every pool's in one)."""
        return merged(self._plans)

    # -- what a client sees --------------------------------------------------------------------
    def quote(self, job: Job) -> Decision:
        """Run admission control on ``job`` (on every pool, keeping the best) and price it; the
        decision and its terms are recorded whatever the client does."""
        decision, pool = choose_pool(self.planners, job, self.model.clock.now)
        record = self.records[job.id] = JobRecord(job, decision, pool=pool)
        if decision.accepted:
            self.sales.quote(record, self.planners[pool].confidence)
        return decision

    def commit(self, job: Job) -> None:
        """The client gives ``job`` to this provider (after an accepting :meth:`quote`)."""
        record = self.records[job.id]
        if not record.decision.accepted:
            raise ValueError(f"{self.name} did not accept job {job.id}")
        record.committed = True
        self.accepted += 1
        self.sales.win(record)
        self.planners[record.pool].admit(job, record.decision, self.model.clock.now)
        need, pool = self.least_need(job), self.pools[record.pool]
        if pool.mean_wait(need) > self.model.stall_after:  # (never, or essentially never)
            self.model.note_never_runs(self, job, need, pool)
        self._request_dispatch()

    def least_need(self, job: Job) -> int:
        """The fewest processors ``job`` can start on here: its narrowest shape if it may be
        reshaped when due, else its admitted shape (or the narrowest its scheduler runs)."""
        if self.reshape:
            return job.shapes[0]
        admitted = self.planners[self.records[job.id].pool].shapes.get(job.id)
        return admitted if admitted is not None else min(self.scheduler.shapes(job))

    def capacity_changed(self) -> None:
        """The resource provider's availability changed: run the scheduler again (§3.3)."""
        if self.waiting:
            self._request_dispatch()

    # -- the scheduler run ---------------------------------------------------------------------
    def _request_dispatch(self) -> None:
        """Run the scheduler once, after everything else that happens at this instant."""
        if self._dispatch_event is None:
            self._dispatch_event = self.model.clock.at_end_of_instant(self.dispatch)

    def _wake(self) -> None:
        self._wake_event = None
        self._request_dispatch()

    def dispatch(self) -> None:
        """Start every job each pool's plan has due now; sleep until the earliest next start.
        A plan with a due job that could not start wakes nobody: it, and the jobs planned after
        it, wait for something to change (a draw, an outage, processors returned, an arrival, a
        completion: each runs the scheduler again), never waking in between to plan the same
        (which would spin through a long stall)."""
        self._dispatch_event = None
        now = self.model.clock.now
        plans, wake = [], None
        for planner, pool in self._pooled:
            if planner.queue:
                plan, stuck = self._dispatch_pool(planner, pool, now)
                plans.append(plan)
                at = None if stuck else plan.next_start(now)
                if at is not None and (wake is None or at < wake):
                    wake = at
        if plans:
            self._plans = plans
        self._set_wake(wake, now)

    def _dispatch_pool(
        self, planner: Planner, pool: ResourceProviderAgent, now: float
    ) -> tuple[Plan, bool]:
        """The scheduler run on one pool: start its due jobs; the plan, and whether a due job
        could not start."""
        plan, stuck = planner.plan(now), False
        for placement in plan.due(now):
            if self.start(placement, pool, now):
                planner.started(placement.job)
            else:
                stuck = True
        if planner.scheduler.compresses:
            planner.compress(plan)
        if planner.risk is not None:  # processors free now carry no risk (§3.5)
            while (early := planner.early_start(now)) is not None and self.start(early, pool, now):
                planner.started(early.job)
        return plan, stuck

    def _set_wake(self, at: float | None, now: float) -> None:
        """Wake at ``at`` (on the clock's grid; None: no wake-up), moving any earlier one."""
        if at is not None:
            wake = self.model.clock.snap(at)
            # Never rounded back to now, where the start is not yet due (waking now would plan
            # the same and wake now again, for ever).
            at = wake if wake > now else at
        if self._wake_event is not None:
            if self._wake_event.time == at:
                return
            self._wake_event.cancel()
            self._wake_event = None
        if at is not None:
            self._wake_event = self.model.clock.at(at, self._wake)

    def start(self, placement: Placement, pool: ResourceProviderAgent, now: float) -> bool:
        """Rent processors for ``placement`` from ``pool`` and run its job now; False if too few
        are free (then it waits for the next run), unless ``reshape`` narrows it to the widest
        shape that fits."""
        job, n = placement.job, placement.processors
        end_of = self.model.clock.end_of
        lease = pool.rent(self.name, n, end_of(now, job.predicted_runtime(n)), job.id)
        if lease is None and self.reshape:
            fits = [m for m in job.shapes if m <= pool.available()]
            if fits:
                n = fits[-1]
                lease = pool.rent(self.name, n, end_of(now, job.predicted_runtime(n)), job.id)
                self.reshaped += 1
        if lease is None:
            return False
        record = self.records[job.id]
        record.processors, record.start, record.lease = n, now, lease
        self.busy += n
        self.running += 1
        self.completions.add(end_of(now, job.runtime(n)), job.id)  # (never before now)
        return True

    def complete(self, job_ids: list[int], now: float) -> None:
        """These jobs end ``now``: each gives its processors back and is paid for by its terms;
        then the scheduler runs (§3.3) and the pools' other tenants are told."""
        ledger, sales, freed = self.model.ledger, self.sales, set()
        for job_id in job_ids:
            record = self.records[job_id]
            record.rent = self.pools[record.pool].release(record.lease)
            record.lease = None
            record.end = now
            record.paid = sales.payment(record, now)
            ledger.settle(now, record.job.client or "client", self.name, record.paid, job_id)
            self.busy -= record.processors
            self.running -= 1
            freed.add(record.pool)
        self.model.note_progress(now)
        if self.waiting:  # (else nothing to start, no wake-up)
            self._request_dispatch()
        for i in sorted(freed):
            self.pools[i].freed(self)  # other tenants may now start their jobs
        if self.idle:  # the market can only have finished if this provider is idle
            self.model.check_finished()

    # -- the sales figures by the names the results read -----------------------------------------
    pricing = property(lambda self: self.sales.pricing)
    quoted = property(lambda self: self.sales.quoted)
    won_price = property(lambda self: self.sales.won_price)
    won_markup = property(lambda self: self.sales.won_markup)
    won_markups = property(lambda self: self.sales.won_markups)
    client_surplus = property(lambda self: self.sales.client_surplus)
