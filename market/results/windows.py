"""Measurement windows: profit and utilization over part of a run (Popovici & Wilkes SC'05 §4).

The paper measures steady state, excluding "the 'emptying' phase, where no more jobs are
arriving" (§4). Two windows, each a metric of :mod:`market.results.provider_metrics`: the
**run**, time 0 to the last completion (``profit_rate``, ``utilization_run``), and the
**arrival phase**, first to last arrival (``profit_rate_arrivals``, ``utilization``), the
paper's. Our choice for a window's profit, where the paper is silent: payments (less penalties)
of the jobs completed in it minus the rent of the processor-hours held in it, those its
utilization counts; over the run this is the whole profit (docs/papers/profit.md).
A job is ``(processors, start, end, paid)``: ``start`` None if it never ran, ``end`` None while
it runs (its processors held until ``now``), ``paid`` its value at completion.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import chain

import numpy as np

from market.core.rent import PriceSchedule

Span = tuple[int, float | None, float | None, float | None]


def exact_sum(values: np.ndarray, chunk: int = 8192) -> float:
    """``math.fsum`` of ``values`` (correctly rounded, whatever the order), made Python floats
    a chunk at a time rather than all at once."""
    return math.fsum(
        chain.from_iterable(values[at : at + chunk].tolist() for at in range(0, len(values), chunk))
    )


def spans(jobs: Iterable[Span]) -> np.ndarray:
    """The jobs as an ``(n, 4)`` float array (None: NaN), which the functions below also take."""
    if isinstance(jobs, np.ndarray):
        return jobs
    return np.array(list(jobs), dtype=np.float64).reshape(-1, 4)


def _held(jobs: np.ndarray, lo: float, hi: float, now: float):
    """Per started job: its processors, and when it held them inside ``[lo, hi]`` (from, to)."""
    started = jobs[~np.isnan(jobs[:, 1])]
    end = started[:, 2]
    stop = np.where(np.isnan(end), now, end)
    return started, np.maximum(started[:, 1], lo), np.minimum(stop, hi)


def rented_hours(jobs: Iterable[Span] | np.ndarray, lo: float, hi: float, now: float) -> float:
    """Processor-hours held during ``[lo, hi]``."""
    started, a, b = _held(spans(jobs), lo, hi, now)
    return exact_sum(started[:, 0] * np.maximum(0.0, b - a))


def window_profit(
    jobs: Iterable[Span] | np.ndarray, price: PriceSchedule, lo: float, hi: float, now: float
) -> float:
    """Payments of the jobs completed in ``[lo, hi]`` minus the rent of the processor-hours held
    in it (at the price of each instant)."""
    started, a, b = _held(spans(jobs), lo, hi, now)
    held = b > a
    processors, a, b = started[held, 0], a[held], b[held]
    rent = price.costs(processors, a, b)
    end, value = started[:, 2], started[:, 3]
    paid = value[(lo <= end) & (end <= hi) & ~np.isnan(value)]  # (NaN compares False)
    return exact_sum(paid) - math.fsum(rent)


def window_rate(
    jobs: Iterable[Span] | np.ndarray, price: PriceSchedule, lo: float, hi: float, now: float
) -> float:
    """:func:`window_profit` per hour of ``[lo, hi]`` (NaN for an empty window)."""
    return window_profit(jobs, price, lo, hi, now) / (hi - lo) if hi > lo else math.nan
