"""Admission control (Popovici & Wilkes SC'05 §3.4).

:class:`PositiveOpportunity`: plan the queue with the new job on each of its shapes and without
it, by the provider's own scheduler, and admit the job only if the most rewarding plan (by that
scheduler's reward metric) contains it; a tie keeps the existing plan. Under uncertain capacity
with an acceptable risk (§3.5, §6) only plans carried out with probability at least ``1 - r``
count, on less capacity if need be, else the job is ``too-risky`` (:mod:`agents.policies.risk`).
:class:`AcceptAll`: every job that fits the pool on a shape its scheduler runs, the paper's
reference ("simply accepting all jobs did poorly").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agents.policies.base import Admission, Decision, Plan, PlanContext, Scheduler
from agents.policies.registry import register_admission
from agents.policies.risk import oblivious, places_all, risk_levels
from market.core.jobs import Job
from market.core.rent import shared_zero


def _decision(
    accepted: bool, reason: str, detail: str, plan: Plan | None, job: Job, gain=None, base=None
):
    """The decision, with the job's placement in ``plan``; ``base``, the plan without the job,
    gives the profit the job displaces (``Decision.displaced``)."""
    placement = plan.placement_of(job.id) if plan is not None else None
    if placement is None:
        return Decision(accepted, reason, detail, gain=gain)
    displaced = None
    if base is not None:
        displaced = base.profit - (plan.profit - placement.profit)
    return Decision(
        accepted,
        reason,
        detail,
        processors=placement.processors,
        start=placement.start,
        end=placement.end,
        expected_value=placement.value,
        expected_profit=shared_zero(placement.profit),  # (a free pool's: one float)
        gain=gain,
        displaced=displaced,
    )


@register_admission("positive_opportunity")
class PositiveOpportunity(Admission):
    """Admit a job only if the most rewarding plan contains it (§3.4)."""

    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        if ctx.risk is None or ctx.forecast is None:
            return self._decide(job, queue, ctx, scheduler)
        # Under a risk bound, the highest capacity level whose plans keep within it (risk.py).
        reference = scheduler.plan(oblivious(ctx), [*queue, job])
        decision = Decision(False, "too-risky", "no capacity level keeps the plan within the risk")
        for level_ctx in risk_levels(ctx):
            if not places_all(scheduler.plan(level_ctx, [*queue, job]), reference):
                break
            decision = self._decide(job, queue, level_ctx, scheduler)
            if decision.reason != "too-risky":
                break
        return decision

    def _decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        base = scheduler.plan(ctx, queue)
        without = scheduler.reward(base, ctx)
        with_job = [*queue, job]
        best_plan, best_reward = None, None
        placed, safest = False, 0.0
        for n in scheduler.shapes(job):
            plan = scheduler.plan(ctx, with_job, pinned={job.id: n})
            if plan.placement_of(job.id) is None:
                continue
            placed = True
            if ctx.risk is not None:  # §3.5: only plans within the acceptable risk
                probability = ctx.plan_probability(plan)
                if probability < 1.0 - ctx.risk:
                    safest = max(safest, probability)
                    continue
            reward = scheduler.reward(plan, ctx)
            if best_reward is None or reward > best_reward:
                best_plan, best_reward = plan, reward
        if not placed:
            return Decision(False, "no-fit", f"no shape of {job.shapes} fits the capacity")
        if best_plan is None:
            detail = (
                f"the safest plan with the job can be carried out with probability "
                f"{safest:.3g} < {1.0 - ctx.risk:.3g}"
            )
            return Decision(False, "too-risky", detail)
        gain = best_reward - without
        own = best_plan.placement_of(job.id)
        if gain > 0:
            detail = (
                f"best plan with the job ({own.processors} processors) has reward "
                f"{best_reward:.4g} > {without:.4g} without it"
            )
            return _decision(True, "profitable", detail, best_plan, job, gain, base)
        if own.profit <= 0:
            detail = f"its best predicted profit is {own.profit:.4g} on {own.processors} processors"
            return _decision(False, "unprofitable", detail, best_plan, job, gain)
        detail = (
            f"it would earn {own.profit:.4g} but delay accepted jobs: plan reward falls from "
            f"{without:.4g} to {best_reward:.4g}"
        )
        return _decision(False, "displaces", detail, best_plan, job, gain)


@register_admission("accept_all")
class AcceptAll(Admission):
    """Admit every job that can run on the pool at all (the paper's no-admission-control case).

    Only on a shape the scheduler runs (:meth:`Scheduler.shapes`) that fits the pool: a job none
    of whose scheduler shapes fits is rejected (``no-fit``). When the scheduler's own choice for
    the job is wider than the pool (FirstProfit may pick 5 processors of a 4-processor pool), the
    job is pinned to the fitting shape whose plan the scheduler finds most rewarding (ties: the
    narrower), so that it can start; otherwise the scheduler's plan decides, as before.
    """

    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        pool = ctx.capacity.capacity
        shapes = scheduler.shapes(job)
        jobs = [*queue, job]
        detail = "every job that fits is admitted"
        if max(shapes) <= pool:  # every shape fits: the scheduler's plan decides
            return _decision(True, "accept-all", detail, scheduler.plan(ctx, jobs), job)
        fitting = [n for n in shapes if n <= pool]
        if not fitting:
            detail = f"no shape of {job.shapes} fits the pool"
            if tuple(shapes) != tuple(job.shapes):
                detail = f"no shape {scheduler.name} runs it on ({shapes}) fits the pool of {pool}"
            return Decision(False, "no-fit", detail)
        plan = scheduler.plan(ctx, jobs)  # for its prediction (EASY may give none)
        if not any(j is job for j in plan.unplaced):
            return _decision(True, "accept-all", detail, plan, job)
        best_plan, best_reward, shape = None, None, fitting[0]
        for n in fitting:
            pinned = scheduler.plan(ctx, jobs, pinned={job.id: n})
            reward = scheduler.reward(pinned, ctx)
            if best_reward is None or reward > best_reward:
                best_plan, best_reward, shape = pinned, reward, n
        decision = _decision(True, "accept-all", f"{detail}, on {shape} processors", best_plan, job)
        if decision.processors is None:  # not placed on this capacity: pinned all the same
            decision = replace(decision, processors=shape)
        return decision
