"""The clock: every event-loop trick of the simulation, in one place, behind one switch.

With ``fast=True`` (the default) it runs end-of-instant work at once when nothing else is due
then (:meth:`Clock.at_end_of_instant`), keeps one Mesa event per provider's earliest completion
(:class:`Completions`), builds a bound method's Mesa ``Event`` itself (:meth:`Clock.at`), runs
Mesa's heap in a loop of its own (:meth:`Clock.run_until`), reads the time where Mesa keeps it
(:attr:`Clock.now`) and lets the planner reuse work. With ``fast=False`` each is an ordinary
Mesa event and nothing is reused: the plain model the equivalence tests check the tricks
against. Either way, with ``ticks_per_hour`` :meth:`Clock.snap` puts derived times on the tick
grid, so events in one second are one instant (:meth:`Clock.end_of`). The only module reading
Mesa's private attributes (docs/architecture.md).
"""

from __future__ import annotations

import gc
import heapq
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import MethodType
from typing import Any
from weakref import ref

import mesa
from mesa.time import Event, Priority


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (reference counting still frees).

    A run keeps every job and its record alive to the end and makes few reference cycles, so the
    collector's full passes over them cost about a tenth of a trace replay and free little."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# What an Event built by Mesa holds (checked once per model: :func:`_events_as_expected`)
_EVENT_FIELDS = frozenset(
    {"time", "priority", "_canceled", "fn", "unique_id", "function_args", "function_kwargs"}
)
_new_event = Event.__new__
#: The arguments of every event :meth:`Clock.at` builds: none, shared (Mesa only unpacks them)
_NO_ARGS: tuple = ()
_NO_KWARGS: dict = {}


class Clock:
    """Event scheduling for the agents of ``model``, with the speed tricks on when ``fast``."""

    def __init__(
        self, model: mesa.Model, fast: bool = True, ticks_per_hour: int | None = None
    ) -> None:
        self.model = model
        self.fast = fast
        self.ticks_per_hour = ticks_per_hour
        self.at_once = 0  # end-of-instant work done at once instead of in an event
        self._kept: dict[MethodType, MethodType] = {}  # the method each method's events hold
        # (Mesa internals: the fast clock reads Mesa's event list when it has one)
        self._event_list = getattr(model, "_event_list", None)
        # Build handlers' events here (see the module docstring), or leave it all to Mesa
        self._builds = fast and _events_as_expected(self._event_list)
        # Read the time where Mesa's observable descriptor says it keeps it (``_time``)
        descriptor = inspect.getattr_static(type(model), "time", None)
        # (Mesa internals: the attribute Mesa's time descriptor stores the time in, if any)
        self._reads_time = fast and getattr(descriptor, "private_name", None) == "_time"

    def event_driven(self) -> Clock:
        """Stop the model's fixed step (Mesa's default schedule): everything is an event."""
        self.model._default_schedule.stop()
        return self

    @property
    def now(self) -> float:
        """The model's time (``model.time``; fast, read without Mesa's descriptor)."""
        return self.model._time if self._reads_time else self.model.time

    def snap(self, time: float) -> float:
        """``time`` on the tick grid (``round(time x ticks) / ticks``), or as it is without
        ticks."""
        ticks = self.ticks_per_hour
        return time if ticks is None else round(time * ticks) / ticks

    def end_of(self, start: float, duration: float) -> float:
        """When something of ``duration`` started at ``start`` ends: ``start + duration`` on the
        tick grid, never before ``start`` (a start off the grid, a synthetic client's arrival
        beside a trace, and a duration under half a tick would round below it)."""
        ticks = self.ticks_per_hour
        if ticks is None:
            return start + duration
        end = round((start + duration) * ticks) / ticks
        return end if end >= start else start

    def at(self, time: float, callback: Callable[[], Any], priority=Priority.DEFAULT) -> Event:
        """Schedule ``callback`` (an agent's bound method, or any callable kept alive by its
        owner: Mesa holds it weakly) at ``time`` (not before the model's time). Fast, the event
        of a bound method is built here, as Mesa would build it, around the first equal bound
        method, which the clock keeps (a WeakMethod per event costs a tenth of a trace replay)."""
        if self._builds and type(callback) is MethodType:
            fn = self._kept.get(callback)
            if fn is None:
                fn = self._kept[callback] = callback
            event = _new_event(Event)  # (its fields set one by one, as Mesa's __init__ does:
            event.time = time  # they stay inline, where the heap's __lt__ reads them fast)
            event.priority = int(priority)
            event._canceled = False
            event.fn = ref(fn)
            event.unique_id = next(Event._ids)
            event.function_args = _NO_ARGS
            event.function_kwargs = _NO_KWARGS
            heapq.heappush(self._event_list._events, event)
            return event
        return self.model.schedule_event(callback, at=time, priority=priority)

    def run_until(self, until: float) -> None:
        """Mesa's ``Model.run_until``: run every event due by ``until`` in Mesa's order, then set
        the time to ``until``. Fast, the loop over Mesa's heap is here, setting the time where
        Mesa keeps it (nobody observing it): the same events, run in the same order."""
        model = self.model
        if not (self._builds and self._reads_time) or until <= model._time or _observed(model):
            mesa.Model.run_until(model, until)
            return
        event_list, pop = self._event_list, heapq.heappop
        while True:
            events = event_list._events  # (compact() may replace the list: read it each time)
            if not events or events[0].time > until:
                break
            event = pop(events)
            if event._canceled:
                continue
            model._time = event.time
            fn = event.fn()
            if fn is None:
                continue
            args = event.function_args
            if args is _NO_ARGS:  # (built by :meth:`at`)
                fn()
            else:
                fn(*args, **event.function_kwargs)
        model.time = until

    def completions(self, handle: Callable[[list[Any], float], None]) -> Completions:
        """A new :class:`Completions` on this clock calling ``handle(keys, now)``."""
        return Completions(self, handle)

    def instant_is_over(self) -> bool:
        """Whether nothing else is scheduled at the current instant: every scheduled event is
        later. It looks at the top of Mesa's event heap (ordered by time first), because
        ``EventList.peek_ahead`` scans the whole heap; a canceled event on top counts as "not
        over", and so does everything when the clock is not ``fast`` (scheduling is always
        right)."""
        return self._over(self.now)

    def _over(self, now: float) -> bool:
        events = self._events()
        if events is None:
            return False
        if not events:
            return True
        top = events[0]
        return top.time > now and not top._canceled

    def _events(self) -> list | None:
        """Mesa's event heap (None when not ``fast``, or where Mesa keeps its events otherwise:
        "not over" is then always right)."""
        if not self.fast:
            return None
        try:
            return self._event_list._events  # (compact() may replace the list: read it each time)
        except AttributeError:
            return None

    def at_end_of_instant(self, callback: Callable[[], Any]) -> Event | None:
        """Run ``callback`` after everything else scheduled at this instant: at once if nothing
        else is (returns None), else in a low-priority event at this instant (returned)."""
        model = self.model
        if self._builds and self._reads_time:  # (``now`` and ``_over``, inlined: a hot path)
            now, events = model._time, self._event_list._events
            over = not events or (events[0].time > now and not events[0]._canceled)
        else:
            now = self.now
            over = self._over(now)
        if over:
            self.at_once += 1
            callback()
            return None
        return self.at(now, callback, Priority.LOW)

    def next_event_time(self) -> float | None:
        """When the next event is due, or None if nothing is scheduled."""
        events = self.model._event_list
        if events.is_empty():
            return None
        upcoming = events.peek_ahead(1)
        return upcoming[0].time if upcoming else None


