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

from dataclasses import dataclass
from typing import TYPE_CHECKING

import mesa
from mesa.time import Event

from agents.planner import Planner
from agents.policies.base import Admission, Decision, Placement, Scheduler
from agents.resource_provider import Lease, ResourceProviderAgent
from market.clock import Completions, handler
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
    """Admits, plans and runs jobs on processors rented from one resource provider.

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
        resource_provider: ResourceProviderAgent,
        risk: float | None = None,
        reshape: bool = True,
    ) -> None:
        super().__init__(model)
        self.name = name
        self.resource_provider = resource_provider
        self.planner = Planner(scheduler, admission, resource_provider, risk, model.clock.fast)
        self.reshape = reshape
        self.reshaped = 0  # jobs started on fewer processors than planned
        resource_provider.tenants.append(self)
        self.records: dict[int, JobRecord] = {}  # every job offered, by id
        self.accepted = 0  # jobs committed to this provider
        self.busy = 0  # processors held now
        self.running = 0  # jobs running now
        self.last_plan = None
        self.completions = Completions(model.clock, self.complete)
        self._dispatch_event: Event | None = None
        self._wake_event: Event | None = None
        self._on_dispatch = handler(self.dispatch)  # kept: see market.clock.handler
        self._on_wake = handler(self._wake)

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
        """Admitted jobs waiting to start, in the order plans take them."""
        return self.planner.queue

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing running."""
        return not self.planner.queue and not self.running

    # -- what a client sees --------------------------------------------------------------------
    def quote(self, job: Job) -> Decision:
        """Run admission control on ``job``; the decision is recorded whatever the client does."""
        decision = self.planner.quote(job, self.model.time)
        self.records[job.id] = JobRecord(job, decision)
        return decision

    def commit(self, job: Job) -> None:
        """The client gives ``job`` to this provider (after an accepting :meth:`quote`)."""
        record = self.records[job.id]
        if not record.decision.accepted:
            raise ValueError(f"{self.name} did not accept job {job.id}")
        record.committed = True
        self.accepted += 1
        self.planner.admit(job, record.decision, self.model.time)
        need = self.least_need(job)
        if need > self.resource_provider.most_available:
            self.model.note_never_runs(self, job, need)
        self._request_dispatch()

    def least_need(self, job: Job) -> int:
        """The fewest processors ``job`` can start on here: its narrowest shape if it may be
        reshaped when due, else the shape it was admitted on (or the narrowest its scheduler
        runs)."""
        if self.reshape:
            return job.shapes[0]
        admitted = self.planner.shapes.get(job.id)
        return admitted if admitted is not None else min(self.scheduler.shapes(job))

    def capacity_changed(self) -> None:
        """The resource provider's availability changed: run the scheduler again (§3.3)."""
        if self.planner.queue:
            self._request_dispatch()

    # -- the scheduler run ---------------------------------------------------------------------
    def _request_dispatch(self) -> None:
        """Run the scheduler once, after everything else that happens at this instant."""
        if self._dispatch_event is None:
            self._dispatch_event = self.model.clock.at_end_of_instant(self._on_dispatch)

    def _wake(self) -> None:
        self._wake_event = None
        self._request_dispatch()

    def dispatch(self) -> None:
        """Start every job the plan has due now; sleep until its next planned start."""
        self._dispatch_event = None
        now = self.model.time
        planner = self.planner
        if not planner.queue:
            self._set_wake(None)
            return
        plan = self.last_plan = planner.plan(now)
        for placement in plan.due(now):
            if self.start(placement):
                planner.started(placement.job)
        if planner.scheduler.compresses:
            planner.compress(plan)
        if planner.risk is not None:  # processors free now carry no risk (§3.5)
            while (early := planner.early_start(now)) is not None and self.start(early):
                planner.started(early.job)
        self._set_wake(plan.next_start(now))

    def _set_wake(self, at: float | None) -> None:
        """Wake at ``at`` (on the clock's grid; None: no wake-up), moving any earlier one."""
        if at is not None:
            wake = self.model.clock.snap(at)
            # Never rounded back to now, where the start is not yet due (waking now would plan
            # the same and wake now again, for ever).
            at = wake if wake > self.model.time else at
        if self._wake_event is not None:
            if self._wake_event.time == at:
                return
            self._wake_event.cancel()
            self._wake_event = None
        if at is not None:
            self._wake_event = self.model.clock.at(at, self._on_wake)

    def start(self, placement: Placement) -> bool:
        """Rent processors for ``placement`` and run its job; False if too few are free (then it
        waits for the next run), unless ``reshape`` narrows it to the widest shape that fits."""
        job, n = placement.job, placement.processors
        now = self.model.time
        rp, snap = self.resource_provider, self.model.clock.snap
        lease = rp.rent(self.name, n, snap(now + job.predicted_runtime(n)), job.id)
        if lease is None and self.reshape:
            fits = [m for m in job.shapes if m <= rp.available()]
            if fits:
                n = fits[-1]
                lease = rp.rent(self.name, n, snap(now + job.predicted_runtime(n)), job.id)
                self.reshaped += 1
        if lease is None:
            return False
        record = self.records[job.id]
        record.processors, record.start, record.lease = n, now, lease
        self.busy += n
        self.running += 1
        self.completions.add(snap(now + job.runtime(n)), job.id)
        return True

    def complete(self, job_ids: list[int]) -> None:
        """These jobs end now: each gives its processors back and is paid for; then the
        scheduler runs (§3.3)."""
        now = self.model.time
        for job_id in job_ids:
            record = self.records[job_id]
            record.rent = self.resource_provider.release(record.lease)
            record.lease = None
            record.end = now
            record.paid = record.job.utility(now)
            client = record.job.client or "client"
            self.model.ledger.settle(now, client, self.name, record.paid, job_id)
            self.busy -= record.processors
            self.running -= 1
        self.model.note_progress()
        if self.planner.queue:  # (an empty queue has nothing to start and no wake-up set)
            self._request_dispatch()
        self.resource_provider.freed(self)  # other tenants may now start their jobs
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
