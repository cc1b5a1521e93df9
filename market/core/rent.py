"""Rent prices over time: what a processor-hour costs, as a step function of time.

The profit paper's resource provider offers "predictions ... of the form <start-time, duration,
resources, price>" (Popovici & Wilkes SC'05 §1.1): the price may change over time. A
:class:`PriceSchedule` holds the price per processor-hour from each change on; rent for holding
``n`` processors over ``[start, end)`` is the integral of that price (constant price: a product).
A zero amount of money kept per job is one shared float (:func:`shared_zero`, where it is kept,
not in the planners' loops): a free pool's rents and the profits its plans predict.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

#: The one shared zero amount.
ZERO = 0.0


def shared_zero(amount: float) -> float:
    """``amount``, or :data:`ZERO` when it is ``+0.0`` (same value, same sign)."""
    return amount if amount or math.copysign(1.0, amount) < 0.0 else ZERO


@dataclass(frozen=True, slots=True)
class PriceSchedule:
    """Price per processor-hour: ``prices[i]`` from ``times[i]`` on (``times[0]`` is -inf)."""

    times: tuple[float, ...]
    prices: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.times) != len(self.prices) or not self.times:
            raise ValueError("a price schedule needs as many prices as change times")
        if self.times[0] != -math.inf:
            raise ValueError("a price schedule starts at -inf")
        if any(b <= a for a, b in zip(self.times, self.times[1:], strict=False)):
            raise ValueError("price change times must increase")
        if any(not (p >= 0 and math.isfinite(p)) for p in self.prices):
            raise ValueError("prices must be finite and >= 0")

    @classmethod
    def constant(cls, price: float) -> PriceSchedule:
        """The same price at all times."""
        return cls((-math.inf,), (float(price),))

    @classmethod
    def steps(cls, price: float, changes: list[tuple[float, float]]) -> PriceSchedule:
        """``price`` until the first change, then each ``(time, price)`` change from its time on."""
        changes = sorted(changes)
        return cls(
            (-math.inf, *(float(t) for t, _ in changes)),
            (float(price), *(float(p) for _, p in changes)),
        )

    def scaled(self, factor: float) -> PriceSchedule:
        """The same schedule with every price multiplied by ``factor`` (>= 0)."""
        return PriceSchedule(self.times, tuple(p * factor for p in self.prices))

    def at(self, t: float) -> float:
        """The price per processor-hour at time ``t``."""
        return self.prices[bisect_right(self.times, t) - 1]

    def costs(self, processors, starts, ends) -> list[float]:
        """:meth:`cost` of each ``(processors, start, end)`` of three equal-length arrays (or
        sequences), as floats; at a flat price, one array product of the same factors."""
        n, a, b = (np.asarray(x, dtype=np.float64) for x in (processors, starts, ends))
        if len(self.prices) == 1:
            return (self.prices[0] * n * (b - a)).tolist()
        held = zip(n.tolist(), a.tolist(), b.tolist(), strict=True)
        return [self.cost(*h) for h in held]

    def cost(self, processors: int, start: float, end: float) -> float:
        """Rent for ``processors`` held over ``[start, end)``."""
        prices = self.prices
        if len(prices) == 1:
            return prices[0] * processors * (end - start)
        times = self.times
        i = bisect_right(times, start) - 1
        total, t = 0.0, start
        while i + 1 < len(times) and times[i + 1] < end:
            total += prices[i] * (times[i + 1] - t)
            t = times[i + 1]
            i += 1
        return processors * (total + prices[i] * (end - t))
