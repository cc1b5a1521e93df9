"""A heap of (time, key) items with one Mesa event per time that becomes its earliest, for agents
with many pending timers (a batch site's completions, a VARQ user's re-plans).

Mesa keeps weak references to event callbacks, so the agent keeps ``callback`` alive (this object
holds it). An event is scheduled only for a time earlier than every time already scheduled (a
stack of scheduled times, latest first), so the event list holds few events however many items
are pending; :meth:`pop_due` in the callback returns every key due now and schedules the next.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

from mesa.time import Priority


class TimedQueue:
    """Pending ``(time, key)`` items of one agent, firing ``callback`` when items fall due."""

    __slots__ = ("_heap", "_model", "_scheduled", "callback", "priority")

    def __init__(self, model, callback: Callable[[], None], priority=Priority.HIGH) -> None:
        self._model = model
        self.callback = callback
        self.priority = priority
        self._heap: list[tuple[float, int, Any]] = []
        self._scheduled: list[float] = []

    def __len__(self) -> int:
        return len(self._heap)

    def push(self, at: float, key: int, item: Any = None) -> None:
        """Have ``key`` (and ``item``) fall due at ``at``."""
        heapq.heappush(self._heap, (at, key, item))
        self._expect()

    def _expect(self) -> None:
        heap, times = self._heap, self._scheduled
        if heap and (not times or heap[0][0] < times[-1]):
            times.append(heap[0][0])
            self._model.schedule_event(self.callback, at=heap[0][0], priority=self.priority)

    def pop_due(self) -> list[tuple[int, Any]]:
        """Every ``(key, item)`` due now, in time order; schedules the next event."""
        now, heap, times = self._model.time, self._heap, self._scheduled
        while times and times[-1] <= now:
            times.pop()
        due = []
        while heap and heap[0][0] <= now:
            _, key, item = heapq.heappop(heap)
            due.append((key, item))
        self._expect()
        return due
