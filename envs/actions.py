"""From an agent's action to the provider's admission :class:`~agents.policies.base.Decision`.

The action (:func:`envs.observation.action_space`) becomes the decision the ``external``
admission returns, with the prediction the profit paper's admission control attaches to it
(Popovici & Wilkes SC'05 §3.4: the job's place in the plan that includes it): 0 rejects (reason
``agent``); ``n`` in 1..C admits on ``n`` processors, predicted by the scheduler's plan with the
job pinned there (PositiveOpportunity's plan for ``n``, so its action gives its decision field
for field); C + 1 is :class:`~agents.policies.admission.AcceptAll`'s decision itself. With several
pools the one action decides each (rejecting where ``n`` does not fit), each decision carrying its
plan's ``gain``, by which the provider picks the pool (docs/papers/environments.md).
:func:`check_action` refuses what the mask does not allow, with one line saying why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from agents.policies.admission import AcceptAll
from agents.policies.base import Decision, PlanContext, Scheduler
from agents.resource_provider import ResourceProviderAgent
from agents.service_provider import ServiceProviderAgent
from market.core.jobs import Job

_ACCEPT_ALL = AcceptAll()  # stateless

REJECTED = Decision(False, "agent", "rejected by the agent")


class InvalidAction(ValueError):
    """An action outside the action space or not allowed by the mask; the message is one
    line."""


def check_action(action: object, mask: np.ndarray, job: Job | None, who: str) -> int:
    """``action`` as an int if ``mask`` allows it, else :class:`InvalidAction`."""
    try:
        a = int(action)  # numpy integers and 0-d arrays too
        exact = a == action
    except (TypeError, ValueError):
        exact = False
    if not exact or isinstance(action, bool):
        raise InvalidAction(f"{who}: action {action!r} is not an integer")
    size = len(mask)
    if not 0 <= a < size:
        raise InvalidAction(f"{who}: action {a} is outside 0..{size - 1}")
    if not mask[a]:
        allowed = ", ".join(str(i) for i in np.flatnonzero(mask))
        what = f"job {job.id} (shapes {list(job.shapes)})" if job is not None else "no job"
        meaning = "admit on the scheduler's shape" if a == size - 1 else f"{a} processors"
        raise InvalidAction(
            f"{who}: action {a} ({meaning}) is not allowed for {what}; the mask allows {allowed}"
        )
    return a


def action_width(provider: ServiceProviderAgent) -> int:
    """``C``: the widest pool the provider rents from (the only one, as in the papers)."""
    return max(pool.capacity for pool in provider.pools)


def decide(
    provider: ServiceProviderAgent,
    action: int,
    job: Job,
    queue: Sequence[Job],
    ctx: PlanContext,
    scheduler: Scheduler,
    pool: ResourceProviderAgent,
) -> Decision:
    """The decision ``action`` stands for on ``pool`` (see the module); ``action`` was
    checked."""
    if action == 0:
        return REJECTED
    if action == action_width(provider) + 1:
        return _ACCEPT_ALL.decide(job, queue, ctx, scheduler)
    several = len(provider.pools) > 1
    if action > pool.capacity:  # (only with several pools: the action fits the widest)
        return Decision(False, "agent", f"{action} processors exceed pool {pool.name}")
    plan = scheduler.plan(ctx, [*queue, job], pinned={job.id: action})
    own = plan.placement_of(job.id)
    detail = f"admitted by the agent on {action} processors"
    if own is None:  # not placeable on the capacity planned on now: pinned all the same
        return Decision(
            True, "agent", detail, processors=action, gain=-math.inf if several else None
        )
    gain = displaced = None
    if several or not provider.pricing.charges_utility:
        # What PositiveOpportunity adds to its decision: the rise of the plan's reward (by which
        # a provider with several pools picks one) and the profit the job displaces (what
        # ``opportunity`` pricing charges), from the plan without the job.
        base = scheduler.plan(ctx, queue)
        gain = scheduler.reward(plan, ctx) - scheduler.reward(base, ctx)
        displaced = base.profit - (plan.profit - own.profit)
    return Decision(
        True,
        "agent",
        detail,
        processors=action,
        start=own.start,
        end=own.end,
        expected_value=own.value,
        expected_profit=own.profit,
        gain=gain,
        displaced=displaced,
    )
