"""The steps that turn a trace's selected records into a job stream, one function each, in the
order :meth:`~market.inputs.workloads.trace.TraceWorkload.prepare` composes them: subset,
convert (with estimates), scale the load, put times on the second grid, give deadlines.

Each step is a pure function of arrays and its own parameters, citing the paper it follows
(QoPS OSU-CISRC-4/03-TR21 §4, VQoPS OSU-CISRC-3/07-TR17 §3, LibraRisk §4). Random draws come
from streams the caller spawns once and draws in full whatever the parameters, so that changing
the load or the deadline rule never changes the other draws.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from market.inputs.workloads.deadlines import (
    easy_response_times,
    factor_deadlines,
    relaxed_deadlines,
    stringency_deadlines,
)

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class Stream:
    """Jobs in the making, one entry each (times in hours): ``source`` is the SWF job number,
    ``copy`` 0 for an original and k for its k-th duplicate, ``marks`` whether the job has a
    user deadline and ``urgency`` its deadline/runtime factor (both drawn per original)."""

    arrival: np.ndarray
    runtime: np.ndarray
    estimate: np.ndarray
    processors: np.ndarray
    source: np.ndarray
    copy: np.ndarray
    marks: np.ndarray
    urgency: np.ndarray

    def take(self, index: np.ndarray) -> Stream:
        """The jobs at ``index``, in that order."""
        return Stream(
            arrival=self.arrival[index],
            runtime=self.runtime[index],
            estimate=self.estimate[index],
            processors=self.processors[index],
            source=self.source[index],
            copy=self.copy[index],
            marks=self.marks[index],
            urgency=self.urgency[index],
        )


def subset(
    submit: np.ndarray,
    first_jobs: int | None,
    last_jobs: int | None,
    window: tuple[float, float] | None,
) -> slice:
    """Which selected records to keep (QoPS used 5000-job subsets, VQoPS 10,000): the first or
    last N, or those submitted in ``window`` hours after the first selected submission."""
    if first_jobs is not None:
        return slice(0, first_jobs)
    if last_jobs is not None:
        return slice(max(len(submit) - last_jobs, 0), None)
    if window is not None and len(submit):
        lo, hi = (submit[0] + w * SECONDS_PER_HOUR for w in window)
        return slice(
            int(np.searchsorted(submit, lo, "left")), int(np.searchsorted(submit, hi, "left"))
        )
    return slice(None)


def planned_estimates(
    runtime: np.ndarray, requested: np.ndarray | None, inaccuracy: float | None
) -> tuple[np.ndarray, int]:
    """What planners believe each job runs for, and how many requests were raised: the runtime
    (``requested`` None: exact estimates, as QoPS assumed), else the user's request raised to
    the runtime where it is missing or shorter, moved ``inaccuracy`` % of the way from the
    runtime (0) to that request (100; LibraRisk §4)."""
    if requested is None:
        return runtime.copy(), 0
    short = np.isnan(requested) | (requested < runtime)
    estimate = np.where(short, runtime, requested)
    if inaccuracy is not None:
        estimate = runtime + (inaccuracy / 100.0) * (estimate - runtime)
    return estimate, int(short.sum())


def scale_load(
    jobs: Stream,
    factor: float,
    method: str,
    order: np.ndarray,
    random_arrival: np.ndarray | None,
) -> Stream:
    """The stream at ``factor`` x its offered load (QoPS §4.2), in arrival order (originals first
    among equals).

    ``duplicate`` adds ``round((factor - 1) n)`` copies of jobs taken in the fixed random
    ``order`` (cycling above 2x), each arriving with its original (VQoPS §3) or at the given
    ``random_arrival`` times (QoPS §4.2); ``expand`` makes every job ``factor`` times longer
    (our reading of QoPS's undefined "job expansion"); ``compress`` submits the same jobs
    ``factor`` times as fast."""
    n = len(jobs.arrival)
    origin = np.arange(n)
    copy = np.zeros(n, dtype=np.int64)
    arrival, runtime, estimate = jobs.arrival, jobs.runtime, jobs.estimate
    if factor > 1.0 and n:
        if method == "duplicate":
            extra = round((factor - 1.0) * n)
            picks = order[np.arange(extra) % n]
            when = arrival[picks] if random_arrival is None else random_arrival
            origin = np.concatenate([origin, picks])
            copy = np.concatenate([copy, np.arange(extra) // n + 1])
            arrival = np.concatenate([arrival, when])
        elif method == "expand":
            runtime = runtime * factor
            estimate = estimate * factor
        else:  # compress
            arrival = arrival / factor
    scaled = replace(jobs.take(origin), arrival=arrival, copy=copy)
    if len(origin) == n:  # (no copies: runtimes as scaled above)
        scaled = replace(scaled, runtime=runtime, estimate=estimate)
    ordered = np.lexsort((np.arange(len(arrival)), arrival))
    return scaled.take(ordered)


def on_second_grid(jobs: Stream, delay_factor: float) -> Stream:
    """Arrivals times ``delay_factor`` (LibraRisk §4: every inter-arrival time scaled), then
    every time in whole seconds, as the trace's own are, so that a replay is exact: every event
    lands on the clock's second grid (:mod:`market.sim.clock`)."""
    arrival = jobs.arrival * delay_factor if delay_factor != 1.0 else jobs.arrival
    arrival, runtime, estimate = (
        np.rint(x * SECONDS_PER_HOUR) / SECONDS_PER_HOUR
        for x in (arrival, jobs.runtime, jobs.estimate)
    )
    return replace(jobs, arrival=arrival, runtime=runtime, estimate=estimate)


def deadlines(
    jobs: Stream,
    rule: str,
    capacity: int,
    *,
    stringency: float,
    deadline_factor: float,
    relaxation: float | None,
    relaxed_floor: float,
) -> tuple[np.ndarray, np.ndarray]:
    """``(deadline, user_deadline)`` per job (NaN: none). A marked job gets its rule's deadline:
    ``stringency`` (QoPS §4.1, from an EASY replay of the stream on ``capacity``), ``factor``
    (VQoPS §3, k x estimate) or ``urgency`` (LibraRisk §4, f x runtime); the others get the
    relaxed ``arrival + max(floor, R x estimate)`` (QoPS §4.2), or none without ``relaxation``.
    With rule ``none`` no job has one."""
    arrival, estimate = jobs.arrival, jobs.estimate
    deadline = np.full(len(arrival), np.nan)
    if rule == "none":
        return deadline, np.zeros(len(arrival), dtype=bool)
    if rule == "stringency":
        response = easy_response_times(
            arrival, jobs.processors, jobs.runtime, estimate, capacity, SECONDS_PER_HOUR
        )
        user = stringency_deadlines(arrival, estimate, response, stringency)
    elif rule == "urgency":
        user = arrival + jobs.urgency * jobs.runtime
    else:
        user = factor_deadlines(arrival, estimate, deadline_factor)
    deadline = np.where(jobs.marks, user, np.nan)
    if relaxation is not None:
        relaxed = relaxed_deadlines(arrival, estimate, relaxation, relaxed_floor)
        deadline = np.where(jobs.marks, deadline, relaxed)
    return deadline, jobs.marks
