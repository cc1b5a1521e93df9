"""QBETS: upper confidence bounds on quantiles of batch-queue delay, learnt online (Nurmi, Wolski
& Brevik, VARQ TR 2007-09 §2.3; Brevik, Nurmi & Wolski, PPoPP'06).

- The bound: of ``n`` sorted delays, the smallest order statistic ``x_(k)`` with
  ``P(Bin(n, q) <= k-1) >= c``; none (:data:`math.inf`) while the history is too short.
- The inverse ``QBETS(nodes, walltime, wait) -> probability``: the largest ``q`` whose bound is
  ``<= wait``, the Clopper-Pearson lower limit ``beta.ppf(1-c, m, n-m+1)`` (a real number; the
  paper rounds to a percentile).
- Change points (ours; the paper gives none): a run of misses above the bound rarer than
  ``alpha`` under a two-state Markov model of misses trims the history to its latest
  ``max(run, min_history)`` delays. Only rises are detected.
- Job classes: a fixed grid of node-count and requested-time breaks (ours; the paper clusters);
  a class too short for a bound borrows the bound of all jobs.
"""

from __future__ import annotations

import math
from bisect import bisect_right, insort
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_NODE_BREAKS = (8, 32)
DEFAULT_TIME_BREAKS = (1.0, 4.0)  # hours


class QbetsError(ValueError):
    """A bad QBETS parameter; the message is one line naming it."""


def check_unit(name: str, value: float) -> float:
    """``value`` if it lies strictly inside (0, 1), else a :class:`QbetsError` naming ``name``."""
    if not isinstance(value, int | float) or not 0.0 < value < 1.0:
        raise QbetsError(f"{name}: must lie strictly between 0 and 1, got {value!r}")
    return float(value)


def order_statistic(n: int, quantile: float, confidence: float) -> int | None:
    """The 1-based index ``k`` of the smallest order statistic of ``n`` samples that bounds the
    ``quantile`` from above with probability ``confidence`` (None if even the largest does not)."""
    if n <= 0:
        return None
    from scipy.stats import binom  # (here: a run without QBETS never imports scipy)

    k = int(binom.ppf(confidence, n, quantile)) + 1
    return k if k <= n else None


def min_history(quantile: float, confidence: float) -> int:
    """The fewest samples that give a bound: the smallest n with ``1 - q**n >= c``."""
    return max(1, math.ceil(math.log(1.0 - confidence) / math.log(quantile) - 1e-12))


def upper_bound(sorted_delays: Sequence[float], quantile: float, confidence: float) -> float:
    """The binomial upper ``confidence`` bound on the ``quantile`` of the sorted delays
    (:data:`math.inf` if there are too few)."""
    k = order_statistic(len(sorted_delays), quantile, confidence)
    return math.inf if k is None else float(sorted_delays[k - 1])


def probability(sorted_delays: Sequence[float], wait: float, confidence: float) -> float:
    """The largest quantile whose bound is ``<= wait`` (see the module docstring): the
    ``confidence`` lower limit of ``P(delay <= wait)``; 0 with no delay ``<= wait``."""
    n = len(sorted_delays)
    m = bisect_right(sorted_delays, wait)
    if m == 0:
        return 0.0
    from scipy.stats import beta

    return float(beta.ppf(1.0 - confidence, m, n - m + 1))


class _Ranks:
    """``k(n)`` for one (quantile, confidence), computed in vectorised blocks as n grows."""

    __slots__ = ("confidence", "quantile", "table")

    def __init__(self, quantile: float, confidence: float) -> None:
        self.quantile, self.confidence = quantile, confidence
        self.table = np.zeros(1, dtype=np.int64)  # table[n] = k, or 0 for none

    def __call__(self, n: int) -> int:
        table = self.table
        if n >= len(table):
            from scipy.stats import binom

            size = max(2 * len(table), n + 1, 1024)
            ns = np.arange(size)
            k = binom.ppf(self.confidence, ns, self.quantile).astype(np.int64) + 1
            k[k > ns] = 0
            self.table = table = k
        return int(table[n])


