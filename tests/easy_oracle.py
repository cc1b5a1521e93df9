"""The test oracle of EASY backfilling: a standalone event loop over arrays (no Mesa, no capacity
profile, no planner), written independently of :class:`agents.policies.backfill.EASY`. Run on
whole seconds it is the integer-arithmetic reference the market's trace replays are checked
against (tests/model/test_trace_exact.py); the market itself uses one EASY, the policy."""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, insort

import numpy as np


def easy_schedule(
    arrival: np.ndarray,
    processors: np.ndarray,
    runtime: np.ndarray,
    estimate: np.ndarray,
    capacity: int,
) -> np.ndarray:
    """Start times of the jobs on ``capacity`` processors under EASY backfilling.

    The queue is kept in arrival order (ties by index). At every arrival and completion:

    1. jobs start from the head of the queue while they fit;
    2. if a job is still waiting, the first one (the head) gets a reservation at the *shadow
       time*, when enough running jobs will have ended by their estimates (``start + estimate``,
       or now for a job already past its estimate) for it to fit; ``extra`` is what the pool then
       has left over beyond the head's processors (every job ending by the shadow time counted);
    3. every other waiting job, in queue order, starts now if it fits now and either ends (by its
       estimate) by the shadow time or uses no more than ``extra`` processors (which it then takes
       from ``extra``).

    Jobs run for their ``runtime``; the scheduler sees only ``estimate``. Every job must fit the
    pool (``processors <= capacity``); select records accordingly.

    Cost: the running jobs are kept sorted by estimated end and the waiting ones are scanned
    with numpy, so a 60,000-job trace takes well under a second at its own load.
    """
    arrival = np.asarray(arrival, dtype=np.float64)
    processors = np.asarray(processors, dtype=np.int64)
    n = len(arrival)
    if n and int(processors.max()) > capacity:
        raise ValueError(f"a job needs {int(processors.max())} processors; the pool has {capacity}")
    if n and int(processors.min()) < 1:
        raise ValueError("every job needs at least one processor")
    # Work in arrival order: position k is the k-th arrival; the queue is every arrived, not
    # started position, so it is a boolean mask over [lo, hi) and scans are numpy.
    order = np.argsort(arrival, kind="stable")
    arr = arrival[order]
    procs = processors[order]
    run = np.asarray(runtime, dtype=np.float64)[order]
    est = np.asarray(estimate, dtype=np.float64)[order]
    arr_list, procs_list = arr.tolist(), procs.tolist()
    run_list, est_list = run.tolist(), est.tolist()
    begun = np.full(n, np.nan)
    planned_end = [0.0] * n  # start + estimate of every started position
    waiting = np.zeros(n, dtype=bool)
    lo = hi = 0  # every position before lo has started; before hi has arrived
    free = capacity
    completions: list[tuple[float, int]] = []  # (actual end, position)
    running: list[tuple[float, int]] = []  # (estimated end, position), sorted
    while hi < n or lo < hi:
        next_arrival = arr_list[hi] if hi < n else math.inf
        next_end = completions[0][0] if completions else math.inf
        now = next_arrival if next_arrival < next_end else next_end
        while completions and completions[0][0] <= now:
            _, k = heapq.heappop(completions)
            free += procs_list[k]
            del running[bisect_left(running, (planned_end[k], k))]
        while hi < n and arr_list[hi] <= now:
            waiting[hi] = True
            hi += 1
        # 1. start from the head while jobs fit
        while lo < hi:
            if not waiting[lo]:
                lo += 1
            elif procs_list[lo] <= free:
                free -= procs_list[lo]
                waiting[lo] = False
                begun[lo] = now
                planned_end[lo] = now + est_list[lo]
                insort(running, (planned_end[lo], lo))
                heapq.heappush(completions, (now + run_list[lo], lo))
                lo += 1
            else:
                break
        if lo >= hi - 1 or free == 0:
            continue
        # 2. the head's reservation: the shadow time and the processors left over then
        need = procs_list[lo]
        avail = free
        shadow = math.inf
        counted = 0
        for end, k in running:  # overdue ones (end < now) count as ending now
            counted += 1
            avail += procs_list[k]
            if avail >= need:
                shadow = end if end > now else now
                break
        for end, k in running[counted:]:  # the others ending by then free theirs too
            if end > shadow:
                break
            avail += procs_list[k]
        extra = avail - need
        # 3. backfill, in queue order
        seg = slice(lo + 1, hi)
        wp = procs[seg]
        short = now + est[seg] <= shadow
        candidates = np.flatnonzero(waiting[seg] & (wp <= free) & (short | (wp <= extra)))
        for c in candidates.tolist():
            k = lo + 1 + c
            p = procs_list[k]
            if p > free:
                continue
            if not short[c]:
                if p > extra:
                    continue
                extra -= p
            free -= p
            waiting[k] = False
            begun[k] = now
            planned_end[k] = now + est_list[k]
            insort(running, (planned_end[k], k))
            heapq.heappush(completions, (now + run_list[k], k))
            if free == 0:
                break
    start = np.empty(n)
    start[order] = begun
    return start
