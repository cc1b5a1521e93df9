"""The planner: a service provider's queue and everything it plans with, free of Mesa.

The service provider agent says *when* to plan (quote, commit, scheduler run, starts); the
planner says *what*: it keeps the waiting queue in its policies' order and the shape each job was
admitted on (Popovici & Wilkes SC'05 §3.4: a job keeps the shape admission chose), builds the
planning context from the resource provider's pool and calls the pure policies; under uncertain
capacity it plans within the acceptable risk (§3.5, :mod:`agents.policies.risk`) and starts jobs
early where that pays. With ``reuse`` (the model's ``fast`` switch, :mod:`market.sim.clock`) it
keeps one :class:`~agents.policies.base.PlanContext` per (instant, pool ``version``), follows
the plan admission built when nothing changed before the next scheduler run, and lets a
scheduler extend the plan it followed last by a newly offered job while the pool, its leases'
ends and the queue are as they were (:meth:`Scheduler.extend`): plans are pure functions of
(context, queue, pins), so each is the plan planning again would build.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Protocol

from agents.policies.base import (
    Admission,
    Decision,
    Placement,
    Plan,
    PlanContext,
    Scheduler,
    placement,
)
from agents.policies.risk import plan_within_risk, start_early
from market.core.capacity import CapacityProfile
from market.core.forecast import Forecast
from market.core.jobs import Job
from market.core.rent import PriceSchedule


class Pool(Protocol):
    """What the planner reads of a resource provider."""

    price: PriceSchedule
    varies: bool  # whether availability ever differs from the pool
    version: int  # bumped whenever leases or availability change

    def forecast(self, now: float) -> Forecast: ...

    def free_profile(self, now: float) -> CapacityProfile: ...

    def ends_between(self, after: float, until: float) -> bool: ...


class _Recorder(Scheduler):
    """The scheduler as admission sees it: plans as the scheduler does, and remembers those
    built on the planner's own context (to reuse the one the decision was made on)."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.inner = scheduler
        self.compresses = scheduler.compresses
        self.plans_in_order = scheduler.plans_in_order
        self.name = scheduler.name
        self.ctx: PlanContext | None = None
        self.plans: list[tuple[Sequence[Job], Mapping[int, int] | None, Plan]] = []
        # The plan of the queue that still holds on ``ctx`` (the queue then, the plan), if any
        self.held: tuple[list[Job], Plan] | None = None

    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        plan = None
        if ctx is self.ctx:
            held = self.held
            if (
                held is not None
                and len(queue) == len(held[0]) + 1
                and (not pinned or pinned.keys() <= {queue[-1].id})
                and queue[:-1] == held[0]  # (the queue before the job, by identity)
            ):
                plan = self.inner.extend(held[1], ctx, queue[-1], pinned)
            if plan is None:
                plan = self.inner.plan(ctx, queue, pinned)
            self.plans.append((queue, pinned, plan))
            return plan
        return self.inner.plan(ctx, queue, pinned)

    def shapes(self, job: Job) -> tuple[int, ...]:
        return self.inner.shapes(job)

    def reward(self, plan: Plan, ctx: PlanContext) -> float:
        return self.inner.reward(plan, ctx)

    def made_with(self, job: Job, decision: Decision, jobs: list[Job]) -> Plan | None:
        """The plan recorded of ``jobs`` (in that order) with ``job`` on the shape the decision
        gave it (pinned there, or placed there unpinned: pinning a job to the shape a plan gave
        it leaves the plan as it is), if admission built one."""
        n = decision.processors
        for queue, pinned, plan in self.plans:
            if len(queue) != len(jobs):
                continue
            if (queue if type(queue) is list else list(queue)) != jobs:  # (jobs: by identity)
                continue
            if pinned:
                if pinned == {job.id: n}:
                    return plan
                continue
            # Unpinned: the shape the plan gave the job (searched from the end, where a job
            # added last usually is), or None, which the decision then does not pin either.
            placed = None
            for p in reversed(plan.placements):
                if p.job is job:
                    placed = p.processors
                    break
            if placed == n:
                return plan
        return None


