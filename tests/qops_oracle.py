"""A plain QoPS (Islam, Balaji, Sadayappan & Panda, OSU-CISRC-4/03-TR21, §3, Figure 3) to check
agents/policies/qops.py against: an event loop in seconds in which each admitted job starts when
its reservation comes, written apart from the policy (its own free-processor profile, placement
and insertion loop, none of the policy's shortcuts). Its readings are the policy's: the waiting
jobs in order of reserved start; insertion points 0, N - N/2, N - N/4, ..., then N; the new job
first at a point and the rest by EDF (deadline, arrival, id); when the job at T misses its
deadline, the jobs from mid = (ts + T) / 2 are re-sorted with it first, at most K times; the first
feasible point is taken; jobs are placed at their earliest start (conservative backfilling).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

SLACK = 1e-9 * 3600  # seconds: the policy's deadline tolerance (1e-9 h)


@dataclass(frozen=True)
class Job:
    id: int
    arrival: int  # seconds
    processors: int
    runtime: int  # seconds (exact estimates)
    deadline: float  # seconds

    def edf(self) -> tuple[float, float, int]:
        return self.deadline, self.arrival, self.id


class Free:
    """Free processors from each breakpoint on: ``times[i]`` -> ``free[i]``."""

    def __init__(self, now: float, capacity: int, running: list[tuple[float, int]]) -> None:
        self.times, self.free = [now], [capacity - sum(n for _, n in running)]
        for end, n in sorted(running):
            if end == self.times[-1]:  # jobs ending together: one step
                self.free[-1] += n
            else:
                self.times.append(end)
                self.free.append(self.free[-1] + n)

    def copy(self) -> Free:
        other = Free.__new__(Free)
        other.times, other.free = self.times[:], self.free[:]
        return other

    def earliest(self, n: int, runtime: float, after: float) -> float:
        """The earliest start at or after ``after`` with ``n`` free for ``runtime``."""
        times, free = self.times, self.free
        j = max(bisect_right(times, after) - 1, 0)
        start = max(after, times[j])
        while True:
            if free[j] < n:  # blocked: try from the next breakpoint
                if j + 1 == len(times):
                    return math.inf
                j += 1
                start = times[j]
            elif j + 1 == len(times) or times[j + 1] >= start + runtime:
                return start
            else:
                j += 1

    def take(self, start: float, runtime: float, n: int) -> None:
        for x in (start, start + runtime):
            if x not in self.times:
                k = next((i for i, t in enumerate(self.times) if t > x), len(self.times))
                self.times.insert(k, x)
                self.free.insert(k, self.free[k - 1])
        for i, t in enumerate(self.times):
            if start <= t < start + runtime:
                self.free[i] -= n


def place(free: Free, order: list[Job], now: float) -> tuple[list[tuple[Job, float]], int]:
    """Place ``order`` in turn; the reservations, and the index of the first job that misses
    its deadline (-1 if none)."""
    slots = []
    for i, job in enumerate(order):
        start = free.earliest(job.processors, job.runtime, now)
        if start + job.runtime > job.deadline + SLACK:
            return slots, i
        free.take(start, job.runtime, job.processors)
        slots.append((job, start))
    return slots, -1


def points(n: int) -> list[int]:
    out, shift = [0], 1
    while (p := n - (n >> shift)) < n:
        if p > out[-1]:
            out.append(p)
        shift += 1
    return [*out, n] if n > out[-1] else out


def admit(job: Job, waiting: list[Job], base: Free, now: float, k: int):
    """Figure 3 for ``job``: the new schedule (reservations in order), or None."""
    for ts in points(len(waiting)):
        free = base.copy()
        kept, _ = place(free, waiting[:ts], now)
        order = [job, *sorted(waiting[ts:], key=Job.edf)]
        for _ in range(k + 1):
            slots, miss = place(free.copy(), order, now)
            if miss < 0:
                return kept + slots
            if miss == 0:
                break
            mid = miss // 2
            rest = sorted(order[mid:miss] + order[miss + 1 :], key=Job.edf)
            order = [*order[:mid], order[miss], *rest]
    return None


def run(jobs: list[Job], capacity: int, k: int = 5) -> dict[int, bool]:
    """Whether each of ``jobs`` (by arrival, then id) is admitted."""
    running: list[tuple[float, int]] = []  # (end, processors)
    schedule: list[tuple[Job, float]] = []  # waiting jobs and their reserved starts
    admitted = {}
    for job in sorted(jobs, key=lambda j: (j.arrival, j.id)):
        now = job.arrival
        running += [(s + j.runtime, j.processors) for j, s in schedule if s <= now]
        schedule = sorted(((j, s) for j, s in schedule if s > now), key=lambda js: js[1])
        running = [(end, n) for end, n in running if end > now]
        found = admit(job, [j for j, _ in schedule], Free(now, capacity, running), now, k)
        admitted[job.id] = found is not None
        if found is not None:
            schedule = found
    return admitted
