"""Replay a job stream on a fixed pool under one scheduler, without the market.

The same planning code a service provider runs (:class:`agents.planner.Planner` with the
registered policies) in a small Mesa-free event loop that keeps the service provider's timing
(:mod:`agents.service_provider`): at each instant every completion and arrival is handled first,
each arrival offered to admission and queued if accepted, then the scheduler runs once and
starts the jobs its plan has due, each leasing its processors until its estimated end; the
replay wakes again at the next arrival, completion or planned start. Jobs run for their actual
runtime on the shape they start on and never reshape (a trace's jobs are rigid).

QoPS §4.1 sets deadlines from "the completion time of the jobs with the EASY back-fill
schedule" (:mod:`market.inputs.workloads.deadlines`): this is that schedule, from the EASY the
market
runs, so there is one EASY. With ``ticks_per_hour`` every end is snapped to the tick grid as
the market's clock does (:mod:`market.sim.clock`), so a trace replays in exact whole seconds.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from agents.planner import Planner
from agents.policies.admission import AcceptAll
from agents.policies.base import Admission, Scheduler
from market.core.capacity import CapacityProfile, LeaseEnds
from market.core.forecast import Forecast
from market.core.jobs import Job
from market.core.rent import PriceSchedule


class FixedPool:
    """A pool of ``capacity`` processors that never varies, free of rent: what the planner
    reads of a resource provider (:class:`agents.planner.Pool`)."""

    varies = False

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.price = PriceSchedule.constant(0.0)
        self.version = 0
        self.in_use = 0
        self.ends = LeaseEnds(capacity)

    def forecast(self, now: float) -> Forecast:  # pragma: no cover - a fixed pool never varies
        raise NotImplementedError("a fixed pool is planned on its free profile")

    def free_profile(self, now: float) -> CapacityProfile:
        return self.ends.profile(now)

    def ends_between(self, after: float, until: float) -> bool:
        return self.ends.ends_between(after, until)

    def lease(self, processors: int, until: float) -> None:
        self.in_use += processors
        self.ends.add(until, processors)
        self.version += 1

    def release(self, processors: int, until: float) -> None:
        self.in_use -= processors
        self.ends.add(until, -processors)
        self.version += 1


def replay_starts(
    jobs: Sequence[Job],
    capacity: int,
    scheduler: Scheduler,
    admission: Admission | None = None,
    ticks_per_hour: float | None = None,
) -> list[float]:
    """Each job's start time (NaN if it never starts: rejected, or it cannot fit) when ``jobs``
    arrive at a provider with ``admission`` (default: accept all) and ``scheduler`` on a fixed
    pool of ``capacity`` processors (see the module docstring)."""

    def snap(time: float) -> float:
        return time if ticks_per_hour is None else round(time * ticks_per_hour) / ticks_per_hour

    pool = FixedPool(capacity)
    planner = Planner(scheduler, admission or AcceptAll(), pool)
    arrivals = sorted(range(len(jobs)), key=lambda k: jobs[k].arrival)  # stable: ties by order
    index = {job.id: k for k, job in enumerate(jobs)}
    start = [math.nan] * len(jobs)
    running: list[tuple[float, int, int, float]] = []  # (end, job index, processors, lease end)
    wake: float | None = None
    i = 0
    while i < len(arrivals) or running or (wake is not None and planner.queue):
        now = min(
            jobs[arrivals[i]].arrival if i < len(arrivals) else math.inf,
            running[0][0] if running else math.inf,
            wake if wake is not None else math.inf,
        )
        while running and running[0][0] <= now:
            _, _, processors, until = heapq.heappop(running)
            pool.release(processors, until)
        while i < len(arrivals) and jobs[arrivals[i]].arrival <= now:
            job = jobs[arrivals[i]]
            decision = planner.quote(job, now)
            if decision.accepted:
                planner.admit(job, decision, now)
            i += 1
        wake = None
        if not planner.queue:
            continue
        plan = planner.plan(now)
        for placement in plan.due(now):
            job, n = placement.job, placement.processors
            if n > capacity - pool.in_use:
                continue  # waits for the next run, as at the service provider
            until = snap(now + job.predicted_runtime(n))
            pool.lease(n, until)
            k = index[job.id]
            start[k] = now
            heapq.heappush(running, (snap(now + job.runtime(n)), k, n, until))
            planner.started(job)
        if scheduler.compresses:
            planner.compress(plan)
        nxt = plan.next_start(now)
        if nxt is not None:
            wake = snapped if (snapped := snap(nxt)) > now else nxt
    return start
