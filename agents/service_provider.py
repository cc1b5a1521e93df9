"""The service provider: admits jobs, plans them, rents processors and runs them for profit.

Popovici & Wilkes SC'05 §3: when offered a job, the service provider runs its admission policy
(§3.4); admitted jobs wait in a queue from which its scheduler builds a preferred plan (§3.3).
A job keeps the shape it was admitted on: admission chose the plan with that shape (§3.4), and
re-shaping it later by the scheduler's standalone rule would undo the choice the admission made.
The scheduler runs "whenever a job arrives, a job completes, or the number of available resources
changes": each run re-plans the queue on the resource provider's forecast and starts every job
planned to start now, renting its processors; the provider then sleeps until the next event or
the next planned start. A started job keeps its processors to the end (no preemption); it is
paid at completion and pays the rent for the time it held them. Every admitted job is completed
(§3.1).

In a competing market (issue 18) the provider also prices what it accepts: its ``pricing``
policy (:mod:`agents.policies.pricing`) turns the admission decision into a
:class:`~market.core.quotes.PriceQuote`, and the client pays by its terms (the job's utility under
the
default ``utility`` pricing, as in the papers). It may rent from several resource providers: it
keeps one :class:`~agents.planner.Planner` per pool, asks each at every quote, and takes the pool
whose plan with the job is most rewarding within its risk level (the largest ``gain`` of its
admission's reward metric, else the largest expected profit; ties go to the pool listed first);
the job is then planned, rented and paid for on that pool only, so leases (and the ledger) stay
per resource provider.

Under uncertain capacity (§3.5, §6) a provider with an acceptable ``risk`` plans on the capacity
available with probability ``1 - risk`` and admits only plans that likely (see
:class:`agents.policies.admission.PositiveOpportunity`); without one it is
uncertainty-oblivious and plans on the forecast. When a job is due and fewer processors are free
than planned, it is reshaped to the widest of its shapes that fits now if ``reshape`` is on ("we
allowed the uncertainty-oblivious schedulers to reshape a job if it could not fit at
attempted-execution time", §6), and otherwise waits for the next run.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import mesa
from mesa.time import Event

from agents.planner import Planner
from agents.policies.base import Admission, Decision, Placement, Plan, Scheduler
from agents.policies.pricing import Pricing, UtilityPricing
from agents.resource_provider import Lease, ResourceProviderAgent
from market.core.jobs import Job
from market.core.ledger import Kind
from market.core.quotes import PriceQuote

if TYPE_CHECKING:
    from market.sim.model import GridMarket


@dataclass(slots=True)
class JobRecord:
    """What happened to a job offered to this provider (one row of the per-job table)."""

    job: Job
    decision: Decision
    committed: bool = False  # the client gave the job to this provider
    processors: int | None = None
    start: float | None = None
    end: float | None = None
    paid: float | None = None  # what the client paid at completion (negative: a penalty)
    rent: float | None = None
    lease: Lease | None = None
    quote: PriceQuote | None = None  # the price terms offered (None: the job's utility)
    pool: int = 0  # which of the provider's resource providers it was planned on

    @property
    def surplus(self) -> float | None:
        """The client's surplus: its utility at completion minus what it paid."""
        if self.paid is None or self.end is None:
            return None
        if self.quote is None or self.quote.price is None:  # it paid its utility at completion
            return 0.0
        return self.job.utility(self.end) - self.paid

    @property
    def profit(self) -> float | None:
        """Realised profit: what the client paid minus the rent."""
        if self.paid is None or self.rent is None:
            return None
        return self.paid - self.rent