class DelayHistory:
    """The delays of one job class in its current stationary region (see the module docstring).

    Args:
        quantile, confidence: of the bound the change-point detector watches.
        alpha: how rare a run of misses must be to call a change point.
        min_run: never call one on a shorter run.
    """

    __slots__ = (
        "_miss_miss", "_misses", "_ranks", "alpha", "changepoints", "keep",
        "min_run", "ordered", "quantile", "run", "sorted",
    )  # fmt: skip

    def __init__(
        self, quantile: float, confidence: float, alpha: float = 0.01, min_run: int = 3
    ) -> None:
        self.quantile = quantile
        self.alpha = alpha
        self.min_run = min_run
        self.keep = min_history(quantile, confidence)
        self._ranks = _Ranks(quantile, confidence)
        self.ordered: deque[float] = deque()  # the region, oldest first
        self.sorted: list[float] = []
        self.run = 0  # consecutive misses so far
        self.changepoints = 0
        self._misses = 0  # misses in finished runs, and how many of them followed a miss
        self._miss_miss = 0

    def __len__(self) -> int:
        return len(self.sorted)

    def bound(self) -> float:
        """The bound on the watched quantile (``inf`` if the region is too short)."""
        k = self._ranks(len(self.sorted))
        return self.sorted[k - 1] if k else math.inf

    def critical_run(self) -> int:
        """The shortest run of misses that is a change point, given the finished runs so far
        (the current run is left out: it would inflate its own ``P(miss | miss)``)."""
        p11 = (self._miss_miss + 1) / (self._misses + 2)
        start = 1.0 - self.quantile
        if start <= self.alpha:
            return self.min_run
        if p11 >= 1.0:
            return 1 << 30
        r = 1 + math.ceil(math.log(self.alpha / start) / math.log(p11) - 1e-12)
        return max(self.min_run, r)

    def add(self, delay: float) -> bool:
        """Add a delay (in the order delays become known); True if it ends the region."""
        if delay > self.bound():
            self.run += 1
        elif self.run:  # a run of misses ended: it counts towards P(miss | miss)
            self._misses += self.run
            self._miss_miss += self.run - 1
            self.run = 0
        self.ordered.append(delay)
        insort(self.sorted, delay)
        if self.run and self.run >= self.critical_run():
            keep = max(self.run, self.keep)
            while len(self.ordered) > keep:
                self.ordered.popleft()
            self.sorted = sorted(self.ordered)
            self.run = 0
            self.changepoints += 1
            return True
        return False


def change_points(
    delays: Sequence[float],
    quantile: float = 0.95,
    confidence: float = 0.95,
    alpha: float = 0.01,
    min_run: int = 3,
) -> list[int]:
    """The indices of ``delays`` (in time order) at which :class:`DelayHistory` calls a change
    point and trims its history."""
    history = DelayHistory(quantile, confidence, alpha, min_run)
    return [i for i, delay in enumerate(delays) if history.add(delay)]


@dataclass(frozen=True, slots=True)
class JobClasses:
    """A grid of job classes: requested nodes cut at ``node_breaks`` (a class holds counts
    ``<=`` its break), requested time (hours) cut at ``time_breaks``."""

    node_breaks: tuple[int, ...] = DEFAULT_NODE_BREAKS
    time_breaks: tuple[float, ...] = DEFAULT_TIME_BREAKS

    def __post_init__(self) -> None:
        for name, breaks in (("node_breaks", self.node_breaks), ("time_breaks", self.time_breaks)):
            if list(breaks) != sorted(set(breaks)) or any(b <= 0 for b in breaks):
                raise QbetsError(f"{name}: must be positive and increasing, got {list(breaks)}")

    @classmethod
    def single(cls) -> JobClasses:
        """Every job in one class."""
        return cls((), ())

    def __len__(self) -> int:
        return (len(self.node_breaks) + 1) * (len(self.time_breaks) + 1)

    def of(self, nodes: int, walltime: float) -> int:
        """The class of a job of ``nodes`` requesting ``walltime`` hours (NaN: unknown)."""
        i = bisect_right(self.node_breaks, nodes - 1e-9)  # nodes <= break: that class
        if walltime != walltime:  # NaN: an unknown request counts as the longest
            j = len(self.time_breaks)
        else:
            j = bisect_right(self.time_breaks, walltime - 1e-12)
        return i * (len(self.time_breaks) + 1) + j

    def label(self, index: int) -> str:
        """A readable name, e.g. ``nodes 9-32, time 1-4 h``."""
        i, j = divmod(index, len(self.time_breaks) + 1)
        return f"nodes {_span(self.node_breaks, i, 1)}, time {_span(self.time_breaks, j, 0)} h"


