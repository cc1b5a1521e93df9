"""List scheduling: shape each job, order the queue, place each job at its earliest start.

The common core of the profit paper's schedulers (Popovici & Wilkes SC'05 §3.3): each picks a
shape for every queued job and a priority, then builds the preferred schedule by placing the jobs
in priority order, each at the earliest time the capacity left by the jobs before it allows
(so a later, smaller job may fill a gap before an earlier one: the plan backfills). The paper does
not say how the preferred schedule is laid out; this is our reading, and the same placement rule
serves every scheduler so that they differ only in their shape and order.

A job's rank depends on the job, the time and the price only, never on the capacity or the rest
of the queue, so a list scheduler ranks each job once per instant and price (admission plans the
queue once per shape of the offered job, and FirstOpportunity once per candidate). This memo is
the planning core's one speed trick; it changes no plan.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence

from agents.policies.base import Placement, Plan, PlanContext, Scheduler, placement
from market.core.capacity import CapacityProfile
from market.core.jobs import Job


class ListScheduler(Scheduler):
    """A scheduler defined by :meth:`rank`: a job's shape and its priority (lower runs first)."""

    # The ranks of the instant and price they were computed at (see the module docstring).
    _ranks_at: tuple[float, object] | None = None
    _ranks: dict[int, tuple[int, float]]

    @abstractmethod
    def rank(self, job: Job, ctx: PlanContext, processors: int | None = None) -> tuple[int, float]:
        """``(shape, priority)`` of ``job``; given ``processors``, its priority on that shape.
        It may read the job, ``ctx.now`` and ``ctx.price`` only (see the module docstring)."""

    def ranked(self, job: Job, ctx: PlanContext) -> tuple[int, float]:
        """:meth:`rank` of ``job`` at ``ctx``, computed once per job, instant and price."""
        at = self._ranks_at
        if at is None or at[0] != ctx.now or at[1] is not ctx.price:
            self._ranks_at, self._ranks = (ctx.now, ctx.price), {}
        ranks = self._ranks
        ranked = ranks.get(job.id)
        if ranked is None:
            ranked = ranks[job.id] = self.rank(job, ctx)
        return ranked

    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        return place(ctx, self.order(ctx, queue, pinned))

    def order(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> list[tuple[Job, int]]:
        """``queue`` as ``(job, shape)`` pairs in the order :meth:`plan` places them, for
        schedulers that build plans from this one's order."""
        pinned = ctx.pins(pinned)
        ranked = []
        for job in queue:
            if pinned and job.id in pinned:
                shape, priority = self.rank(job, ctx, pinned[job.id])
            else:
                shape, priority = self.ranked(job, ctx)
            ranked.append((job, shape, priority))
        return by_priority(ranked)


def by_priority(ranked: Iterable[tuple[Job, int, float]]) -> list[tuple[Job, int]]:
    """``(job, shape, priority)`` triples as ``(job, shape)`` pairs, lowest priority first; ties
    go to the earlier arrival, then the lower id (the order :meth:`ListScheduler.plan` uses)."""
    order = sorted(ranked, key=lambda item: (item[2], item[0].arrival, item[0].id))
    return [(job, shape) for job, shape, _ in order]


def best_shape(job: Job, score: Callable[[int], float]) -> tuple[int, float]:
    """The shape of ``job`` with the highest ``score(shape)``, and that score. Ties go to the
    smaller shape (it holds fewer processors for the same score)."""
    shapes = job.shapes
    best_n, best = shapes[0], score(shapes[0])
    for n in shapes[1:]:
        value = score(n)
        if value > best:
            best_n, best = n, value
    return best_n, best


def value_if_started_now(job: Job, processors: int, ctx: PlanContext) -> float:
    """``job``'s utility at its completion on ``processors`` if it started now (its "yield")."""
    return job.utility(ctx.now + job.predicted_runtime(processors))


def place(ctx: PlanContext, jobs: Sequence[tuple[Job, int]]) -> Plan:
    """Place ``(job, shape)`` pairs in the given order, each at its earliest start on what the
    pairs before it left of ``ctx.capacity``; the plan keeps the profile they leave (its
    ``resume``), on which conservative backfilling places a job appended later."""
    return place_on(ctx.capacity.copy(), ctx, jobs, [], [])


def place_on(
    profile: CapacityProfile,
    ctx: PlanContext,
    jobs: Sequence[tuple[Job, int]],
    placements: list[Placement],
    unplaced: list[Job],
) -> Plan:
    """:func:`place` on ``profile`` (reserved on, and kept by the plan), after ``placements``
    and ``unplaced`` (the plan's first jobs, extended in place)."""
    reserve = profile.reserve_earliest  # (locals: this is a hot loop)
    price, now, inf = ctx.price, ctx.now, math.inf
    add = placements.append
    for job, n in jobs:
        runtime = job.predicted_runtime(n)
        start = reserve(n, runtime, now)
        if start == inf:
            unplaced.append(job)
            continue
        add(placement(job, n, start, start + runtime, price))
    return Plan(now, placements, unplaced, profile)


def standalone_profit(job: Job, processors: int, ctx: PlanContext) -> float:
    """Profit of ``job`` on ``processors`` if it started now: utility at completion minus rent."""
    runtime = job.predicted_runtime(processors)
    now = ctx.now
    return job.utility(now + runtime) - ctx.rent(processors, now, now + runtime)
