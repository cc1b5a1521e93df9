"""Which pool a job goes to, for a service provider renting from several resource providers.

The provider keeps one :class:`~agents.planner.Planner` per pool and asks each at every quote; it
takes the pool whose plan with the job is most rewarding within its risk level: the largest rise
of its admission's reward metric (the decision's ``gain``), else the largest expected profit;
ties go to the pool listed first (our rule; the papers have one resource provider). The job is
then planned, rented and paid for on that pool only, so leases and the ledger stay per resource
provider. With one pool this is that pool's decision.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.planner import Planner
from agents.policies.base import Decision, Plan
from market.core.jobs import Job


def choose_pool(planners: Sequence[Planner], job: Job, now: float) -> tuple[Decision, int]:
    """The best accepting decision on ``job`` over the pools (or the first pool's rejection),
    and the index of its pool."""
    decision, pool = planners[0].quote(job, now), 0
    for i in range(1, len(planners)):
        other = planners[i].quote(job, now)
        if other.accepted and (not decision.accepted or merit(other) > merit(decision)):
            decision, pool = other, i
    return decision, pool


def merit(decision: Decision) -> float:
    """How good a pool's accepting decision is for the provider: the rise of its plan's reward
    (its admission's ``gain``), else the job's expected profit."""
    if decision.gain is not None:
        return decision.gain
    return decision.expected_profit if decision.expected_profit is not None else 0.0


def merged(plans: Sequence[Plan]) -> Plan | None:
    """The pools' plans of one scheduler run as one plan (None: no pool had jobs to plan)."""
    if not plans:
        return None
    placements = [p for plan in plans for p in plan.placements]
    return Plan(plans[0].now, placements, [job for plan in plans for job in plan.unplaced])