class ServiceProviderAgent(mesa.Agent):
    """Admits, prices, plans and runs jobs on processors rented from its resource providers.

    Its life: :meth:`quote` (admission), :meth:`commit` (queue the job), :meth:`dispatch` (the
    scheduler run: start what is due), :meth:`start` (rent and run), :meth:`complete` (release,
    get paid, run the scheduler again). What to plan is the :class:`~agents.planner.Planner`'s.
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
        super().__init__(model)
        self.name = name
        pools = (
            [resource_provider]
            if isinstance(resource_provider, ResourceProviderAgent)
            else list(resource_provider)
        )
        self.pools = pools
        self.resource_provider = pools[0]  # the first (the only one, as in the papers)
        fast = model.clock.fast
        # One planner per pool; each with its own copy of the (possibly adaptive) policies.
        self.planners = [Planner(scheduler, admission, pools[0], risk, fast)] + [
            Planner(copy.deepcopy(scheduler), copy.deepcopy(admission), pool, risk, fast)
            for pool in pools[1:]
        ]
        self.planner = self.planners[0]
        self.planners_are_one = len(self.planners) == 1
        self.pricing = pricing if pricing is not None else UtilityPricing()
        self.open = True  # takes quotes (see market.sim.model: a provider may enter later)
        self.reshape = reshape
        self.reshaped = 0  # jobs started on fewer processors than planned
        for pool in pools:
            pool.tenants.append(self)
        self.quoted = 0  # accepting quotes made
        self.quoted_ids: deque[int] = deque(maxlen=max(self.pricing.window, 1))
        self.won_price = 0.0  # sum of the expected prices of the quotes won
        self.won_markup = 0.0  # sum of the markups of the quotes won (those with a markup)
        self.won_markups = 0
        self.client_surplus = 0.0  # clients' utility at completion minus what they paid
        self.records: dict[int, JobRecord] = {}  # every job offered, by id
        self.accepted = 0  # jobs committed to this provider
        self.busy = 0  # processors held now
        self.running = 0  # jobs running now
        self.last_plan = None
        self.completions = model.clock.completions(self.complete)
        self._dispatch_event: Event | None = None
        self._wake_event: Event | None = None
        self._blocked: list[Plan] = []  # plans with a due job that could not start (dispatch)

    @property
    def scheduler(self) -> Scheduler:
        return self.planner.scheduler

    @property
    def admission(self) -> Admission:
        return self.planner.admission

    @property
    def risk(self) -> float | None:
        return self.planner.risk

    @property
    def queue(self) -> list[Job]:
        """Admitted jobs waiting to start, in the order plans take them (pool by pool)."""
        if self.planners_are_one:
            return self.planner.queue
        return [job for planner in self.planners for job in planner.queue]

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing running."""
        return not self.running and not self.waiting

    @property
    def waiting(self) -> bool:
        """Whether admitted jobs wait to start (on any pool)."""
        if self.planners_are_one:
            return bool(self.planner.queue)
        return any(planner.queue for planner in self.planners)

    # -- what a client sees --------------------------------------------------------------------
    def quote(self, job: Job, now: float | None = None) -> Decision:
        """Run admission control on ``job`` (on every pool, keeping the best) and price it; the
        decision and its terms are recorded whatever the client does. ``now``: the model's
        time, if the caller has it."""
        if now is None:
            now = self.model.time
        decision, pool = self.planner.quote(job, now), 0
        if not self.planners_are_one:
            for i, planner in enumerate(self.planners[1:], start=1):
                other = planner.quote(job, now)
                if other.accepted and (not decision.accepted or _merit(other) > _merit(decision)):
                    decision, pool = other, i
        record = self.records[job.id] = JobRecord(job, decision, pool=pool)
        if decision.accepted:
            pricing, planner = self.pricing, self.planners[pool]
            wins = ()
            if pricing.window:
                wins = [self.records[i].committed for i in self.quoted_ids]
                self.quoted_ids.append(job.id)
            sure = planner.risk is None or not planner.pool.varies
            record.quote = pricing.quote(job, decision, wins, 1.0 if sure else 1.0 - planner.risk)
            self.quoted += 1
        return decision

    def terms(self, job: Job) -> PriceQuote | None:
        """The price terms quoted for ``job`` (None if it was not accepted here)."""
        record = self.records.get(job.id)
        return record.quote if record is not None else None

    def enter(self) -> None:
        """Open for quotes from now on (a provider entering the market, scenario ``enters``)."""
        self.open = True

    def set_markup(self, markup: float) -> None:
        """Price from now on with base markup ``markup`` (>= 0; the dashboard's market view)."""
        self.pricing = self.pricing.with_markup(markup)

    def commit(self, job: Job, now: float | None = None) -> None:
        """The client gives ``job`` to this provider (after an accepting :meth:`quote`) at
        ``now`` (the model's time, if the caller has it)."""
        record = self.records[job.id]
        if not record.decision.accepted:
            raise ValueError(f"{self.name} did not accept job {job.id}")
        record.committed = True
        self.accepted += 1
        if record.quote is not None:
            self.won_price += record.quote.expected_price(job)
            if record.quote.markup == record.quote.markup:  # (not NaN)
                self.won_markup += record.quote.markup
                self.won_markups += 1
        if now is None:
            now = self.model.time
        self.planners[record.pool].admit(job, record.decision, now)
        need, pool = self.least_need(job), self.pools[record.pool]
        if pool.mean_wait(need) > self.model.stall_after:  # (never, or essentially never)
            self.model.note_never_runs(self, job, need, pool)
        self._request_dispatch(now)

    def least_need(self, job: Job) -> int:
        """The fewest processors ``job`` can start on here: its narrowest shape if it may be
        reshaped when due, else the shape it was admitted on (or the narrowest its scheduler
        runs)."""
        if self.reshape:
            return job.shapes[0]
        admitted = self.planners[self.records[job.id].pool].shapes.get(job.id)
        return admitted if admitted is not None else min(self.scheduler.shapes(job))

    def capacity_changed(self) -> None:
        """The resource provider's availability changed: run the scheduler again (§3.3)."""
        if self.waiting:
            self._request_dispatch()

    # -- the scheduler run ---------------------------------------------------------------------
    def _request_dispatch(self, now: float | None = None) -> None:
        """Run the scheduler once, after everything else that happens at this instant (``now``,
        if the caller has it)."""
        if self._dispatch_event is None:
            self._dispatch_event = self.model.clock.at_end_of_instant(self.dispatch, now)

    def _wake(self) -> None:
        self._wake_event = None
        self._request_dispatch()

    def dispatch(self) -> None:
        """Start every job the plan has due now; sleep until its next planned start (with
        several pools: each pool's plan in turn, until the earliest next start of them)."""
        self._dispatch_event = None
        self._blocked = []
        now = self.model.clock.now
        if self.planners_are_one:
            plan = self._dispatch_pool(self.planner, self.resource_provider, now)
            if plan is not None:
                self.last_plan = plan
            self._set_wake(self._next_start(plan, now) if plan is not None else None, now)
            return
        plans = [
            plan
            for planner, pool in zip(self.planners, self.pools, strict=True)
            if (plan := self._dispatch_pool(planner, pool, now)) is not None
        ]
        self.last_plan = Plan(now, [p for plan in plans for p in plan.placements])
        self._set_wake(
            min((w for p in plans if (w := self._next_start(p, now)) is not None), default=None),
            now,
        )

    def _next_start(self, plan: Plan, now: float) -> float | None:
        """When ``plan`` starts its next job (None: no wake-up). None too when a job it had due
        now could not start: it, and the jobs planned after it, wait for something to change
        (an availability draw or an outage, processors returned to the pool, an arrival, a
        completion: each runs the scheduler again), never waking in between to plan the same
        (which, each predicted end apart, would spin through a long stall)."""
        if any(plan is blocked for blocked in self._blocked):
            return None
        return plan.next_start(now)

    def _dispatch_pool(
        self, planner: Planner, pool: ResourceProviderAgent, now: float
    ) -> Plan | None:
        """The scheduler run on one pool: start its due jobs; the plan (None: nothing queued)."""
        if not planner.queue:
            return None
        plan = planner.plan(now)
        for placement in plan.due(now):
            if self.start(placement, pool, now):
                planner.started(placement.job)
            elif not self._blocked or self._blocked[-1] is not plan:
                self._blocked.append(plan)  # (see _next_start)
        if planner.scheduler.compresses:
            planner.compress(plan)
        if planner.risk is not None:  # processors free now carry no risk (§3.5)
            while (early := planner.early_start(now)) is not None and self.start(early, pool, now):
                planner.started(early.job)
        return plan

    def _set_wake(self, at: float | None, now: float | None = None) -> None:
        """Wake at ``at`` (on the clock's grid; None: no wake-up), moving any earlier one;
        ``now`` is the model's time, if the caller has it."""
        if at is not None:
            if now is None:
                now = self.model.time
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

    def start(
        self,
        placement: Placement,
        pool: ResourceProviderAgent | None = None,
        now: float | None = None,
    ) -> bool:
        """Rent processors for ``placement`` (from ``pool``, the first by default) and run its
        job now (``now``: the model's time, if the caller has it); False if too few are free
        (then it waits for the next run), unless ``reshape`` narrows it to the widest shape that
        fits."""
        job, n = placement.job, placement.processors
        if now is None:
            now = self.model.time
        rp, end_of = pool or self.resource_provider, self.model.clock.end_of
        lease = rp.rent(self.name, n, end_of(now, job.predicted_runtime(n)), job.id, now)
        if lease is None and self.reshape:
            fits = [m for m in job.shapes if m <= rp.available()]
            if fits:
                n = fits[-1]
                lease = rp.rent(self.name, n, end_of(now, job.predicted_runtime(n)), job.id, now)
                self.reshaped += 1
        if lease is None:
            return False
        record = self.records[job.id]
        record.processors, record.start, record.lease = n, now, lease
        self.busy += n
        self.running += 1
        self.completions.add(end_of(now, job.runtime(n)), job.id)  # (never before now)
        return True

    def complete(self, job_ids: list[int], now: float | None = None) -> None:
        """These jobs end now (``now``: the model's time, if the caller has it): each gives its
        processors back and is paid for; then the scheduler runs (§3.3)."""
        if now is None:
            now = self.model.time
        ledger = self.model.ledger
        for job_id in job_ids:
            record = self.records[job_id]
            record.rent = self.pools[record.pool].release(record.lease, now)
            record.lease = None
            record.end = now
            quote = record.quote
            if quote is None or quote.price is None:  # the papers' contract: the utility
                record.paid = record.job.utility(now)
            else:
                record.paid = quote.payment(record.job, now)
                self.client_surplus += record.job.utility(now) - record.paid
            client = record.job.client or "client"
            ledger.settle(now, client, self.name, record.paid, job_id)
            self.busy -= record.processors
            self.running -= 1
        self.model.note_progress(now)
        if self.waiting:  # (else nothing to start, no wake-up)
            self._request_dispatch(now)
        if self.planners_are_one:
            self.resource_provider.freed(self)  # other tenants may now start their jobs
        else:
            for i in sorted({self.records[job_id].pool for job_id in job_ids}):
                self.pools[i].freed(self)
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


def _merit(decision: Decision) -> float:
    """How good a pool's accepting decision is for the provider: the rise of its plan's reward
    (its admission's ``gain``), else the job's expected profit."""
    if decision.gain is not None:
        return decision.gain
    return decision.expected_profit if decision.expected_profit is not None else 0.0
