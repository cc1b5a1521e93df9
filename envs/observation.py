"""What an admission agent sees, and what it may do: the spaces of the learning environments.

One observation describes the job offered and its provider at the instant of admission
(Popovici & Wilkes SC'05 §3.4), in the model's own units (hours from now, processors, florins),
unscaled (normalise it with a wrapper); ``C`` is the provider's pool capacity (its widest pool),
and per-shape vectors have one entry per ``n = 1..C``. The fields: :data:`JOB_FIELDS`,
:data:`PROVIDER_FIELDS` and docs/papers/environments.md. The action (:func:`action_space`) is
``Discrete(C + 2)``: 0 rejects, ``n`` admits on ``n`` processors, ``C + 1`` on the scheduler's
choice (``accept_all``, §3.4's no-admission-control reference); the mask (:func:`action_mask`)
allows 0, the job's shapes, and ``C + 1`` if a shape the scheduler runs fits. Our choice where
the paper is silent (:class:`Observer`'s parameters): the capacity outlook samples ``points``
times over ``horizon`` hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from agents.planner import Planner
from agents.service_provider import ServiceProviderAgent
from envs.hint import positive_opportunity_hint
from market.core.jobs import Job

#: The entries of ``obs["job"]``.
JOB_FIELDS = (
    "offered",  # 1 if this provider is asked about the job now (Market-v0), else 0
    "work",  # the provider's estimate of the job's runtime on one processor (hours)
    "value",  # what the client pays if the job completes before its value decays (florins)
    "decay",  # value lost per hour of delay once decay has started (florins per hour)
    "penalty",  # the lowest value, paid when it completes late enough (florins; < 0: a penalty)
    "decay_start",  # hours from now until the value starts to decay
    "floor_time",  # hours from now until the value reaches the penalty bound
    "deadline",  # hours from now until the job's deadline (0 without one)
    "has_deadline",  # 1 if the job has a deadline
)
#: The entries of ``obs["provider"]``.
PROVIDER_FIELDS = (
    "time",  # the simulation time (hours)
    "queue_length",  # admitted jobs waiting to start
    "queue_work",  # processor-hours the waiting jobs need on their admitted shapes
    "running",  # jobs running
    "busy",  # processors held by running jobs
    "plan_end",  # hours from now until the waiting jobs end in the latest plan (0: none wait)
    "available",  # processors free to rent now
    "capacity",  # processors in the pool (C)
    "price",  # rent now (florins per processor-hour)
    "sigma",  # sd of the pool's availability forecast error (processors; 0: certain)
)
# With several pools: ``available``, ``capacity`` and ``free`` are summed over them, ``price`` is
# the cheapest, ``sigma`` that of the sum (independent errors), ``profit_now`` at the cheapest
# pool the shape fits, and the per-shape vectors run to the widest pool (C).
_J = {name: i for i, name in enumerate(JOB_FIELDS)}
_P = {name: i for i, name in enumerate(PROVIDER_FIELDS)}


class AdmissionActions(spaces.Discrete):
    """``Discrete(C + 2)`` whose :meth:`sample` draws, unless told otherwise, only actions the
    current job allows (``allowed``, set by the environment at each step), so that
    ``env.action_space.sample()`` is always a valid action; an invalid one is an error."""

    def __init__(self, n: int, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self.allowed: np.ndarray | None = None

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None):
        if mask is None and probability is None:
            mask = self.allowed
        return super().sample(mask=mask, probability=probability)


def action_space(capacity: int) -> AdmissionActions:
    """0: reject; ``n`` in 1..capacity: admit on ``n`` processors; capacity + 1: admit on the
    scheduler's shape."""
    return AdmissionActions(capacity + 2)


def action_mask(job: Job | None, planner: Planner, capacity: int) -> np.ndarray:
    """Which actions ``job`` allows (int8, 1 = allowed); only reject without a job."""
    mask = np.zeros(capacity + 2, dtype=np.int8)
    mask[0] = 1
    if job is not None:
        for n in job.shapes:
            if n <= capacity:
                mask[n] = 1
        if any(n <= capacity for n in planner.scheduler.shapes(job)):
            mask[capacity + 1] = 1
    return mask


