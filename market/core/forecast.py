"""Uncertain rented capacity: a resource provider's forecast, and how far to trust it.

Popovici & Wilkes SC'05 §1.1, §3.2, §3.5: an uncertainty estimator gives a distribution of actual
availability around each prediction (normal in §3.5). Ours, each choice a scenario parameter:
time is cut into periods of ``period`` hours; in period ``p`` the pool has
``A_p = clip(round(f + e_p), 0, capacity)`` processors, ``e_p`` independent zero-mean errors of
sd ``sigma`` (normal, Laplace, uniform or logistic). A started job keeps its processors.
:meth:`Forecast.plan_probability` is the chance a plan is carried out: the product over future
periods of ``P(A_p >= need_p)``, ``need_p`` the most processors held just after a start planned
in period ``p``; starts now are certain when the availability now is known.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from market.core.capacity import CapacityProfile

ERROR_DISTRIBUTIONS = ("normal", "laplace", "uniform", "logistic")


def error_distribution(name: str, sigma: float):
    """A frozen scipy distribution with mean 0 and standard deviation ``sigma`` (scipy imported
    here, where an uncertain forecast needs it, not by every run)."""
    from scipy import stats

    if name == "normal":
        return stats.norm(0.0, sigma)
    if name == "laplace":
        return stats.laplace(0.0, sigma / math.sqrt(2.0))
    if name == "uniform":
        half = sigma * math.sqrt(3.0)
        return stats.uniform(-half, 2.0 * half)
    if name == "logistic":
        return stats.logistic(0.0, sigma * math.sqrt(3.0) / math.pi)
    raise ValueError(
        f"unknown error distribution {name!r} (known: {', '.join(ERROR_DISTRIBUTIONS)})"
    )


@dataclass(frozen=True)
class AvailabilityModel:
    """``A = clip(round(f + e), 0, capacity)`` with ``e`` of standard deviation ``sigma``."""

    capacity: int
    sigma: float = 0.0
    distribution: str = "normal"

    @cached_property
    def _error(self):
        return error_distribution(self.distribution, self.sigma) if self.sigma > 0 else None

    @cached_property
    def _tails(self) -> dict[float, tuple[float, ...]]:
        return {}

    def _tail(self, forecast: float) -> tuple[float, ...]:
        """``P(A >= k)`` for k = 0..capacity, computed once per forecast value."""
        tail = self._tails.get(forecast)
        if tail is None:
            k = np.arange(self.capacity + 1)
            if self._error is None:
                tail = tuple(float(x) for x in k <= self.realise(forecast, 0.0))
            else:
                tail = tuple(float(x) for x in self._error.sf(k - 0.5 - forecast))
            tail = self._tails[forecast] = (1.0, *tail[1:])
        return tail

    def prob_at_least(self, forecast: float, k: int) -> float:
        """``P(A >= k)`` when ``forecast`` processors are predicted."""
        if k <= 0:
            return 1.0
        if k > self.capacity:
            return 0.0
        return self._tail(forecast)[k]

    def quantile(self, forecast: float, risk: float) -> int:
        """The most processors available with probability at least ``1 - risk``."""
        k = self.capacity
        while k > 0 and self.prob_at_least(forecast, k) < 1.0 - risk:
            k -= 1
        return k

    def most(self, forecast: float, negligible: float = 0.0) -> int:
        """The most processors available with a chance above ``negligible`` when ``forecast``
        are predicted: the largest ``k`` with ``P(A >= k) > negligible`` (with 0, the whole
        pool under an unbounded error unless its tail there is below the smallest double)."""
        k = self.capacity
        while k > 0 and self.prob_at_least(forecast, k) <= negligible:
            k -= 1
        return k

    def realise(self, forecast: float, error: float) -> int:
        """The availability that a forecast and an error give."""
        return int(min(max(np.rint(forecast + error), 0), self.capacity))

    def sample(self, forecast: float, rng: np.random.Generator) -> int:
        """Draw one period's availability."""
        if self._error is None:
            return self.realise(forecast, 0.0)
        return self.realise(forecast, float(self._error.rvs(random_state=rng)))


@dataclass(frozen=True)
class Forecast:
    """What a tenant is told at ``now``: the processors available now, the forecast for every
    period, the error model, and every lease granted so far as ``(announced end, processors)``.

    An uncertainty-oblivious tenant "assumed that its mean was the actual value" (§6): it plans
    on the forecast, now included, and finds out what is really there when it tries to rent. A
    risk-aware one plans the current period on what is available now (no risk: a started job
    keeps its processors) and later periods on what it can count on (:meth:`profile`).
    """

    now: float
    period: float
    forecast: float
    model: AvailabilityModel
    leases: tuple[tuple[float, int], ...] = ()
    available_now: int | None = None  # None: the same as the forecast

    @property
    def period_end(self) -> float:
        """When the current period ends (``inf`` when availability never changes)."""
        if not math.isfinite(self.period):
            return math.inf
        return (math.floor(self.now / self.period) + 1) * self.period

    def planning_capacity(self, risk: float | None = None) -> int:
        """Processors to plan on in future periods: the forecast, rounded (``risk`` None: the
        uncertainty-oblivious view), or the most available with probability >= 1 - risk."""
        if risk is None:
            return self.model.realise(self.forecast, 0.0)
        return self.model.quantile(self.forecast, risk)

    def profile(self, risk: float | None = None) -> CapacityProfile:
        """Free processors to plan on: the forecast throughout (``risk`` None), or what is
        available now for the current period and :meth:`planning_capacity` after it."""
        if risk is None:
            return self.profile_at(self.planning_capacity(None))
        return self.profile_at(self.planning_capacity(risk), self.available_now)

    def profile_at(self, level: int, now_level: int | None = None) -> CapacityProfile:
        """Free processors to plan on: ``now_level`` (default ``level``) until the current period
        ends, ``level`` after it, less every lease until its announced end (never below 0)."""
        now = self.now
        end = self.period_end if now_level is not None else math.inf
        if now_level is None:
            now_level = level
        ending = sorted(lease for lease in self.leases if lease[0] > now)
        held = 0
        for _, n in ending:
            held += n
        if end < math.inf:
            ending.append((end, 0))
            ending.sort()
        times = [now]
        free = [max(now_level - held, 0)]
        for t, n in ending:
            held -= n
            value = max((now_level if t < end else level) - held, 0)
            if t == times[-1]:
                free[-1] = value
                if len(free) > 1 and free[-2] == value:
                    del times[-1], free[-1]
            elif value != free[-1]:
                times.append(t)
                free.append(value)
        return CapacityProfile._trusted(self.model.capacity, times, free)

    def plan_probability(self, placements: Iterable) -> float:
        """Probability that placements (with ``start``, ``end``, ``processors``) can all start
        as planned: the product over periods of ``P(A_p >= need_p)`` (see the module)."""
        placements = list(placements)
        # Starts in the current period are certain when what is there now is known.
        known = self.period_end if self.available_now is not None else -math.inf
        if not any(p.start >= known for p in placements):
            return 1.0
        intervals = [(u, n, -math.inf) for u, n in self.leases] + [
            (p.end, p.processors, p.start) for p in placements
        ]
        need: dict[int, int] = {}
        for p in placements:
            t = p.start
            if t < known:
                continue
            held = sum(n for until, n, since in intervals if since <= t < until)
            index = math.floor(t / self.period) if math.isfinite(self.period) else 0
            need[index] = max(need.get(index, 0), held)
        probability = 1.0
        for k in need.values():
            probability *= self.model.prob_at_least(self.forecast, k)
        return probability
