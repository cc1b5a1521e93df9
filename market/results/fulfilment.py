"""Deadline fulfilment metrics of a run (Yeo & Buyya, ICPP'06 §4), per service provider.

- ``deadlines_fulfilled_pct``: jobs completed by their deadline, as a share of every job
  **submitted** to the provider (rejected ones included), "out of the total number of jobs
  submitted"; NaN if no job offered to it has a deadline.
- ``mean_slowdown_fulfilled``: the mean slowdown of those jobs, response time (arrival to
  completion, waiting included) over "minimum runtime required" (the actual runtime at full
  speed on the processors it ran on); "the average slowdown is computed only for jobs with
  deadlines fulfilled".

A time-shared deadline cluster's ``utilization`` (:func:`used_share`) is the processor time its
jobs actually used (their runtime on each node, spread evenly over their stay) over the
node-hours of the arrival phase, since a node runs several jobs at once.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from market.sim.model import GridMarket

MET = 1e-9  # hours: a completion this close after the deadline is on time (float noise)


def fulfilment(records: list) -> tuple[float, float]:
    """``(deadlines_fulfilled_pct, mean_slowdown_fulfilled)`` of a provider's job records."""
    with_deadline = sum(1 for r in records if r.job.deadline is not None)
    slowdowns = [
        (r.end - r.job.arrival) / r.job.runtime(r.processors)
        for r in records
        if r.end is not None and r.job.deadline is not None and r.end <= r.job.deadline + MET
    ]
    fulfilled = 100.0 * len(slowdowns) / len(records) if with_deadline else math.nan
    return fulfilled, math.fsum(slowdowns) / len(slowdowns) if slowdowns else math.nan


def used_share(model: GridMarket, sp: Any) -> float:
    """The share (%) of a time-shared cluster's node-hours of the arrival phase its jobs used."""
    lo, hi = model.first_arrival, model.last_arrival
    if not hi > lo:
        return math.nan
    now = model.time if model.end_time is None else model.end_time
    used = 0.0
    for r in sp.records.values():
        if r.start is None:
            continue
        end = r.end if r.end is not None else now
        if end > r.start:
            inside = max(0.0, min(end, hi) - max(r.start, lo)) / (end - r.start)
            used += inside * r.job.work
    return 100.0 * used / (sp.size * (hi - lo))
