"""Planning within an acceptable risk under uncertain capacity (Popovici & Wilkes SC'05 §3.5).

Our reading: with acceptable risk ``r`` a provider plans the current period on what is available
now (a started job keeps its processors) and later periods on a capacity level, first the
processors available with probability ``1 - r``, then one fewer at a time, while the plan still
places every job the oblivious plan places. A plan is within the risk when it is carried out
with probability at least ``1 - r`` (:meth:`market.core.forecast.Forecast.plan_probability`).
When no level keeps the admitted queue within the risk, dispatch falls back to the oblivious
plan (every admitted job must run, §3.1); processors free now carry no risk, so a job may start
ahead of its plan (:func:`start_early`). With no uncertainty it decides as an oblivious one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from agents.policies.base import Placement, Plan, PlanContext, Scheduler, placement
from market.core.jobs import Job


def oblivious(ctx: PlanContext) -> PlanContext:
    """``ctx`` planning on the forecast itself, with no risk bound."""
    if ctx.risk is None or ctx.forecast is None:
        return ctx
    return replace(ctx, capacity=ctx.forecast.profile(None), risk=None)


def risk_levels(ctx: PlanContext) -> Iterator[PlanContext]:
    """``ctx`` planning on decreasing capacity levels (just ``ctx`` without a risk bound)."""
    if ctx.risk is None or ctx.forecast is None:
        yield ctx
        return
    forecast = ctx.forecast
    for level in range(forecast.planning_capacity(ctx.risk), 0, -1):
        yield replace(ctx, capacity=forecast.profile_at(level, forecast.available_now))


def within_risk(plan: Plan, ctx: PlanContext) -> bool:
    """Whether ``plan`` can be carried out with probability at least ``1 - ctx.risk``."""
    return ctx.risk is None or ctx.plan_probability(plan) >= 1.0 - ctx.risk


def places_all(plan: Plan, reference: Plan) -> bool:
    """Whether ``plan`` places every job ``reference`` places."""
    return len(plan.unplaced) <= len(reference.unplaced)


def plan_within_risk(scheduler: Scheduler, ctx: PlanContext, queue: Sequence[Job]) -> Plan:
    """The plan of ``queue`` on the highest usable level within the risk, or else the
    uncertainty-oblivious plan (admitted jobs must run)."""
    return _plan_within_risk(scheduler, ctx, queue)[0]


def _plan_within_risk(
    scheduler: Scheduler, ctx: PlanContext, queue: Sequence[Job]
) -> tuple[Plan, bool]:
    if ctx.risk is None or ctx.forecast is None:
        return scheduler.plan(ctx, queue), True
    reference = scheduler.plan(oblivious(ctx), queue)
    for level_ctx in risk_levels(ctx):
        plan = scheduler.plan(level_ctx, queue)
        if not places_all(plan, reference):
            break
        if within_risk(plan, level_ctx):
            return plan, True
    return reference, False


def start_early(
    scheduler: Scheduler, ctx: PlanContext, queue: Sequence[Job], plan: Plan
) -> Placement | None:
    """A job of ``plan`` worth starting now, ahead of its planned start, or None.

    Processors free now carry no risk (a started job keeps them), but a plan on a level below
    what is free now leaves them idle: a job that would hold them into later periods cannot be
    placed there. So when the level is below what is free now, a risk-aware provider starts a
    queued job early if it fits now, the rest of its queue still plans within the risk with that
    job holding its processors, and the scheduler's reward of the whole rises.
    """
    forecast = ctx.forecast
    if ctx.risk is None or forecast is None or forecast.available_now is None:
        return None
    if forecast.planning_capacity(ctx.risk) >= forecast.available_now:
        return None  # the level does not bind now: the plan already uses what is free
    now = ctx.now
    free = forecast.available_now - sum(n for until, n in forecast.leases)
    current = scheduler.reward(plan, ctx)
    for planned in plan.placements:
        job, n = planned.job, planned.processors
        if planned.start <= now or n > free:
            continue
        end = now + job.predicted_runtime(n)
        busier = replace(forecast, leases=(*forecast.leases, (end, n)))
        then = replace(ctx, capacity=busier.profile(ctx.risk), forecast=busier)
        rest, ok = _plan_within_risk(scheduler, then, [j for j in queue if j.id != job.id])
        if not ok:
            continue
        early = placement(job, n, now, end, ctx.price)
        if scheduler.reward(Plan(now, [early, *rest.placements], rest.unplaced), ctx) > current:
            return early
    return None
