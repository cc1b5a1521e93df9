"""Queue-order schedulers for a fixed pool: FCFS, EASY and conservative backfilling, the references
of the QoPS paper (Islam et al., OSU-CISRC-4/03-TR21 §5).

Each keeps the queue in the order given (arrival, or an admission policy's
``Decision.queue_order``), runs each job on :func:`rigid_shape` (its only shape, or its widest:
our choice) unless admission pinned one, and plans on the estimates. :class:`FCFS`: no job
starts ahead of one queued before it. :class:`EASY` (Lifka 1995): jobs start now in order while
they fit; the first that does not (the head) gets a reservation; later jobs start now only if
they fit around it; the others are left out of the plan, not ``unplaced``, and looked at again
next time. :class:`Conservative`: every job a reservation in queue order, each at its earliest
start on what the jobs before it left; the schedule the QoPS-family admission policies check, so
pair them with it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agents.policies.base import Placement, Plan, PlanContext, Scheduler, placement
from agents.policies.list_scheduling import place, place_on
from agents.policies.registry import register_scheduler
from market.core.capacity import EPS, CapacityProfile
from market.core.jobs import Job
from market.core.shadow import ShadowProfile


def rigid_shape(job: Job, pinned: Mapping[int, int] | None = None) -> int:
    """The one shape these schedulers run ``job`` on: a pinned one, else its widest."""
    if pinned and job.id in pinned:
        return pinned[job.id]
    return job.max_shape


@register_scheduler("fcfs")
class FCFS(Scheduler):
    """First come, first served without backfilling: starts never overtake the queue order.

    Each job is placed at its earliest start no earlier than the previous placed job's start
    (jobs may start together; a later job may use a gap that opens after its predecessor
    started). Reward: plan profit.
    """

    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        profile = ctx.capacity.copy()
        after = ctx.now
        pins = ctx.pins(pinned)
        placements: list[Placement] = []
        unplaced: list[Job] = []
        for job in queue:
            n = rigid_shape(job, pins)
            runtime = job.predicted_runtime(n)
            start = profile.earliest_start(n, runtime, after)
            if start == math.inf:
                unplaced.append(job)
                continue
            profile.reserve(start, runtime, n)
            placements.append(placement(job, n, start, start + runtime, ctx.price))
            after = start
        return Plan(ctx.now, placements, unplaced)


@register_scheduler("easy")
class EASY(Scheduler):
    """EASY backfilling: only the first waiting job holds a reservation (see the module
    docstring for the exact rule). Reward: plan profit.

    Its plan leaves what it needs to go on (:class:`_Resume`): a job appended to the queue is
    placed after the others without placing them again (:meth:`extend`)."""

    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        capacity, now = ctx.capacity, ctx.now
        if capacity.rising and capacity.origin <= now:  # (a fixed pool's: leases only end)
            profile = ShadowProfile(capacity, now)
            free_now, free_ever = profile.base_free_now, profile.base_free_ever
        else:
            profile = capacity.copy()
            free_now, free_ever = capacity.free_at(now), capacity.free_at(math.inf)
        return _place(ctx, queue, pinned, _Resume(profile, free_now, free_ever, False), [], [])

    def extend(
        self, plan: Plan, ctx: PlanContext, job: Job, pinned: Mapping[int, int] | None = None
    ) -> Plan | None:
        """As :meth:`Scheduler.extend`. A plan made earlier on the same capacity is still the
        plan at ``ctx.now`` while nothing in it is due by then: the head's earliest start is
        the same from any time before it, and a job that could not start then around it cannot
        now, as its run would only reach later into the same profile."""
        state = plan.resume
        if type(state) is not _Resume or plan.due(ctx.now):
            return None  # (not EASY's, or something in it is due by now)
        state = _Resume(state.profile.copy(), state.free_now, state.free_ever, state.head)
        return _place(ctx, (job,), pinned, state, plan.placements.copy(), plan.unplaced.copy())


@dataclass(slots=True)
class _Resume:
    """Where EASY left its plan: the profile with its reservations, the processors still free
    now and ever, and whether the head (the first job that cannot start now) was found."""

    profile: CapacityProfile | ShadowProfile
    free_now: int
    free_ever: int
    head: bool


def _place(
    ctx: PlanContext,
    queue: Sequence[Job],
    pinned: Mapping[int, int] | None,
    state: _Resume,
    placements: list[Placement],
    unplaced: list[Job],
) -> Plan:
    """EASY's rule on ``queue`` from ``state`` (the module docstring): the plan, and ``state``
    left on it as it ends."""
    profile, now, price = state.profile, ctx.now, ctx.price
    pinned_shape = (ctx.pins(pinned) if pinned else ctx.shapes).get
    free_now, free_ever = state.free_now, state.free_ever
    jobs = iter(queue)
    # 1-2. Jobs start now in queue order while they fit; the first that does not is the head.
    for job in () if state.head else jobs:
        n = pinned_shape(job.id) or job.shapes[-1]  # rigid_shape, inlined: the hot loop
        runtime = job.predicted_runtime(n)
        start = profile.reserve_earliest(n, runtime, now)  # now, or the head's reservation
        if start == math.inf:
            unplaced.append(job)  # more than the profile will ever have free
            continue
        placements.append(placement(job, n, start, start + runtime, price))
        if start > now:
            state.head = True
            break
        free_now -= n
    # 3. Every later job starts now if it fits now around the head's reservation, or waits. On
    # a shadow profile, a run past the shadow time on more than the extra processors is refused
    # before it is asked for (most of an overloaded queue): the same answer, without the call.
    window = profile.window(now) if type(profile) is ShadowProfile else None
    shadow, extra = window if window is not None else (math.inf, math.inf)
    for job in jobs if free_now > 0 else ():
        shapes = job.shapes
        # A quick test first, as most of a long queue waits: a pinned shape is one of the
        # job's shapes, so if its narrowest does not fit now, none does.
        if shapes[0] <= free_now:
            n = pinned_shape(job.id) or shapes[-1]
            if n <= free_now:
                runtime = job.predicted_runtime(n)
                if n > extra and now + runtime - EPS > shadow:
                    continue  # past the shadow time on more than the extra processors
                if profile.reserve_at(now, runtime, n):
                    placements.append(placement(job, n, now, now + runtime, price))
                    free_now -= n
                    if free_now <= 0:
                        break  # (nothing later fits now: the rest below)
                    if window is not None:
                        shadow, extra = profile.window(now)
                continue
        if shapes[-1] > free_ever and (pinned_shape(job.id) or shapes[-1]) > free_ever:
            unplaced.append(job)  # more than the profile will ever have free
    # Once nothing fits now, only the jobs wider than the profile ever has leave the plan.
    unplaced += [
        job
        for job in jobs
        if job.shapes[-1] > free_ever and (pinned_shape(job.id) or job.shapes[-1]) > free_ever
    ]
    state.free_now = free_now
    return Plan(now, placements, unplaced, state)


@register_scheduler("conservative")
class Conservative(Scheduler):
    """Conservative backfilling: every job a reservation, in queue order. Reward: plan profit.

    It ``compresses``: after every plan the service provider keeps its queue in planned-start
    order, so that when a job ends early the jobs behind it move up in the order their
    reservations had, and a job that backfilled ahead of another keeps its place. Without that,
    QoPS's guarantees can fail when estimates are longer than runtimes (a later job in queue
    order would take the slot of one that had backfilled ahead of it).
    """

    compresses = True
    plans_in_order = True

    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        pins = ctx.pins(pinned)
        return place(ctx, [(job, rigid_shape(job, pins)) for job in queue])

    def extend(
        self, plan: Plan, ctx: PlanContext, job: Job, pinned: Mapping[int, int] | None = None
    ) -> Plan | None:
        """As :meth:`Scheduler.extend`: the job at its earliest start on the profile the plan
        left (:func:`place` keeps it). A plan made earlier with nothing due by ``ctx.now`` is the
        plan at ``ctx.now``: every job's earliest start from then on is the one it had."""
        profile = plan.resume
        if type(profile) is not CapacityProfile or plan.due(ctx.now):
            return None
        shaped = [(job, rigid_shape(job, ctx.pins(pinned)))]
        return place_on(profile.copy(), ctx, shaped, plan.placements.copy(), plan.unplaced.copy())
