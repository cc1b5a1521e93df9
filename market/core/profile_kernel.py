"""The capacity profile's steps and the two operations planning spends its time in: the earliest
start of a run, reserved there (:meth:`Steps.reserve_earliest`), and a change over an interval
(:meth:`Steps._apply`).

Every plan of conservative backfilling, QoPS, MSB and MRT places each waiting job with them, so
they live here, apart, in plain Python that Cython compiles as it is
(:mod:`market.core.compiled`): the annotations of local variables give Cython their C types and
cost Python nothing (they are never evaluated). :class:`~market.core.capacity.CapacityProfile`
is these steps with the rest of the profile's interface. Compiled or not, the results are the
same (``tests/unit/test_compiled_kernel.py``): free counts and processors are whole numbers,
compared as C longs and added as Python numbers; times are compared as C doubles and kept as the
Python numbers they were given (annotated ``float | int``, which Cython leaves as objects).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (Cython reads the C types of the annotations below; Python never does)
    import cython

#: Hours: a reservation that ends this close to a breakpoint ends at it (see
#: :data:`market.core.capacity.EPS`).
EPS = 1e-9


class Steps:
    """Free processors as steps: ``_free[i]`` from ``_times[i]`` (increasing) until the next
    time, the last step for ever; ``rising`` if known never to fall (cleared by any change)."""

    __slots__ = ("_free", "_times", "rising")

    _times: list[float]
    _free: list[int]
    rising: bool

    def reserve_earliest(
        self,
        processors: int,
        duration: float | int,
        after: float | int,
        latest_end: float | int = math.inf,
    ) -> float | int:
        """The earliest start at or after ``after`` (and the first step) with ``processors``
        free throughout ``[start, start + duration)``, reserved there if the run then ends by
        ``latest_end``; ``math.inf`` if there is none (more than are ever free), and then
        nothing is reserved. The caller knows it reserved iff the start is finite and
        ``start + duration <= latest_end``.

        One search: from the step holding the start, stop at the first step the run spans with
        too few free; every start before the last such step spans it too, so go on after it."""
        times: list = self._times
        free: list = self._free
        k: cython.Py_ssize_t = len(times)
        i: cython.Py_ssize_t
        j: cython.Py_ssize_t
        need: cython.long = processors
        d: cython.double = duration
        s: cython.double
        by: cython.double
        t: cython.double
        f: cython.long
        start = after
        if after > times[0]:
            i = bisect_right(times, after) - 1
        else:
            start = times[0]
            i = 0
        while True:
            f = free[i]
            if f < need:  # skip to the next step with room
                i += 1
                while True:
                    if i == k:
                        return math.inf
                    f = free[i]
                    if f >= need:
                        break
                    i += 1
                start = times[i]
            s = start
            by = (s + d) - EPS
            j = i + 1
            while j < k:
                t = times[j]
                f = free[j]
                if t >= by or f < need:
                    break
                j += 1
            if j == k:
                break
            t = times[j]
            if t >= by:
                break
            # The step at j has too few free, and so may later steps the run would span.
            i = bisect_left(times, by, j + 1) - 1
            while True:
                f = free[i]
                if f < need:
                    break
                i -= 1
        end = start + duration
        if start < end <= latest_end and processors:
            self._apply(i, j, start, end, -processors)
        return start

    def _apply(self, i: int, j: int, start: float | int, end: float | int, delta: int) -> None:
        """Add ``delta`` free processors over ``[start, end)`` (the caller has checked the
        counts stay within the capacity), where step ``i`` holds ``start`` and ``j`` is the
        first breakpoint at or after ``end`` less :data:`EPS` (an end that close before a
        breakpoint is moved onto it); steps are split at the ends and equal neighbours merged."""
        times: list = self._times
        free: list = self._free
        a: cython.Py_ssize_t = i
        b: cython.Py_ssize_t = j
        k: cython.Py_ssize_t = len(times)
        m: cython.Py_ssize_t
        t: cython.double
        e: cython.double = end
        self.rising = False
        if b < k:
            t = times[b]
            if t - e <= EPS:  # (and >= -EPS: b is the first at or after end - EPS)
                end = times[b]
        # Split at end, then at start (inserting at end first keeps index a valid).
        if b == k or times[b] != end:
            times.insert(b, end)
            free.insert(b, free[b - 1])
            k += 1
        if times[a] != start:
            a += 1
            b += 1
            k += 1
            times.insert(a, start)
            free.insert(a, free[a - 1])
        for m in range(a, b):
            free[m] = free[m] + delta
        # Merge equal neighbours at both edges (end first: it does not move a).
        if b < k and free[b] == free[b - 1]:
            del times[b], free[b]
        if a and free[a] == free[a - 1]:
            del times[a], free[a]