@dataclass(frozen=True)
class Observer:
    """Builds one provider's observations.

    Args:
        capacity: the pool's capacity C.
        hint: add PositiveOpportunity's per-shape computation (``hint_gain``, ``hint_valid``;
            :mod:`envs.hint`), at the cost of its plans (one per shape, and one without).
        horizon: hours the capacity outlook ``free`` covers.
        points: how many times it samples (evenly, from now on).
    """

    capacity: int
    hint: bool = False
    horizon: float = 24.0
    points: int = 12

    def __post_init__(self) -> None:
        if not (self.horizon > 0 and self.points >= 1 and self.capacity >= 1):
            raise ValueError("horizon must be > 0, points >= 1 and the pool's capacity >= 1")

    def space(self) -> spaces.Dict:
        """The observation space (float32 boxes; see the module and the field lists)."""
        c, inf = self.capacity, np.inf
        box = {
            "job": spaces.Box(-inf, inf, (len(JOB_FIELDS),), np.float32),
            "shapes": spaces.Box(0.0, 1.0, (c,), np.float32),
            "runtime": spaces.Box(0.0, inf, (c,), np.float32),
            "profit_now": spaces.Box(-inf, inf, (c,), np.float32),
            "provider": spaces.Box(0.0, inf, (len(PROVIDER_FIELDS),), np.float32),
            "free": spaces.Box(0.0, inf, (self.points,), np.float32),
        }
        if self.hint:
            box["hint_gain"] = spaces.Box(-inf, inf, (c,), np.float32)
            box["hint_valid"] = spaces.Box(0.0, 1.0, (c,), np.float32)
        return spaces.Dict(box)

    def observe(
        self, provider: ServiceProviderAgent, job: Job | None, now: float
    ) -> tuple[dict[str, np.ndarray], int | None]:
        """``provider``'s observation of ``job`` offered at ``now`` (job fields 0 without one),
        and the action PositiveOpportunity takes (None unless ``hint``)."""
        c = self.capacity
        planners, pools = provider.planners, provider.pools
        # The contexts admission decides on (cached per instant), one per pool.
        contexts = [planner.context(now) for planner in planners]
        f32 = np.float32
        po_action = None
        obs: dict[str, np.ndarray] = {}
        if job is None:
            obs["job"] = np.zeros(len(JOB_FIELDS), f32)
            obs["shapes"] = np.zeros(c, f32)
            obs["runtime"] = np.zeros(c, f32)
            obs["profit_now"] = np.zeros(c, f32)
            if self.hint:
                obs["hint_gain"] = np.zeros(c, f32)
                obs["hint_valid"] = np.zeros(c, f32)
        else:
            u = job.utility
            times = u.times
            deadline = job.deadline
            obs["job"] = np.array(
                (
                    1.0,
                    job.predicted_runtime(1),
                    u.max_value,
                    u.decay_rate(max(now, times[0])),
                    u.penalty_bound,
                    max(times[0] - now, 0.0),
                    max(times[-1] - now, 0.0),
                    0.0 if deadline is None else deadline - now,
                    0.0 if deadline is None else 1.0,
                ),
                f32,
            )
            shapes, runtime, profit = [0.0] * c, [0.0] * c, [0.0] * c
            costs = [
                (pool.capacity, ctx.price.cost) for pool, ctx in zip(pools, contexts, strict=True)
            ]
            for n in job.shapes:
                if n > c:
                    break
                rt = job.predicted_runtime(n)
                shapes[n - 1] = 1.0
                runtime[n - 1] = rt
                rent = min(cost(n, now, now + rt) for size, cost in costs if size >= n)
                profit[n - 1] = u(now + rt) - rent
            obs["shapes"] = np.array(shapes, f32)
            obs["runtime"] = np.array(runtime, f32)
            obs["profit_now"] = np.array(profit, f32)
            if self.hint:
                planning = zip(planners, contexts, strict=True)
                po_action, gain, valid = positive_opportunity_hint(
                    job, [(p.queue, ctx, p.scheduler) for p, ctx in planning], c
                )
                obs["hint_gain"], obs["hint_valid"] = gain, valid
        work, queued = 0.0, 0
        for planner in planners:
            admitted = planner.shapes
            queued += len(planner.queue)
            for waiting in planner.queue:
                n = admitted.get(waiting.id, 1)
                work += n * waiting.predicted_runtime(n)
        plan = provider.last_plan
        sigma = [pool.uncertainty.sigma for pool in pools]
        obs["provider"] = np.array(
            (
                now,
                queued,
                work,
                provider.running,
                provider.busy,
                max(plan.end - now, 0.0) if queued and plan is not None else 0.0,
                sum(pool.available() for pool in pools),
                sum(pool.capacity for pool in pools),
                min(ctx.price.at(now) for ctx in contexts),
                sigma[0] if len(sigma) == 1 else math.sqrt(sum(s * s for s in sigma)),
            ),
            f32,
        )
        step = self.horizon / self.points
        outlook = [ctx.capacity.free_at for ctx in contexts]
        obs["free"] = np.array(
            [sum(free_at(now + k * step) for free_at in outlook) for k in range(self.points)], f32
        )
        return obs, po_action