def _observed(model: Any) -> bool:
    """Whether anything subscribed to changes of the model's time (Mesa's signals: a model whose
    time is Mesa's observable keeps its subscribers by (name, signal))."""
    return any(key[0] == "time" and subs for key, subs in model.subscribers.items())


def _events_as_expected(event_list: Any) -> bool:
    """Whether Mesa keeps its events as :meth:`Clock.at` builds them: a heap list in
    ``_event_list._events``, ids from ``Event._ids``, and an Event holding just
    :data:`_EVENT_FIELDS` (a Mesa that changed any of it gets ``schedule_event``)."""
    try:
        probe = Event(0.0, collector_paused)
        return (
            isinstance(event_list._events, list)
            and hasattr(Event, "_ids")  # (Mesa internals: the counter of event ids)
            and set(vars(probe)) == _EVENT_FIELDS
            and isinstance(probe.priority, int)
        )
    except (AttributeError, TypeError, ValueError):
        return False


class Completions:
    """When running jobs end, as Mesa events at high priority: ``handle(keys, now)`` is called
    at each end time ``now`` with the keys (e.g. job ids) of every job due then, in key order.

    Fast: one event per time that becomes the earliest end (each event schedules the next), none
    cancelled, so that Mesa's heap holds a handful of events instead of one per running job.
    Otherwise one event per item."""

    __slots__ = ("__weakref__", "_at", "_clock", "_due", "_handle", "_times")

    def __init__(self, clock: Clock, handle: Callable[[list[Any], float], None]) -> None:
        self._clock = clock
        self._at = clock.at
        self._handle = handle
        self._due: list[tuple[float, Any]] = []  # (end, key) heap
        self._times: list[float] = []  # when the events still to come are due, latest first

    def __len__(self) -> int:
        return len(self._due)

    def add(self, end: float, key: Any) -> None:
        """The job ``key`` (unique, orderable) ends at ``end``."""
        heapq.heappush(self._due, (end, key))
        if not self._clock.fast:
            self._at(end, self._fire_due, Priority.HIGH)
            return
        times = self._times
        if not times or end < times[-1]:
            times.append(end)
            self._at(end, self._fire_due, Priority.HIGH)

    def _fire_due(self) -> None:
        now = self._clock.now
        due, items = self._due, []
        if self._clock.fast:
            self._times.pop()  # this event's
            while due and due[0][0] <= now:
                items.append(heapq.heappop(due)[1])
            if due:
                end = due[0][0]
                if not self._times or end < self._times[-1]:
                    self._times.append(end)
                    self._at(end, self._fire_due, Priority.HIGH)
        elif due and due[0][0] <= now:
            items.append(heapq.heappop(due)[1])
        if items:
            self._handle(items, now)
