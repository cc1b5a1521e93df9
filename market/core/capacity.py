"""The processor-availability profile every scheduler plans on.

A :class:`CapacityProfile` is a right-continuous step function: ``free(t)`` processors are free
on ``[times[i], times[i+1])``, and the last step lasts forever. Planning is list scheduling on it
(Popovici & Wilkes SC'05 §3.3: the "preferred schedule"; Islam et al. QoPS §2 and conservative
backfilling likewise): find the earliest start of (n processors, duration) at or after t, then
reserve it. Reservations never take the profile below zero; releases never lift it above its
capacity.

The hot path of the project: every admission decision builds several plans, each placing every
queued job. The profile is two parallel Python lists searched with :mod:`bisect` (faster than
numpy for the tens to thousands of breakpoints of a plan); equal neighbours are merged, so a
profile has at most two breakpoints per reservation. Its inner loop, placing a job with one
search, is :class:`market.core.profile_kernel.Steps` (compiled where built:
:mod:`market.core.compiled`).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from itertools import accumulate, pairwise

from market.core import compiled, profile_kernel

#: Hours: a reservation that ends this close to a breakpoint ends at it (kept with the loops that
#: apply it, :mod:`market.core.profile_kernel`). Times derived as ``start + duration`` can miss a
#: breakpoint by a float rounding error (a trace's whole seconds are not exact in hours), which
#: would otherwise make a job that ends exactly when another starts overlap it (see
#: market/sim/clock.py). 1e-9 h is 3.6 microseconds.
EPS = profile_kernel.EPS
#: The profile's steps and inner loops: compiled where they have been (market/core/compiled.py)
_kernel = compiled.kernel()


class CapacityError(ValueError):
    """A reservation that would need more processors than are free, or a bad release."""


class CapacityProfile(_kernel.Steps):
    """Free processors over time, from ``origin`` on.

    Args:
        capacity: the most processors that can ever be free (the pool size).
        origin: the first time the profile describes; earlier times read as the origin.
        free: processors free from the origin on (defaults to ``capacity``).
    """

    __slots__ = ("capacity",)

    def __init__(self, capacity: int, origin: float = 0.0, free: int | None = None) -> None:
        if capacity < 0:
            raise CapacityError(f"capacity must be >= 0, got {capacity}")
        free = capacity if free is None else free
        if not 0 <= free <= capacity:
            raise CapacityError(f"free processors {free} outside [0, {capacity}]")
        self.capacity = capacity
        self._times: list[float] = [float(origin)]
        self._free: list[int] = [free]
        #: Known never to fall from its origin on, as unchanged since a builder that knows it
        #: made it (a fixed pool's leases: :meth:`LeaseEnds.profile`); any change clears it.
        self.rising = False

    @classmethod
    def from_steps(cls, capacity: int, times: list[float], free: list[int]) -> CapacityProfile:
        """A profile with ``free[i]`` processors from ``times[i]`` on (times increasing)."""
        if not times or len(times) != len(free):
            raise CapacityError("a profile needs as many free counts as times (at least one)")
        if any(b <= a for a, b in pairwise(times)):
            raise CapacityError("profile times must increase strictly")
        if any(not 0 <= f <= capacity for f in free):
            raise CapacityError(f"free processors must lie in [0, {capacity}]")
        profile = cls(capacity, times[0], free[0])
        profile._times = [float(t) for t in times]
        profile._free = list(free)
        return profile

    @classmethod
    def _trusted(cls, capacity: int, times: list[float], free: list[int]) -> CapacityProfile:
        """A profile from steps already known to be valid (no checks: for hot paths)."""
        profile = cls.__new__(cls)
        profile.capacity = capacity
        profile._times = times
        profile._free = free
        profile.rising = False
        return profile

    def copy(self) -> CapacityProfile:
        """An independent copy (plans are built on copies of a base profile)."""
        clone = CapacityProfile.__new__(CapacityProfile)
        clone.capacity = self.capacity
        clone._times = self._times.copy()
        clone._free = self._free.copy()
        clone.rising = self.rising
        return clone

    # -- queries -------------------------------------------------------------------------------
    @property
    def origin(self) -> float:
        """The first time the profile describes."""
        return self._times[0]

    @property
    def settled(self) -> tuple[float, int]:
        """``(t, f)``: from ``t`` on (the last breakpoint) ``f`` processors are free for ever, so
        a job on at most ``f`` starts by ``max(t, after)`` at the latest."""
        return self._times[-1], self._free[-1]

    def steps(self) -> list[tuple[float, int]]:
        """The breakpoints as ``(time, free from then on)`` pairs."""
        return list(zip(self._times, self._free, strict=True))

    def free_at(self, t: float) -> int:
        """Processors free at time ``t``."""
        i = bisect_right(self._times, t) - 1
        return self._free[i if i > 0 else 0]

    def min_free(self, start: float, end: float) -> int:
        """Fewest processors free at any time in ``[start, end)``."""
        times = self._times
        i = max(bisect_right(times, start) - 1, 0)
        j = max(bisect_left(times, end - EPS), i + 1)
        return min(self._free[i:j])

    def earliest_start(self, processors: int, duration: float, after: float) -> float:
        """Earliest ``t >= after`` with ``processors`` free throughout ``[t, t + duration)``.

        Returns ``math.inf`` when no such time exists (more processors than the profile ever
        has free from ``after`` on).
        """
        return self.reserve_earliest(processors, duration, after, -math.inf)  # reserves nothing

    # -- updates -------------------------------------------------------------------------------
    def reserve(self, start: float, duration: float, processors: int) -> None:
        """Take ``processors`` over ``[start, start + duration)``.

        Raises :class:`CapacityError` (leaving the profile unchanged) if fewer are free.
        """
        self._add(start, start + duration, -processors)

    def release(self, start: float, duration: float, processors: int) -> None:
        """Give back ``processors`` over ``[start, start + duration)`` (undo a reservation)."""
        self._add(start, start + duration, processors)

    def reserve_at(self, start: float, duration: float, processors: int) -> bool:
        """:meth:`reserve` if ``processors`` are free throughout ``[start, start + duration)``;
        returns whether it did (a test and a reservation in one search)."""
        times, free = self._times, self._free
        if start < times[0]:
            raise CapacityError(f"cannot change the profile before its origin {times[0]}")
        end = start + duration
        i = bisect_right(times, start) - 1
        if free[i] < processors:
            return False
        j, k, by = i + 1, len(times), end - EPS
        while j < k and times[j] < by:
            if free[j] < processors:
                return False
            j += 1
        if end > start and processors:
            self._apply(i, j, start, end, -processors)
        return True

    def _add(self, start: float, end: float, delta: int) -> None:
        if end <= start or delta == 0:
            return
        times, free = self._times, self._free
        if start < times[0]:
            raise CapacityError(f"cannot change the profile before its origin {times[0]}")
        # Check before changing anything, so a failed call leaves the profile as it was. A start
        # within EPS of a breakpoint is that breakpoint, as an end is (see _apply): a reservation
        # released at the float start it was made with, after a neighbour's end computed by
        # other sums landed a rounding after it, then covers the same steps.
        i = bisect_right(times, start + EPS) - 1  # (the step holding start, or one just after)
        if times[i] >= start - EPS:
            start = times[i]
        j = bisect_left(times, end - EPS)
        if j <= i:  # (nothing left but a sliver shorter than EPS)
            return
        segment = free[i:j]
        if delta < 0 and min(segment) + delta < 0:
            raise CapacityError(
                f"{-delta} processors are not free over [{start:g}, {end:g}) (only {min(segment)})"
            )
        if delta > 0 and max(segment) + delta > self.capacity:
            raise CapacityError(
                f"releasing {delta} processors over [{start:g}, {end:g}) exceeds the capacity"
                f" {self.capacity}"
            )
        self._apply(i, j, start, end, delta)

    def trim(self, now: float) -> None:
        """Forget the profile before ``now`` (the step in force at ``now`` then starts there)."""
        times = self._times
        i = bisect_right(times, now) - 1
        if i > 0:
            del times[:i], self._free[:i]
        if times[0] < now:
            times[0] = float(now)

    def __repr__(self) -> str:
        steps = ", ".join(f"{t:g}:{f}" for t, f in self.steps())
        return f"CapacityProfile(capacity={self.capacity}, [{steps}])"


class LeaseEnds:
    """The announced ends of a fixed pool's leases, and the free-processor profile they give.

    A pool of ``capacity`` processors keeps, per announced end time, how many leased processors
    end then. :meth:`profile` is what a tenant plans on when the pool never varies: every lease
    ends at its announced end, and a lease past it no longer counts (as in
    :meth:`market.core.forecast.Forecast.profile`). Used by the resource provider and by the
    Mesa-free replay (:mod:`agents.replay`).
    """

    __slots__ = ("_ending", "_leased", "_times", "capacity")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._times: list[float] = []  # announced ends, increasing
        self._ending: list[int] = []  # leased processors ending at each
        self._leased = 0  # their sum

    def add(self, until: float, processors: int) -> None:
        """``processors`` more (negative: fewer) leased processors end at ``until``."""
        self._leased += processors
        times, ending = self._times, self._ending
        i = bisect_left(times, until)
        if i < len(times) and times[i] == until:
            ending[i] += processors
            if not ending[i]:
                del times[i], ending[i]
        else:
            times.insert(i, until)
            ending.insert(i, processors)

    def ends_between(self, after: float, until: float) -> bool:
        """Whether a lease is announced to end in ``(after, until]`` (the profile changes)."""
        times = self._times
        i = bisect_right(times, after)
        return i < len(times) and times[i] <= until

    def profile(self, now: float) -> CapacityProfile:
        """Processors free from ``now`` on if every lease ends at its announced end."""
        times, ending = self._times, self._ending
        first = bisect_right(times, now)
        if first:  # (leases past their announced end: no longer counted)
            ending = ending[first:]
            free = self.capacity - sum(ending)
        else:
            free = self.capacity - self._leased
        profile = _new_profile(CapacityProfile)  # (CapacityProfile._trusted, inlined)
        profile.capacity = self.capacity
        profile._times = [now, *times[first:]] if first else [now, *times]
        profile._free = list(accumulate(ending, initial=free))
        profile.rising = True  # (leases only end)
        return profile


_new_profile = CapacityProfile.__new__
