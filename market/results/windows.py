"""Measurement windows: profit and utilization over part of a run (Popovici & Wilkes SC'05 §4).

The paper measures steady state, excluding "the 'emptying' phase, where no more jobs are
arriving" (§4). Two windows, each a metric of :mod:`market.results.provider_metrics`: the
**run**, time 0 to the last completion (``profit_rate``, ``utilization_run``), and the
**arrival phase**, first to last arrival (``profit_rate_arrivals``, ``utilization``), the
paper's. Our choice for a window's profit, where the paper is silent: payments (less penalties)
of the jobs completed in it minus the rent of the processor-hours held in it, those its
utilization counts; over the run this is the whole profit (docs/papers/profit.md).
A job is ``(processors, start, end, paid)``: ``start`` None if it never ran, ``end`` None while
it runs (its processors held until ``now``), ``paid`` its value at completion. Jobs are measured
a chunk at a time and summed exactly (``math.fsum``), so a window's temporaries are a chunk's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import chain

import numpy as np

from market.core.rent import PriceSchedule

Span = tuple[int, float | None, float | None, float | None]
#: The jobs as four float columns: processors, start, end, paid (NaN: None).
Columns = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
#: What the functions below take: span tuples, an ``(n, 4)`` float array of them, or columns.
Jobs = Iterable[Span] | np.ndarray | Columns

#: Jobs measured at a time: the temporaries of a window are of a chunk, not of every job.
CHUNK = 8192


def exact_sum(values: np.ndarray, chunk: int = CHUNK) -> float:
    """``math.fsum`` of ``values`` (correctly rounded, whatever the order), made Python floats
    a chunk at a time rather than all at once."""
    return math.fsum(
        chain.from_iterable(values[at : at + chunk].tolist() for at in range(0, len(values), chunk))
    )


def spans(jobs: Jobs) -> Columns:
    """The jobs as :data:`Columns`: from ``(processors, start, end, paid)`` tuples (None: NaN),
    an ``(n, 4)`` float array of them, or the four columns themselves (kept, not copied)."""
    if isinstance(jobs, tuple) and len(jobs) == 4 and isinstance(jobs[0], np.ndarray):
        return jobs
    if not isinstance(jobs, np.ndarray):
        jobs = np.array(list(jobs), dtype=np.float64).reshape(-1, 4)
    return jobs[:, 0], jobs[:, 1], jobs[:, 2], jobs[:, 3]


def _held(jobs: Columns, lo: float, hi: float, now: float):
    """Chunk by chunk, per started job: its processors, when it held them inside ``[lo, hi]``
    (from, to), its end and what it paid."""
    processors, start, end, paid = jobs
    for at in range(0, len(start), CHUNK):
        part = slice(at, at + CHUNK)
        began = start[part]
        started = ~np.isnan(began)
        ended = end[part][started]
        a = np.maximum(began[started], lo)
        b = np.minimum(np.where(np.isnan(ended), now, ended), hi)
        yield processors[part][started], a, b, ended, paid[part][started]


def rented_hours(jobs: Jobs, lo: float, hi: float, now: float) -> float:
    """Processor-hours held during ``[lo, hi]``."""
    held = _held(spans(jobs), lo, hi, now)
    return math.fsum(
        chain.from_iterable((n * np.maximum(0.0, b - a)).tolist() for n, a, b, _, _ in held)
    )


def window_profit(jobs: Jobs, price: PriceSchedule, lo: float, hi: float, now: float) -> float:
    """Payments of the jobs completed in ``[lo, hi]`` minus the rent of the processor-hours held
    in it (at the price of each instant)."""
    jobs = spans(jobs)

    def paid():
        for _, _, _, end, value in _held(jobs, lo, hi, now):
            yield value[(lo <= end) & (end <= hi) & ~np.isnan(value)].tolist()  # (NaN: False)

    def rent():
        for n, a, b, _, _ in _held(jobs, lo, hi, now):
            held = b > a
            yield price.costs(n[held], a[held], b[held])

    return math.fsum(chain.from_iterable(paid())) - math.fsum(chain.from_iterable(rent()))


def window_rate(jobs: Jobs, price: PriceSchedule, lo: float, hi: float, now: float) -> float:
    """:func:`window_profit` per hour of ``[lo, hi]`` (NaN for an empty window)."""
    return window_profit(jobs, price, lo, hi, now) / (hi - lo) if hi > lo else math.nan
