"""The run summary's QoS metrics as curves over time, from the jobs' outcomes.

Each function takes one provider's :class:`~market.results.job_outcomes.JobOutcomes` and sample
``times`` and gives, at each t, the summary's own definition applied to the jobs arrived by t and
what had happened to them by t, so the value at the end of a run is the summary's. Undefined
values (no job yet) are NaN; pure numpy. :func:`admitted_pct` (of one class): VQoPS TR17
Figures 5b-10b; :func:`qos_curves`: QoPS TR §5's unadmitted % and deadlines missed, Yeo & Buyya
ICPP'06 §4's % of deadlines fulfilled and mean slowdown of those jobs, and the bounded slowdown
of the completed best-effort jobs. Our choice: a job counts as admitted at its arrival (every
admission policy here decides at arrival).
"""

from __future__ import annotations

import math

import numpy as np

from market.results.fulfilment import MET
from market.results.job_outcomes import JobOutcomes
from market.results.metrics.scheduling import bounded_slowdowns

#: The curves of :func:`qos_curves`, named as the summary's columns.
QOS_CURVES = (
    "unadmitted_pct",
    "deadlines_missed",
    "deadlines_fulfilled_pct",
    "mean_slowdown_fulfilled",
    "mean_slowdown",
)


def _offered_by(arrival: np.ndarray, times: np.ndarray) -> np.ndarray:
    """How many of the jobs arrived at or before each of ``times``."""
    return np.searchsorted(np.sort(arrival), times, side="right")


def _count_by(events: np.ndarray, times: np.ndarray) -> np.ndarray:
    """How many of ``events`` (times; NaN: never) happened at or before each of ``times``."""
    return np.searchsorted(np.sort(events[np.isfinite(events)]), times, side="right")


def _running_mean(at: np.ndarray, values: np.ndarray, times: np.ndarray) -> np.ndarray:
    """At each of ``times``, the mean of ``values`` whose ``at`` is at or before it (NaN: none)."""
    order = np.argsort(at, kind="stable")
    done = np.searchsorted(at[order], times, side="right")
    total = np.concatenate([[0.0], np.cumsum(values[order])])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(done > 0, total[done] / np.maximum(done, 1), math.nan)


def admitted_pct(outcomes: JobOutcomes, times, kind: str | None = None) -> np.ndarray:
    """% of the jobs (of class ``kind``, or all) arrived by each of ``times`` that were
    admitted (NaN before the first). A job arriving at t counts at t."""
    times = np.asarray(times, dtype=float)
    mine = np.ones(len(outcomes.arrival), bool) if kind is None else outcomes.kind == kind
    arrival = outcomes.arrival[mine]
    order = np.argsort(arrival, kind="stable")
    admitted = np.concatenate([[0], np.cumsum(outcomes.committed[mine][order])])
    arrived = np.searchsorted(arrival[order], times, side="right")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(arrived > 0, 100.0 * admitted[arrived] / arrived, math.nan)


def unadmitted_pct(outcomes: JobOutcomes, times) -> np.ndarray:
    """% of the jobs arrived by each of ``times`` that were not admitted (QoPS TR §5)."""
    times = np.asarray(times, dtype=float)
    order = np.argsort(outcomes.arrival, kind="stable")
    refused = np.concatenate([[0], np.cumsum(~outcomes.committed[order])])
    arrived = np.searchsorted(outcomes.arrival[order], times, side="right")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(arrived > 0, 100.0 * refused[arrived] / arrived, math.nan)


def fulfilment(outcomes: JobOutcomes, times) -> tuple[np.ndarray, np.ndarray]:
    """At each of ``times``: % of the jobs submitted by then that completed by then and by
    their deadline, and the mean slowdown of those (response over their runtime on the
    processors they ran on), NaN where undefined (Yeo & Buyya §4; no deadline at all: NaN)."""
    times = np.asarray(times, dtype=float)
    nan = np.full(times.shape, math.nan)
    if not np.isfinite(outcomes.deadline).any():
        return nan, nan.copy()
    submitted = _offered_by(outcomes.arrival, times)
    with np.errstate(invalid="ignore"):
        met = outcomes.end <= outcomes.deadline + MET  # NaN (not done, no deadline): False
    ends = outcomes.end[met]
    slowdown = (ends - outcomes.arrival[met]) / outcomes.runtime[met]
    done = _count_by(ends, times)
    with np.errstate(invalid="ignore", divide="ignore"):
        pct = np.where(submitted > 0, 100.0 * done / submitted, math.nan)
    return pct, _running_mean(ends, slowdown, times)


def deadlines_missed(outcomes: JobOutcomes, times) -> np.ndarray:
    """How many jobs completed by each of ``times`` after their deadline (QoPS TR §5)."""
    with np.errstate(invalid="ignore"):
        late = outcomes.end > outcomes.deadline + MET  # NaN: False
    return _count_by(outcomes.end[late], np.asarray(times, dtype=float)).astype(float)


def best_effort_slowdown(outcomes: JobOutcomes, times) -> np.ndarray:
    """The mean bounded slowdown, response over max(run time, 10 s) and at least 1, of the
    best-effort jobs (no deadline of their own) completed by each of ``times``."""
    done = outcomes.best_effort & np.isfinite(outcomes.end)
    end, start, arrival = outcomes.end[done], outcomes.start[done], outcomes.arrival[done]
    slowdown = bounded_slowdowns(arrival, start, end)
    return _running_mean(end, slowdown, np.asarray(times, dtype=float))


def qos_curves(outcomes: JobOutcomes, times) -> dict[str, np.ndarray]:
    """Every curve of :data:`QOS_CURVES` at ``times``."""
    times = np.asarray(times, dtype=float)
    fulfilled, slowdown = fulfilment(outcomes, times)
    return {
        "unadmitted_pct": unadmitted_pct(outcomes, times),
        "deadlines_missed": deadlines_missed(outcomes, times),
        "deadlines_fulfilled_pct": fulfilled,
        "mean_slowdown_fulfilled": slowdown,
        "mean_slowdown": best_effort_slowdown(outcomes, times),
    }
