"""Every job offered to a service provider so far, as arrays: the input of the outcome curves
(:mod:`market.results.outcome_curves`) that the dashboard's paper views plot over time."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from market.sim.model import GridMarket


@dataclass(frozen=True, slots=True)
class JobOutcomes:
    """Every job offered to one service provider so far, in offer order, as arrays of one entry
    per job: for plots of the run's outcomes over time (the dashboard's paper views).

    ``kind`` is the job's workload class (``urgent``/``normal`` for a priced workload);
    ``deadline``, ``start``, ``end`` and ``runtime`` (the actual runtime on the processors it ran
    on) are NaN where the job has none or has not got that far; ``best_effort`` is True for a
    job without a deadline of its own (none, or one given by the provider)."""

    provider: str
    arrival: np.ndarray
    kind: np.ndarray
    committed: np.ndarray
    deadline: np.ndarray
    end: np.ndarray
    runtime: np.ndarray
    start: np.ndarray
    best_effort: np.ndarray


def job_outcomes(model: GridMarket) -> list[JobOutcomes]:
    """The :class:`JobOutcomes` of every service provider now."""
    nan = math.nan
    out = []
    for sp in model.service_providers.values():
        rows = [
            (
                r.job.arrival,
                r.job.kind,
                r.committed,
                nan if r.job.deadline is None else r.job.deadline,
                nan if r.end is None else r.end,
                nan if r.processors is None else r.job.runtime(r.processors),
                nan if r.start is None else r.start,
                r.job.deadline is None or r.job.best_effort,
            )
            for r in sp.records.values()
        ]
        cols = list(zip(*rows, strict=True)) if rows else [()] * 8
        out.append(
            JobOutcomes(
                sp.name,
                np.array(cols[0], dtype=float),
                np.array(cols[1], dtype=object),
                np.array(cols[2], dtype=bool),
                *(np.array(c, dtype=float) for c in cols[3:7]),
                np.array(cols[7], dtype=bool),
            )
        )
    return out
