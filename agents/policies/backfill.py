"""Queue-order schedulers for a fixed pool: FCFS, EASY backfilling and conservative backfilling,
the non-deadline references of Islam et al., "QoPS: a QoS based scheme for parallel job
scheduling" (OSU-CISRC-4/03-TR21) §5 ("EASY and Conservative back-filling").

Each keeps the service provider's queue in the order it is given: arrival order by default, or
the order an admission policy set (QoPS and its kin return ``Decision.queue_order``). None looks
at value or price; each reports the plan's profit as its reward (the base class's), which only
matters if one is combined with a profit-aware admission policy.

Each job runs on one shape, :func:`rigid_shape`: a trace job's only shape, or the widest shape of
a moldable job (our choice: these schedulers do not choose shapes). A shape pinned by admission
wins. All three plan with the jobs' runtime *estimates* (``predicted_runtime``).

- :class:`FCFS` (``fcfs``): strict arrival order, no backfilling: each job is placed at its
  earliest start on what the jobs before it left, but never before the previous job's start, so
  no job starts ahead of one queued before it.
- :class:`EASY` (``easy``): EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001), defined on
  the capacity profile as

  1. jobs start now, in queue order, while each fits now for its whole estimated runtime;
  2. the first job that cannot (the *head*) gets a reservation at its earliest start;
  3. every later job, in queue order, starts now if it fits now for its whole estimated runtime
     on what is left with the head's reservation in place, i.e. it either ends (by its estimate)
     before the reservation or uses only processors the reservation leaves spare. The others
     wait, unplaced.

  On a fixed pool this is the classic rule (shadow time and extra processors). The plan holds
  only the jobs starting now and the head's reservation: the waiting jobs are simply left out of
  ``Plan.placements`` (not put in ``Plan.unplaced``, which means "can never fit"), so the
  service provider's next run, at the next arrival, completion or the head's reservation, looks
  at them again. A job too wide for the pool is unplaced and skipped; the next job becomes the
  head.
- :class:`Conservative` (``conservative``): conservative backfilling: every queued job gets a
  reservation, in queue order, each at its earliest start on what the jobs before it left
  (:func:`agents.policies.list_scheduling.place`). A later job may start earlier than an earlier
  one only in a gap it fits without moving any earlier reservation. This is the schedule the
  QoPS-family admission policies check (:mod:`agents.policies.deadline_schedule`), so pair
  them with it.
  Placed in queue order, a job's reservation never moves when jobs are added behind it, and
  with exact estimates it stays put as time passes; when jobs end early, placing in order of
  the previous plan's starts (not what the service provider does today) is what guarantees
  that no reservation moves later.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from agents.policies.base import Placement, Plan, PlanContext, Scheduler, placement
from agents.policies.list_scheduling import place
from agents.policies.registry import register_scheduler
from market.core.jobs import Job


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
    docstring for the exact rule). Reward: plan profit."""

    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        profile = ctx.capacity.copy()
        now, price = ctx.now, ctx.price
        pinned_shape = ctx.pins(pinned).get
        placements: list[Placement] = []
        unplaced: list[Job] = []
        free_now, free_ever = profile.free_at(now), profile.free_at(math.inf)
        jobs = iter(queue)
        # 1-2. Jobs start now in queue order while they fit; the first that does not is the head.
        for job in jobs:
            n = pinned_shape(job.id) or job.shapes[-1]  # rigid_shape, inlined: the hot loop
            runtime = job.predicted_runtime(n)
            start = profile.reserve_earliest(n, runtime, now)  # now, or the head's reservation
            if start == math.inf:
                unplaced.append(job)  # more than the profile will ever have free
                continue
            placements.append(placement(job, n, start, start + runtime, price))
            if start > now:
                break
            free_now -= n
        # 3. Every later job starts now if it fits now around the head's reservation, or waits.
        for job in jobs:
            shapes = job.shapes
            # A quick test first, as most of a long queue waits: a pinned shape is one of the
            # job's shapes, so if its narrowest does not fit now, none does.
            if shapes[0] <= free_now:
                n = pinned_shape(job.id) or shapes[-1]
                if n <= free_now:
                    runtime = job.predicted_runtime(n)
                    if profile.reserve_at(now, runtime, n):
                        placements.append(placement(job, n, now, now + runtime, price))
                        free_now -= n
                    continue
            if shapes[-1] > free_ever and (pinned_shape(job.id) or shapes[-1]) > free_ever:
                unplaced.append(job)  # more than the profile will ever have free
        return Plan(now, placements, unplaced)


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