def _span(breaks: Sequence[float], i: int, step: int) -> str:
    lo = (breaks[i - 1] + step) if i > 0 else (1 if step else 0)
    if i == len(breaks):
        return f">{breaks[-1]:g}" if breaks else "all"
    return f"{lo:g}-{breaks[i]:g}"


class QBETS:
    """The online predictor: one :class:`DelayHistory` per job class, plus one of every job.

    Args:
        quantile: the quantile the change-point detector watches, and :meth:`bound`'s default.
        confidence: of every bound and probability.
        classes: the job classes (default: :class:`JobClasses`'s grid).
        alpha, min_run: of the change-point detector.
        time_scale: hours per unit of the delays and wall times given (1: hours; 1/3600:
            seconds), so that the class breaks, in hours, apply.
    """

    def __init__(
        self,
        quantile: float = 0.95,
        confidence: float = 0.95,
        classes: JobClasses | None = None,
        alpha: float = 0.01,
        min_run: int = 3,
        time_scale: float = 1.0,
    ) -> None:
        self.quantile = check_unit("quantile", quantile)
        self.confidence = check_unit("confidence", confidence)
        check_unit("alpha", alpha)
        self.classes = classes or JobClasses()
        self.time_scale = time_scale
        self.histories = [
            DelayHistory(quantile, confidence, alpha, min_run) for _ in range(len(self.classes))
        ]
        self.pooled = DelayHistory(quantile, confidence, alpha, min_run)
        self._ranks: dict[float, _Ranks] = {quantile: self.pooled._ranks}

    def class_of(self, nodes: int, walltime: float) -> int:
        """The class index of a job."""
        return self.classes.of(nodes, walltime * self.time_scale)

    def observe(self, nodes: int, walltime: float, delay: float) -> None:
        """A job of ``nodes`` that requested ``walltime`` started ``delay`` after submission."""
        self.histories[self.class_of(nodes, walltime)].add(delay)
        self.pooled.add(delay)

    def region(self, nodes: int, walltime: float) -> list[float]:
        """The sorted delays a prediction for such a job uses: its class's, or every job's when
        its class has fewer than the detector's ``min_history`` (one rule for :meth:`bound` and
        :meth:`probability`, so that ``probability(w) >= p`` iff ``bound(p) <= w``)."""
        own = self.histories[self.class_of(nodes, walltime)].sorted
        return own if len(own) >= self.pooled.keep else self.pooled.sorted

    def bound(self, nodes: int, walltime: float, quantile: float | None = None) -> float:
        """Upper bound on the ``quantile`` of the delay of such a job (``inf``: no bound)."""
        q = self.quantile if quantile is None else quantile
        ranks = self._ranks.get(q)
        if ranks is None:
            ranks = self._ranks[q] = _Ranks(check_unit("quantile", q), self.confidence)
        region = self.region(nodes, walltime)
        k = ranks(len(region))
        return region[k - 1] if k else math.inf

    def bounds(self, nodes: int, walltimes: np.ndarray, quantile: float) -> np.ndarray:
        """:meth:`bound` for each of ``walltimes`` (one lookup per class they fall in)."""
        walltimes = np.asarray(walltimes, dtype=float)
        hours = walltimes * self.time_scale
        cuts = np.asarray(self.classes.time_breaks, dtype=float) - 1e-12
        column = np.searchsorted(cuts, hours, side="right")  # as JobClasses.of
        out = np.empty(len(walltimes))
        for j in np.unique(column).tolist():
            mine = column == j
            first = float(walltimes[np.argmax(mine)])
            out[mine] = self.bound(nodes, first, quantile)
        return out

    def probability(self, nodes: int, walltime: float, wait: float) -> float:
        """``QBETS(nodes, walltime, startDeadline)`` (§2.3): the probability, at our confidence,
        that such a job submitted now starts within ``wait``."""
        return probability(self.region(nodes, walltime), wait, self.confidence)

    @property
    def changepoints(self) -> int:
        """Change points found so far, over every class."""
        return sum(h.changepoints for h in self.histories)