class Planner:
    """The queue, the admitted shapes and the plans of one service provider."""

    def __init__(
        self,
        scheduler: Scheduler,
        admission: Admission,
        pool: Pool,
        risk: float | None = None,
        reuse: bool = True,
    ) -> None:
        self.scheduler = scheduler
        self.admission = admission
        self.pool = pool
        self.risk = risk
        self.reuse = reuse
        self.queue: list[Job] = []  # admitted, not started, in the order plans take them
        self.shapes: dict[int, int] = {}  # the shape each queued job was admitted on
        self.reused = 0  # plans followed as admission made them (not planned again)
        self._recorder = _Recorder(scheduler)
        # Keyed by the instant and the pool's version: the context, (now, version, context);
        # the plan admission made with the last job quoted, (job id, now, version, plan); with
        # the last job admitted, (now, version, the queue then, plan).
        self._context: tuple[float, int, PlanContext] | None = None
        self._quoted: tuple[int, float, int, Plan] | None = None
        self._admitted: tuple[float, int, list[Job], Plan] | None = None
        # The plan followed last, (now, version, the queue then, plan)
        self._followed: tuple[float, int, list[Job], Plan] | None = None

    @property
    def confidence(self) -> float:
        """The probability with which its plans are kept: ``1 - risk`` on a pool that varies,
        else 1 (a promise's confidence, :meth:`agents.policies.pricing.Pricing.quote`)."""
        return 1.0 if self.risk is None or not self.pool.varies else 1.0 - self.risk

    def context(self, now: float) -> PlanContext:
        """What the provider knows at ``now``: the capacity to plan on (the pool's free
        processors, or under uncertainty the forecast's profile at the risk level), the price,
        the forecast and the admitted shapes."""
        pool, cached = self.pool, self._context
        same = cached is not None and cached[1] == pool.version and self.reuse
        if same and cached[0] == now:
            return cached[2]
        if pool.varies:
            forecast = pool.forecast(now)
            capacity = forecast.profile(self.risk)
        elif same and not pool.ends_between(cached[0], now):
            # A fixed pool whose leases did not change and none of which ended since: the
            # profile then is this one from now on (its origin earlier, which plans never read).
            forecast, capacity = None, cached[2].capacity
        else:  # every plan is certain: plan on the pool, as a risk-aware provider would too
            forecast, capacity = None, pool.free_profile(now)
            capacity.rising &= self.reuse  # (plain: planned on as any profile, e.g. by EASY)
        ctx = PlanContext(now, capacity, pool.price, forecast, self.risk, self.shapes)
        self._context = (now, pool.version, ctx)
        return ctx

    def quote(self, job: Job, now: float) -> Decision:
        """Admission control on ``job`` (§3.4), against the queue as it is."""
        ctx = self.context(now)
        recorder = self._recorder
        recorder.ctx, recorder.plans, recorder.held = ctx, [], self._holding(now)
        decision = self.admission.decide(job, self.queue, ctx, recorder)
        self._quoted = None
        if decision.accepted and self.reuse and self.risk is None:
            plan = self._plan_of(job, decision, ctx)
            if plan is not None:
                self._quoted = (job.id, now, self.pool.version, plan)
        recorder.ctx, recorder.plans, recorder.held = None, [], None
        return decision

    def _plan_of(self, job: Job, decision: Decision, ctx: PlanContext) -> Plan | None:
        """The scheduler's plan of the queue with ``job`` as ``decision`` admits it, if the
        decision was made on one: its schedule, for a scheduler that plans in order, or a plan
        admission had the scheduler make."""
        if decision.schedule is not None and self.scheduler.plans_in_order:
            return _followed_schedule(decision.schedule, ctx)
        if not self._recorder.plans:
            return None
        jobs = [*self.queue, job]
        if decision.queue_order is not None:
            by_id = {j.id: j for j in jobs}
            jobs = [by_id[i] for i in decision.queue_order if i in by_id]
        return self._recorder.made_with(job, decision, jobs)

    def _holding(self, now: float) -> tuple[list[Job], Plan] | None:
        """The plan followed last and its queue, if the capacity it was made on is the one at
        ``now`` from ``now`` on (a fixed pool whose leases and free profile have not changed
        since), for the scheduler to extend (:meth:`Scheduler.extend`); else None."""
        followed, pool = self._followed, self.pool
        if followed is None or not self.reuse or self.risk is not None or pool.varies:
            return None
        at, version, queue, plan = followed
        if version != pool.version or queue != self.queue or pool.ends_between(at, now):
            return None
        return queue, plan

    def admit(self, job: Job, decision: Decision, now: float) -> None:
        """Queue ``job`` (accepted by ``decision``) on its shape, in the decision's order."""
        self.queue.append(job)
        if decision.processors is not None:
            self.shapes[job.id] = decision.processors
        order = decision.queue_order
        if order is not None:
            position = {job_id: i for i, job_id in enumerate(order)}
            if len(position) != len(self.queue) or any(j.id not in position for j in self.queue):
                raise ValueError("the decision's queue order is not the queue's")
            self.queue.sort(key=lambda j: position[j.id])
        quoted, self._quoted, self._admitted = self._quoted, None, None
        if quoted is not None:
            job_id, at, version, plan = quoted
            if job_id == job.id and at == now and version == self.pool.version:
                self._admitted = (now, version, self.queue.copy(), plan)

    def plan(self, now: float) -> Plan:
        """The plan to follow now: the one admission made with the last job admitted if
        nothing changed since, else the scheduler's plan within the risk (§3.3, §3.5)."""
        admitted = self._admitted
        if admitted is not None:
            self._admitted = None
            at, version, queue, plan = admitted
            # (the queue compares job by job, by identity)
            if at == now and version == self.pool.version and queue == self.queue:
                self.reused += 1
                self._followed = admitted
                return plan
        if self.risk is None:  # (plan_within_risk's plan then, without the call)
            plan = self.scheduler.plan(self.context(now), self.queue)
            self._followed = (now, self.pool.version, self.queue.copy(), plan)
            return plan
        return plan_within_risk(self.scheduler, self.context(now), self.queue)

    def started(self, job: Job) -> None:
        """``job`` left the queue to run (on its admitted shape or a narrower one)."""
        self.queue.remove(job)  # (by identity: jobs compare so)
        self.shapes.pop(job.id, None)

    def compress(self, plan: Plan) -> None:
        """After the jobs due in ``plan`` started, for a compressing scheduler (conservative
        backfilling): keep the queue in planned-start order, so that reservations move up
        without overtaking when jobs end early."""
        planned = {p.job.id: p.start for p in plan.placements}
        self.queue.sort(key=lambda job: planned.get(job.id, math.inf))  # stable
        followed = self._followed
        if followed is not None and followed[3] is plan and len(followed[2]) == len(self.queue):
            # Nothing started: the plan of the queue in its new order is this one, its
            # placements in that order (each job's earliest start is the same whether the jobs
            # that start after it are placed before it or not), for the next offer to extend.
            by_start = sorted(plan.placements, key=attrgetter("start"))
            plan = Plan(plan.now, by_start, plan.unplaced, plan.resume)
            self._followed = (followed[0], followed[1], self.queue.copy(), plan)

    def early_start(self, now: float) -> Placement | None:
        """A queued job worth starting now, ahead of the plan, for a risk-aware provider
        (:func:`agents.policies.risk.start_early`), or None."""
        if not self.queue:
            return None
        ctx = self.context(now)
        current = plan_within_risk(self.scheduler, ctx, self.queue)
        return start_early(self.scheduler, ctx, self.queue, current)


def _followed_schedule(schedule: Sequence[tuple[Job, int, float, float]], ctx: PlanContext) -> Plan:
    """The plan of a decision's ``schedule`` (:attr:`Decision.schedule`): what a scheduler that
    plans in order makes of the queue in that order on ``ctx``."""
    placements: list[Placement] = []
    unplaced: list[Job] = []
    for job, n, start, end in schedule:
        if start == math.inf:
            unplaced.append(job)
        else:
            placements.append(placement(job, n, start, end, ctx.price))
    return Plan(ctx.now, placements, unplaced)
