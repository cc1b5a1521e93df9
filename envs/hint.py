"""The PositiveOpportunity hint: what the profit paper's admission control computes per shape.

Popovici & Wilkes SC'05 §3.4: PositiveOpportunity plans the queue without the new job and with it
on each shape, and admits it on the most rewarding plan's shape if that beats the plan without it.
:func:`positive_opportunity_hint` runs that very policy
(:class:`agents.policies.admission.PositiveOpportunity`, so it cannot drift) through a scheduler
that records each plan's reward, and returns ``action`` (the action it takes), ``gain[n - 1]``
(the reward of the plan with the job on ``n`` processors minus the one without it, from its last
round under a risk bound) and ``valid[n - 1]`` (1 where that plan places the job within the risk).
With several pools ``gain`` is the best over them, as the provider keeps the accepting decision
of greatest gain (docs/papers/environments.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from agents.policies.admission import PositiveOpportunity
from agents.policies.base import Decision, Plan, PlanContext, Scheduler
from market.core.jobs import Job

_POSITIVE_OPPORTUNITY = PositiveOpportunity()  # stateless: one instance serves every call


class _Rewards(Scheduler):
    """``scheduler``, remembering the shape each plan pinned ``job`` to and each reward."""

    def __init__(self, scheduler: Scheduler, job: Job) -> None:
        self.inner, self.job = scheduler, job
        self.name = scheduler.name
        self.compresses = scheduler.compresses
        self.pins: list[tuple[Plan, int | None]] = []
        self.without: float | None = None
        self.rewards: dict[int, float] = {}

    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        plan = self.inner.plan(ctx, queue, pinned)
        shape = pinned.get(self.job.id) if pinned else None
        self.pins.append((plan, shape if any(j is self.job for j in queue) else 0))
        return plan

    def shapes(self, job: Job) -> tuple[int, ...]:
        return self.inner.shapes(job)

    def reward(self, plan: Plan, ctx: PlanContext) -> float:
        reward = self.inner.reward(plan, ctx)
        shape = next((s for p, s in reversed(self.pins) if p is plan), None)
        if shape == 0:  # the plan without the job starts a round of PositiveOpportunity
            self.without, self.rewards = reward, {}
        elif shape is not None:
            self.rewards[shape] = reward
        return reward


def positive_opportunity_hint(
    job: Job, pools: Sequence[tuple[Sequence[Job], PlanContext, Scheduler]], size: int
) -> tuple[int, np.ndarray, np.ndarray]:
    """``(action, gain, valid)`` for ``job`` (see the module) offered to a provider planning on
    ``pools`` (its queue, context and scheduler on each of its pools); ``gain`` and ``valid``
    have one entry per processor count 1..``size`` (0 where the job has no such shape)."""
    gain = np.full(size, -np.inf, dtype=np.float32)
    valid = np.zeros(size, dtype=np.float32)
    chosen: Decision | None = None
    for queue, ctx, scheduler in pools:
        recorder = _Rewards(scheduler, job)
        decision = _POSITIVE_OPPORTUNITY.decide(job, queue, ctx, recorder)
        if decision.accepted and (chosen is None or _merit(decision) > _merit(chosen)):
            chosen = decision
        if recorder.without is not None:
            for n, reward in recorder.rewards.items():
                if n <= size:
                    gain[n - 1] = max(gain[n - 1], reward - recorder.without)
                    valid[n - 1] = 1.0
    gain[valid == 0] = 0.0
    action = 0
    if chosen is not None and chosen.processors is not None:
        action = chosen.processors
    return action, gain, valid


def _merit(decision: Decision) -> float:
    """How a provider with several pools ranks their accepting decisions (the rise of the
    plan's reward, else the job's expected profit; ties: the pool listed first)."""
    if decision.gain is not None:
        return decision.gain
    return decision.expected_profit if decision.expected_profit is not None else 0.0
