"""What-if simulation: the revenue a window of past arrivals would have earned under an admission
rule (Islam, Balaji, Sabin & Sadayappan, OSU-CISRC-3/07-TR17, §4.3.1: "simulations to estimate the
revenue that would have been realized for various choices of OC-Factors").

A small event loop, pure and Mesa-free, running the same code as the live market: each arrival is
offered to the admission rule (``decide``, e.g. :meth:`VQoPS.decide_with`) with the queue in its
order and the pool as it is; an admitted job's ``queue_order`` is applied and the scheduler
re-plans (``scheduler.plan``, the service provider's conservative scheduler). Jobs start at their
planned starts and earn their price at their planned ends. Our choices: the pool is empty at the
window's start; jobs run for their *estimates* (the scheduler knows no more about a job that has
not run; with exact estimates this is the run itself), so a plan stays valid until the next
arrival and nothing else needs an event; the queue is kept in planned-start order (compression).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from agents.policies.base import Decision, Placement, PlanContext, Scheduler
from market.capacity import CapacityProfile
from market.jobs import Job

Decide = Callable[[Job, Sequence[Job], PlanContext], Decision]


def whatif_revenue(
    jobs: Sequence[Job],
    capacity: int,
    decide: Decide,
    scheduler: Scheduler,
    price: float = 0.0,
) -> float:
    """The revenue ``jobs`` (in arrival order) earn on an empty pool of ``capacity`` under
    ``decide`` and ``scheduler`` (see the module docstring)."""
    queue: list[Job] = []
    pool: CapacityProfile | None = None  # free processors, started jobs taken out
    shapes: dict[int, int] = {}
    pending: list[Placement] = []  # the last plan's placements not started yet
    earned: list[float] = []
    for job in jobs:
        now = job.arrival
        if pending and pending[0].start <= now:  # start what the last plan starts before now
            started = {p.job.id for p in pending if p.start <= now}
            for p in pending:
                if p.job.id in started:
                    pool.reserve(p.start, p.end - p.start, p.processors)
                    earned.append(p.value)
            pending = [p for p in pending if p.job.id not in started]
            queue = [p.job for p in pending]  # in planned-start order (compression)
        if pool is None:
            pool = CapacityProfile(capacity, origin=now)
        pool.trim(now)
        ctx = PlanContext(now, pool, price, shapes=shapes)  # policies plan on copies
        decision = decide(job, queue, ctx)
        if not decision.accepted:
            continue  # the plan stands: with runtimes = estimates nothing moves
        queue.append(job)
        if decision.processors is not None:
            shapes[job.id] = decision.processors
        if decision.queue_order is not None:
            position = {job_id: i for i, job_id in enumerate(decision.queue_order)}
            queue.sort(key=lambda j: position[j.id])
        placements = scheduler.plan(ctx, queue).placements
        pending = sorted(placements, key=lambda p: p.start)  # stable: ties keep queue order
        queue = [p.job for p in pending]
    earned.extend(p.value for p in pending)
    return math.fsum(earned)
