"""The schedulers of Popovici & Wilkes SC'05 §3.3 (the Opportunity ones are
:mod:`agents.policies.opportunity`).

Each picks a shape and a rank for every queued job; the plan places them in rank order
(:mod:`agents.policies.list_scheduling`). Each also scores a plan by the reward its
PositiveOpportunity admission compares (§3.4): :class:`LJF` (one processor, longest first;
profit), :class:`SJF` (widest shape, shortest first; profit), :class:`FirstPrice` (value ÷
runtime, rent ignored; the value rate), :class:`FirstReward` (RiskReward's ``reward_i``; its
sum), :class:`FirstProfit` (the most profitable shape, most profitable first; profit). A job's
yield is its utility if it started now on that shape: each job is ranked on its own.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from itertools import accumulate

from agents.policies.base import Plan, PlanContext, Scheduler
from agents.policies.list_scheduling import (
    ListScheduler,
    best_shape,
    by_priority,
    place,
    standalone_profit,
    value_if_started_now,
)
from agents.policies.registry import register_scheduler
from market.core.jobs import Job


@register_scheduler("ljf")
class LJF(ListScheduler):
    """Longest job first (§3.3 item 1): "always runs jobs on one processor, and sorts the jobs in
    order of decreasing predicted run time". Reward: plan profit (§3.4).

    A rigid job that cannot run on one processor gets its narrowest shape (our choice).
    """

    def rank(self, job: Job, ctx: PlanContext, processors: int | None = None) -> tuple[int, float]:
        n = job.shapes[0] if processors is None else processors
        return n, -job.predicted_runtime(n)

    def shapes(self, job: Job) -> tuple[int, ...]:
        return job.shapes[:1]


@register_scheduler("sjf")
class SJF(ListScheduler):
    """Shortest job first (§3.3 item 2): "always uses a shape with as many processors as it can
    (up to the maximum it can scale-up to), and then sorts jobs in order of increasing predicted
    run time". Reward: plan profit (§3.4).
    """

    def rank(self, job: Job, ctx: PlanContext, processors: int | None = None) -> tuple[int, float]:
        n = job.max_shape if processors is None else processors
        return n, job.predicted_runtime(n)

    def shapes(self, job: Job) -> tuple[int, ...]:
        return job.shapes[-1:]


@register_scheduler("first_price")
class FirstPrice(ListScheduler):
    """FirstPrice-reshape (§3.3 item 3): Millenium's ``yield_i / RPT_i`` (§2) over every shape.

    A job's score at a shape is its value at completion if it started now, divided by its
    predicted runtime there; it takes the shape with the highest score and the highest score runs
    first. Rent is ignored. Ties between shapes go to the smaller shape.

    Reward (§3.4 "yield (value)-rate"), our reading: the sum over the plan's placements of each
    job's value at its planned completion divided by its runtime, i.e. the rate at which the plan
    earns revenue while its jobs run.
    """

    def rank(self, job: Job, ctx: PlanContext, processors: int | None = None) -> tuple[int, float]:
        if processors is not None:
            return processors, -self._rate(job, processors, ctx)
        n, rate = best_shape(job, lambda n: self._rate(job, n, ctx))
        return n, -rate

    @staticmethod
    def _rate(job: Job, processors: int, ctx: PlanContext) -> float:
        return value_if_started_now(job, processors, ctx) / job.predicted_runtime(processors)

    def reward(self, plan: Plan, ctx: PlanContext) -> float:
        return math.fsum(p.value / (p.end - p.start) for p in plan.placements)


class DelayCost:
    """RiskReward's opportunity cost of running a job now (Irwin et al. 2004, as quoted in
    Popovici & Wilkes SC'05 §2), over a queue at time ``now``.

    ``cost_i = sum over the other queued jobs j of decay_j * delay_ij``, where
    ``delay_ij = min(RPT_i, h_j)`` and ``h_j`` is the time from ``now`` until j's value reaches its
    penalty bound (0 if it already has). ``decay_j`` is "the slope of the penalty portion" of j's
    utility; we read it as the slope at ``now``, or where j's decay starts if it has not started
    yet (for the profit paper's utility functions, the one decay rate until the bound is reached,
    and 0 after it, when ``h_j`` is 0 anyway).

    Calling it costs O(log n): the jobs are sorted by ``h_j`` with prefix sums, so that ranking a
    whole queue stays O(n log n) rather than O(n²).
    """

    __slots__ = ("_decay_after", "_decay_h_before", "_horizon", "_own")

    def __init__(self, queue: Sequence[Job], now: float) -> None:
        terms = []
        own = {}
        for job in queue:
            utility = job.utility
            horizon = max(utility.floor_time - now, 0.0)
            decay = utility.decay_rate(max(now, utility.times[0]))
            own[job.id] = (horizon, decay)
            if horizon > 0 and decay > 0:
                terms.append((horizon, decay))
        terms.sort()
        self._own = own
        self._horizon = [h for h, _ in terms]
        # sum of decay * h over the first k terms, and of decay over the terms from k on
        self._decay_h_before = [0.0, *accumulate(h * d for h, d in terms)]
        self._decay_after = [*accumulate((d for _, d in reversed(terms)), initial=0.0)][::-1]

    def __call__(self, job: Job, rpt: float) -> float:
        """``cost_i`` of running ``job`` for ``rpt`` hours, on every other job of the queue."""
        k = bisect_right(self._horizon, rpt)  # these reach their bound within rpt: decay * h
        total = self._decay_h_before[k] + rpt * self._decay_after[k]
        horizon, decay = self._own.get(job.id, (0.0, 0.0))
        return max(total - decay * min(rpt, horizon), 0.0)


@register_scheduler("first_reward")
class FirstReward(Scheduler):
    """FirstReward-reshape (§3.3 item 4): RiskReward's ``reward_i`` (§2) over every shape.

    For job i on a shape with predicted runtime ``RPT_i`` and yield ``yield_i`` (its value at
    completion if it started now)::

        PV_i     = yield_i / (1 + discount_rate * RPT_i)
        cost_i   = sum over the other queued jobs j of decay_j * min(RPT_i, h_j)   (DelayCost)
        reward_i = (alpha * PV_i - (1 - alpha) * cost_i) / RPT_i

    Each job takes the shape with the highest ``reward_i`` (ties to the smaller shape) and the
    highest reward runs first. Rent is ignored, as in RiskReward.

    Because ``cost_i`` depends on the rest of the queue, a job's rank is computed per plan (not
    memoised per instant like the other list schedulers'); the plan is then laid out by the same
    placement rule (:func:`agents.policies.list_scheduling.place`).

    Reward (§3.4 "reward_i"), our reading: the sum of ``reward_i`` over the plan's placements,
    each with its planned shape, its value at its planned completion as the yield, and its cost on
    the other jobs of the plan. Using the planned value (not the start-now one) makes a plan that
    delays jobs less rewarding, which is what admission compares.

    Our choices, where the profit paper and RiskReward's abstract give no values: ``alpha`` 0.3
    and ``discount_rate`` 0.01 per hour, near FirstReward's best on Table 1, so the comparison
    does not handicap it (how the profit varies with them: the calibration in the profit guide).

    Args:
        discount_rate: RiskReward's discount rate for future value, per hour. The profit paper
            does not give one; 0.01 per hour is our choice.
        alpha: weight of the discounted value against the opportunity cost, in [0, 1]. The profit
            paper does not give one; 0.3 is our choice.
    """

    def __init__(self, discount_rate: float = 0.01, alpha: float = 0.3) -> None:
        if discount_rate < 0:
            raise ValueError(f"discount_rate must be >= 0, got {discount_rate}")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
        self.discount_rate = discount_rate
        self.alpha = alpha

    def job_reward(self, job: Job, yield_: float, rpt: float, cost: DelayCost) -> float:
        """``reward_i`` of ``job`` yielding ``yield_`` after running ``rpt`` hours."""
        pv = yield_ / (1.0 + self.discount_rate * rpt)
        return (self.alpha * pv - (1.0 - self.alpha) * cost(job, rpt)) / rpt

    def rank(
        self, job: Job, ctx: PlanContext, cost: DelayCost, processors: int | None = None
    ) -> tuple[int, float]:
        """``(shape, priority)`` for ``job`` (lower runs first), with ``cost`` over its queue."""

        def reward(n: int) -> float:
            return self.job_reward(
                job, value_if_started_now(job, n, ctx), job.predicted_runtime(n), cost
            )

        if processors is not None:
            return processors, -reward(processors)
        n, best = best_shape(job, reward)
        return n, -best

    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        pins = ctx.pins(pinned)
        cost = DelayCost(queue, ctx.now)
        ranked = []
        for job in queue:
            forced = pins.get(job.id)
            shape, priority = self.rank(job, ctx, cost, forced)
            ranked.append((job, shape, priority))
        return place(ctx, by_priority(ranked))

    def reward(self, plan: Plan, ctx: PlanContext) -> float:
        cost = DelayCost([*(p.job for p in plan.placements), *plan.unplaced], ctx.now)
        return math.fsum(
            self.job_reward(p.job, p.value, p.end - p.start, cost) for p in plan.placements
        )


@register_scheduler("first_profit")
class FirstProfit(ListScheduler):
    """Shape each job for its own best profit; run the most profitable first (§3.3 item 5).

    "selects the shape of jobs in order to maximize the per-job profit for each job
    independently, and sorts jobs by profit alone". A job's profit at a shape is its utility at
    completion minus the rent for its processors, if it started now. Ties between shapes go to the
    smaller shape (it rents fewer processors for the same profit). Reward: plan profit (§3.4).
    """

    def rank(self, job: Job, ctx: PlanContext, processors: int | None = None) -> tuple[int, float]:
        if processors is not None:
            return processors, -standalone_profit(job, processors, ctx)
        n, best = best_shape(job, lambda n: standalone_profit(job, n, ctx))
        return n, -best
