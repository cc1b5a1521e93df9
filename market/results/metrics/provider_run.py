"""What a service provider's metrics are computed from: :class:`ProviderRun`, one provider of a
model now (final once the run has ended), its records read once as columns
(:func:`market.results.job_columns.job_columns`), and the intermediate figures several metrics
share (the completed jobs, the processor-hours held, ...), each computed on first use.

The arrival phase is ``[lo, hi]``, from the first to the last arrival of the run (the profit
paper's steady state, :mod:`market.results.windows`). A figure of every job (a wait, a slowdown)
is summed exactly a chunk of jobs at a time (:meth:`ProviderRun.sum_over`), so that its
temporaries are a chunk's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np

from market.results.job_columns import job_columns
from market.results.windows import CHUNK, Columns, exact_sum, rented_hours

if TYPE_CHECKING:
    from market.sim.model import GridMarket


def fsum(values: np.ndarray) -> float:
    """The correctly rounded sum (``math.fsum``: the same whatever the order)."""
    return exact_sum(values)


def pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole else math.nan


def capacity(sp: Any) -> int:
    """Processors of every pool ``sp`` rents from."""
    return sum(p.capacity for p in sp.pools)


class ProviderRun:
    """One service provider's run so far, as its metrics read it."""

    def __init__(self, model: GridMarket, sp: Any, columns: dict[str, Any] | None = None):
        self.model = model
        self.sp = sp
        self.now = model.time if model.end_time is None else model.end_time
        self.cols = columns if columns is not None else job_columns(sp, table=False)
        self.offered = len(sp.records)
        self.lo, self.hi = model.first_arrival, model.last_arrival
        self._once: dict[Callable, Any] = {}

    def once(self, figure: Callable[[ProviderRun], Any]) -> Any:
        """``figure(self)``, computed on the first call only: for what a family's metrics
        share (e.g. both fulfilment metrics come from one pass over the records)."""
        if figure not in self._once:
            self._once[figure] = figure(self)
        return self._once[figure]

    def sum_over(self, jobs: np.ndarray, figure: Callable[..., np.ndarray], *names: str) -> float:
        """The exact sum (``math.fsum``) of ``figure`` of the columns ``names``, over the jobs
        the mask ``jobs`` selects, computed a chunk of jobs at a time."""
        columns = [self.cols[name] for name in names]
        parts = (
            figure(*(c[at : at + CHUNK][jobs[at : at + CHUNK]] for c in columns)).tolist()
            for at in range(0, len(jobs), CHUNK)
        )
        return math.fsum(chain.from_iterable(parts))

    def mean_over(self, jobs: np.ndarray, figure: Callable[..., np.ndarray], *names: str) -> float:
        """:meth:`sum_over` per job selected (NaN for none)."""
        count = int(np.count_nonzero(jobs))
        return self.sum_over(jobs, figure, *names) / count if count else math.nan

    @cached_property
    def records(self) -> list:
        return list(self.sp.records.values())

    @cached_property
    def spec(self) -> Any:
        """The provider's scenario entry."""
        return next(s for s in self.model.spec.service_providers if s.name == self.sp.name)

    @cached_property
    def committed(self) -> np.ndarray:
        return np.array(self.cols["committed"], dtype=bool)

    @cached_property
    def accepted(self) -> int:
        return int(np.count_nonzero(self.committed))

    @cached_property
    def done(self) -> np.ndarray:
        """Which jobs completed."""
        return ~np.isnan(self.cols["end"])

    @cached_property
    def completed(self) -> int:
        return int(np.count_nonzero(self.done))

    @cached_property
    def capacity(self) -> int:
        return capacity(self.sp)

    @property
    def spans(self) -> Columns:
        """Every job's ``(processors, start, end, paid)``, as the columns themselves
        (:mod:`market.results.windows`)."""
        c = self.cols
        return c["processors"], c["start"], c["end"], c["paid"]

    @cached_property
    def rented(self) -> float:
        """Processor-hours held during the arrival phase."""
        return rented_hours(self.spans, self.lo, self.hi, self.now)

    @cached_property
    def rentable(self) -> float:
        """Processor-hours the pools had during the arrival phase."""
        return self.capacity * (self.hi - self.lo) if self.hi > self.lo else 0.0

    @cached_property
    def predicted(self) -> float:
        """The profit the admission decisions of the completed jobs predicted (None: 0)."""
        return self.sum_over(self.done, _none_as_zero, "expected_profit")

    @cached_property
    def best_effort(self) -> np.ndarray:
        """The completed jobs without a deadline of their own (none, or one the provider gave)."""
        deadline = self.cols["deadline"]
        flagged = np.array(self.cols["best_effort"], dtype=bool)
        return self.done & (np.isnan(deadline) | flagged)


def _none_as_zero(values: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(values), 0.0, values)
