"""EASY's reservations on a profile that never falls, kept as its shadow time and extra processors.

On a fixed pool the free profile only rises (leases only end: :attr:`CapacityProfile.rising`).
EASY reserves on it in one pattern: jobs start now while they fit, then the head waits for the
first time enough processors are free (the *shadow time*), then later jobs start now if they fit
now and, when they run past the shadow time, in what the head leaves free then (the *extra*
processors: Mu'alem & Feitelson, IEEE TPDS 12, 2001, the QoPS paper's reference [12]).
:class:`ShadowProfile` answers :meth:`~CapacityProfile.reserve_earliest` and
:meth:`~CapacityProfile.reserve_at` for that pattern from those two numbers, as a copy of the
profile would, breakpoint for breakpoint (ends within :data:`EPS` of a breakpoint end at it),
without copying or changing the profile.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort

from market.core.capacity import EPS, CapacityError, CapacityProfile


class ShadowProfile:
    """EASY's reservations from ``now`` on the rising ``base`` (left unchanged): those starting
    now, then one later (the head's, at the shadow time), then more starting now."""

    __slots__ = (
        "_base",
        "_extra",
        "_first",
        "_free_now",
        "_now",
        "_shadow",
        "_started",
        "_taken",
        "base_free_ever",
        "base_free_now",
    )

    def __init__(self, base: CapacityProfile, now: float) -> None:
        if not base.rising or now < base.origin:
            raise CapacityError("a shadow profile needs a rising profile from its origin on")
        self._base = base
        self._now = now
        self._first = bisect_right(base._times, now)  # the base's first breakpoint after now
        self._free_now = base._free[self._first - 1]  # free now, what started now taken out
        #: The base's free processors now and for ever (before any reservation here)
        self.base_free_now, self.base_free_ever = self._free_now, base._free[-1]
        self._started: list[tuple[float, int]] = []  # (end, processors) of those, by end
        self._shadow: float | None = None  # the later reservation's start, once made
        self._extra = 0  # processors free at the shadow time, every reservation taken out
        self._taken = False  # whether anything was reserved from now

    def copy(self) -> ShadowProfile:
        """An independent copy (the base is shared: it never changes)."""
        clone = ShadowProfile.__new__(ShadowProfile)
        clone._base, clone._now, clone._first = self._base, self._now, self._first
        clone._free_now, clone._started = self._free_now, self._started.copy()
        clone._shadow, clone._extra, clone._taken = self._shadow, self._extra, self._taken
        clone.base_free_now, clone.base_free_ever = self.base_free_now, self.base_free_ever
        return clone

    def _at(self, now: float) -> None:
        """Reserve from ``now`` on, a time other than that of the reservations so far (the
        callers check): a later one before the profile's next breakpoint and the shadow time if
        nothing was reserved from then (an extended plan's:
        :meth:`agents.policies.backfill.EASY.extend`)."""
        shadow = self._shadow
        if (
            now < self._now
            or self._taken
            or bisect_right(self._base._times, now) != self._first
            or (shadow is not None and shadow <= now)
        ):
            raise CapacityError(f"a shadow profile from {self._now:g} cannot reserve at {now:g}")
        self._now = now

    def reserve_earliest(self, processors: int, duration: float, after: float) -> float:
        """:meth:`CapacityProfile.reserve_earliest` from now (``after``), before the shadow
        time is set: now if the job fits now, else the shadow time (set here), else
        ``math.inf`` (more than the profile ever has free)."""
        if after != self._now:
            self._at(after)
        if self._shadow is not None:
            raise CapacityError("a shadow profile reserves the earliest start once")
        if processors <= self._free_now:
            self._take_now(processors, duration)
            return after
        start, free = self._earliest(processors)
        if start != math.inf:
            self._shadow = start
            self._extra = free - processors if start < start + duration and processors else free
        return start

    def reserve_at(self, start: float, duration: float, processors: int) -> bool:
        """:meth:`CapacityProfile.reserve_at` now (``start``): whether ``processors`` are free
        now and, for a run past the shadow time, among the extra ones; if so, reserved."""
        if start != self._now:
            self._at(start)
        if processors > self._free_now:
            return False
        shadow = self._shadow
        past = shadow is not None and shadow < start + duration - EPS
        if past and processors > self._extra:
            return False
        if shadow is None:
            self._take_now(processors, duration)  # (nothing for an empty run: it checks)
        elif start < start + duration and processors:
            self._taken = True
            self._free_now -= processors
            if past:
                self._extra -= processors
        return True

    def window(self, now: float) -> tuple[float, int] | None:
        """``(shadow time, extra processors)`` once the shadow time is set and while the profile
        reserves at ``now``: then :meth:`reserve_at` refuses a run of ``processors`` from now
        that ends after the shadow time (``shadow < now + duration - EPS``) on more than the
        extra processors, so EASY's backfilling tests those on two numbers; else None."""
        if self._shadow is None or now != self._now:
            return None
        return self._shadow, self._extra

    def _take_now(self, processors: int, duration: float) -> None:
        """Reserve ``[now, now + duration)``, the end on the breakpoint within EPS after it if
        any (as :meth:`CapacityProfile._apply`: the first at or after ``end - EPS``)."""
        now = self._now
        end = now + duration
        if not (now < end and processors):
            return
        self._taken = True
        self._free_now -= processors
        times, started, by = self._base._times, self._started, end - EPS
        i = bisect_left(times, by, self._first)
        near = times[i] if i < len(times) else math.inf
        j = bisect_left(started, (by,))
        if j < len(started) and started[j][0] < near:
            near = started[j][0]
        insort(started, (near if near - end <= EPS else end, processors))

    def _earliest(self, processors: int) -> tuple[float, int]:
        """The first breakpoint after now with ``processors`` free, and how many are free then
        (``math.inf``, 0 if none): the base's free counts never fall, so each stretch between
        the ends of what started now is one search of them."""
        times, free, started = self._base._times, self._base._free, self._started
        held = sum(n for _, n in started)  # (processors started now and still running)
        lo, k, at = self._first, len(started), 0
        while at < k:
            end = started[at][0]
            hi = bisect_left(times, end, lo)
            i = bisect_left(free, processors + held, lo, hi)
            if i < hi:
                return times[i], free[i] - held
            while at < k and started[at][0] == end:  # every run ending then
                held -= started[at][1]
                at += 1
            lo = bisect_right(times, end, lo)
            if free[lo - 1] - held >= processors:  # (the base's step holding end)
                return end, free[lo - 1] - held
        i = bisect_left(free, processors, lo)
        return (times[i], free[i]) if i < len(times) else (math.inf, 0)
