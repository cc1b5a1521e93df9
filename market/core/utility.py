"""Utility functions: what a client pays as a function of a job's completion time.

A utility function is piecewise linear and non-increasing in completion time: a constant value,
then one or more linearly decaying segments, then constant again at the last breakpoint's value
(the penalty bound, possibly negative). Two constructors give the forms the papers use:

- :meth:`UtilityFunction.linear_decay` -- Popovici & Wilkes, "Profitable services in an uncertain
  world" (SC'05) §1 Figure 1 and §4: a value, a linear decay that starts at submission, and a fixed
  penalty bound (-48 florins in Table 1).
- :meth:`UtilityFunction.to_deadline` -- Islam et al., "Analyzing and minimizing the impact of
  opportunity cost in QoS-aware job scheduling" §4 Figure 2: a maximum price that decays linearly
  to zero at the requested deadline.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class UtilityFunction:
    """A non-increasing, piecewise-linear value of completion time.

    ``times`` are the breakpoints (non-decreasing) and ``values`` the value at each; before the
    first breakpoint the value is ``values[0]``, after the last it is ``values[-1]``, and in
    between it is interpolated linearly. Two equal breakpoints make a step (a hard deadline):
    completing exactly at the step time still earns the higher value.
    """

    times: tuple[float, ...]
    values: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.times or len(self.times) != len(self.values):
            raise ValueError("a utility function needs as many values as breakpoints (at least 1)")
        if any(b < a for a, b in zip(self.times, self.times[1:], strict=False)):
            raise ValueError(f"utility breakpoints must not decrease: {self.times}")
        if any(b > a for a, b in zip(self.values, self.values[1:], strict=False)):
            raise ValueError(f"utility values must not increase: {self.values}")
        if not all(math.isfinite(x) for x in (*self.times, *self.values)):
            raise ValueError("utility breakpoints and values must be finite")

    # -- constructors --------------------------------------------------------------------------
    @classmethod
    def constant(cls, value: float) -> UtilityFunction:
        """A job worth ``value`` whenever it completes (one shared instance per value)."""
        return _constant(float(value))

    @classmethod
    def linear_decay(
        cls, value: float, decay_start: float, decay_rate: float, penalty_bound: float
    ) -> UtilityFunction:
        """Profit paper form (§4): ``value`` until ``decay_start``, then losing ``decay_rate`` per
        hour until it reaches ``penalty_bound`` (which may be negative), flat after that."""
        if decay_rate < 0:
            raise ValueError("decay_rate must be >= 0")
        if penalty_bound > value:
            raise ValueError("penalty_bound must not exceed the value")
        if decay_rate == 0 or penalty_bound == value:
            return cls((float(decay_start),), (float(value),))
        floor_time = decay_start + (value - penalty_bound) / decay_rate
        return cls((float(decay_start), float(floor_time)), (float(value), float(penalty_bound)))

    @classmethod
    def to_deadline(
        cls, value: float, decay_start: float, deadline: float, floor: float = 0.0
    ) -> UtilityFunction:
        """Opportunity-cost paper form (§4, Figure 2): ``value`` until ``decay_start`` (e.g. the
        earliest possible completion), then linear down to ``floor`` (zero) at ``deadline``."""
        if floor > value:
            raise ValueError("floor must not exceed the value")
        start = min(decay_start, deadline)  # a deadline at the decay start is a step
        return cls((float(start), float(deadline)), (float(value), float(floor)))

    # -- queries -------------------------------------------------------------------------------
    @property
    def max_value(self) -> float:
        """The value of a job completed no later than the first breakpoint."""
        return self.values[0]

    @property
    def penalty_bound(self) -> float:
        """The value of a job completed after the last breakpoint (the lowest value)."""
        return self.values[-1]

    @property
    def floor_time(self) -> float:
        """When the value reaches its bound and stops decaying."""
        return self.times[-1]

    def __call__(self, t: float) -> float:
        """Value of completing at time ``t``."""
        times = self.times
        if t <= times[0]:
            return self.values[0]
        if t > times[-1]:
            return self.values[-1]
        i = bisect_left(times, t)  # times[i-1] < t <= times[i]
        t0, t1 = times[i - 1], times[i]
        v0, v1 = self.values[i - 1], self.values[i]
        return v0 + (v1 - v0) * (t - t0) / (t1 - t0)

    def decay_rate(self, t: float) -> float:
        """Value lost per hour of delay just after time ``t`` (>= 0; 0 outside the decay)."""
        times = self.times
        if t < times[0] or t >= times[-1]:
            return 0.0
        i = bisect_right(times, t)  # times[i-1] <= t < times[i]
        return (self.values[i - 1] - self.values[i]) / (times[i] - times[i - 1])


@lru_cache(maxsize=1024)
def _constant(value: float) -> UtilityFunction:
    # Utility functions are immutable, so the many trace jobs of one value can share one.
    return UtilityFunction((0.0,), (value,))
