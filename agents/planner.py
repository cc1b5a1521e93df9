"""The planner: a service provider's queue and everything it plans with, free of Mesa.

The service provider agent (:mod:`agents.service_provider`) says *when* to plan: a job is
offered (quote), committed (admit), the scheduler runs (plan), jobs start (started). The planner
says *what*: it keeps the admitted-but-waiting queue in the order its policies ask for and the
shape each job was admitted on (Popovici & Wilkes SC'05 §3.4: a job keeps the shape admission
chose), builds the planning context from the resource provider's pool, and calls the pure
policies. Under uncertain capacity it plans within the acceptable risk (§3.5, see
:mod:`agents.policies.risk`) and finds jobs worth starting early.

Work it saves, keyed by its own key (the instant and the pool's ``version``, which the resource
provider bumps on every lease and availability change), and only when ``reuse`` is on (the
model's ``fast`` switch, see :mod:`market.clock`):

- one :class:`~agents.policies.base.PlanContext` per key, with a :class:`RankMemo`;
- the plan admission built with a job: when that job is committed and nothing changed before the
  next scheduler run (same key, same queue), that plan is followed instead of planning again.
  Plans are pure functions of (context, queue, pins), so the reused plan is the one planning
  again would build.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Protocol

from agents.policies.base import (
    Admission,
    Decision,
    Placement,
    Plan,
    PlanContext,
    RankMemo,
    Scheduler,
)
from agents.policies.risk import plan_within_risk, start_early
from market.capacity import CapacityProfile
from market.forecast import Forecast
from market.jobs import Job
from market.pricing import PriceSchedule


class Pool(Protocol):
    """What the planner reads of a resource provider."""

    price: PriceSchedule
    varies: bool  # whether availability ever differs from the pool
    version: int  # bumped whenever leases or availability change

    def forecast(self, now: float) -> Forecast: ...

    def free_profile(self, now: float) -> CapacityProfile: ...


class _Recorder(Scheduler):
    """The scheduler as admission sees it: plans as the scheduler does, and remembers those
    built on the planner's own context (to reuse the one the decision was made on)."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.inner = scheduler
        self.compresses = scheduler.compresses
        self.name = scheduler.name
        self.ctx: PlanContext | None = None
        self.plans: list[tuple[Sequence[Job], Mapping[int, int] | None, Plan]] = []

    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        plan = self.inner.plan(ctx, queue, pinned)
        if ctx is self.ctx:
            self.plans.append((queue, pinned, plan))
        return plan

    def shapes(self, job: Job) -> tuple[int, ...]:
        return self.inner.shapes(job)

    def reward(self, plan: Plan, ctx: PlanContext) -> float:
        return self.inner.reward(plan, ctx)

    def made_with(self, job: Job, decision: Decision, ids: list[int]) -> Plan | None:
        """The plan recorded of the jobs ``ids`` (in that order) with ``job`` on the shape the
        decision gave it (pinned there, or placed there unpinned: pinning a job to the shape a
        plan gave it leaves the plan as it is), if admission built one."""
        n = decision.processors
        for queue, pinned, plan in self.plans:
            if len(queue) != len(ids) or any(j.id != i for j, i in zip(queue, ids, strict=True)):
                continue
            if pinned:
                if pinned == {job.id: n}:
                    return plan
                continue
            placed = plan.placement_of(job.id)
            if placed is not None and placed.processors == n:
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
        self._context: tuple[tuple[float, int], PlanContext] | None = None
        # The plan admission made with the last job quoted: (job id, key, plan); with the last
        # job admitted: (key, queue ids, plan).
        self._quoted: tuple[int, tuple[float, int], Plan] | None = None
        self._admitted: tuple[tuple[float, int], tuple[int, ...], Plan] | None = None

    def _key(self, now: float) -> tuple[float, int]:
        return now, self.pool.version

    def context(self, now: float) -> PlanContext:
        """What the provider knows at ``now``: the capacity to plan on (the pool's free
        processors, or under uncertainty the forecast's profile at the risk level), the price,
        the forecast and the admitted shapes."""
        key = self._key(now)
        if self.reuse and self._context is not None and self._context[0] == key:
            return self._context[1]
        pool = self.pool
        if pool.varies:
            forecast = pool.forecast(now)
            capacity = forecast.profile(self.risk)
        else:  # every plan is certain: plan on the pool, as a risk-aware provider would too
            forecast, capacity = None, pool.free_profile(now)
        ranks = RankMemo(now, pool.price) if self.reuse else None
        ctx = PlanContext(now, capacity, pool.price, forecast, self.risk, self.shapes, ranks)
        self._context = (key, ctx)
        return ctx

    def quote(self, job: Job, now: float) -> Decision:
        """Admission control on ``job`` (§3.4), against the queue as it is."""
        ctx = self.context(now)
        recorder = self._recorder
        recorder.ctx, recorder.plans = ctx, []
        decision = self.admission.decide(job, self.queue, ctx, recorder)
        self._quoted = None
        if decision.accepted and self.reuse and self.risk is None:
            ids = list(decision.queue_order or (*(j.id for j in self.queue), job.id))
            plan = recorder.made_with(job, decision, ids)
            if plan is not None:
                self._quoted = (job.id, self._key(now), plan)
        recorder.ctx, recorder.plans = None, []
        return decision

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
        if quoted is not None and quoted[0] == job.id and quoted[1] == self._key(now):
            self._admitted = (quoted[1], tuple(j.id for j in self.queue), quoted[2])

    def plan(self, now: float) -> Plan:
        """The plan to follow now: the one admission made with the last job admitted if
        nothing changed since, else the scheduler's plan within the risk (§3.3, §3.5)."""
        admitted, self._admitted = self._admitted, None
        if admitted is not None:
            key, ids, plan = admitted
            queue = self.queue
            if (
                key == self._key(now)
                and len(ids) == len(queue)
                and all(i == job.id for i, job in zip(ids, queue, strict=True))
            ):
                self.reused += 1
                return plan
        return plan_within_risk(self.scheduler, self.context(now), self.queue)

    def started(self, job: Job) -> None:
        """``job`` left the queue to run (on its admitted shape or a narrower one)."""
        self.queue.remove(job)  # (by identity: jobs compare so)
        self.shapes.pop(job.id, None)

    def followed(self, plan: Plan) -> None:
        """After the jobs due in ``plan`` started: a compressing scheduler (conservative
        backfilling) keeps the queue in planned-start order, so that reservations move up
        without overtaking when jobs end early."""
        if self.scheduler.compresses:
            planned = {p.job.id: p.start for p in plan.placements}
            self.queue.sort(key=lambda job: planned.get(job.id, math.inf))  # stable

    def early_start(self, now: float) -> Placement | None:
        """Risk-aware only: a queued job worth starting now, ahead of the plan
        (:func:`agents.policies.risk.start_early`), or None."""
        if self.risk is None or not self.queue:
            return None
        ctx = self.context(now)
        current = plan_within_risk(self.scheduler, ctx, self.queue)
        return start_early(self.scheduler, ctx, self.queue, current)
