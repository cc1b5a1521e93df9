"""The clock's events (market/clock.py): the events it builds itself when fast are Mesa's own, in
Mesa's order, and anything it cannot build goes through Mesa's ``schedule_event``."""

from __future__ import annotations

from weakref import WeakMethod

import mesa
from mesa.time import Event, Priority

from market.clock import Clock, _events_as_expected, handler


class Recorder:
    """Handlers that write down what ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        self.a = handler(self.note_a)  # kept, as agents keep theirs
        self.b = handler(self.note_b)

    def note_a(self) -> None:
        self.ran.append("a")

    def note_b(self) -> None:
        self.ran.append("b")


def test_a_fast_clock_builds_the_event_mesa_would():
    model = mesa.Model(rng=1)
    clock, r = Clock(model, fast=True), Recorder()
    built = clock.at(2.0, r.a, Priority.HIGH)
    by_mesa = Event(2.0, r.a, Priority.HIGH)
    assert set(vars(built)) == set(vars(by_mesa))
    assert (built.time, built.priority, built.CANCELED) == (2.0, Priority.HIGH.value, False)
    assert built.fn() is r.a and built.unique_id < by_mesa.unique_id  # Mesa's id counter
    assert built in model._event_list._events


def test_built_and_mesa_events_run_in_mesa_order():
    # Same time: by priority, then in the order scheduled, whoever scheduled them.
    model = mesa.Model(rng=1)
    clock, r = Clock(model, fast=True), Recorder()
    clock.at(1.0, r.a)
    model.schedule_event(r.b, at=1.0)
    clock.at(1.0, r.b, Priority.LOW)
    clock.at(1.0, r.a, Priority.HIGH)
    model.schedule_event(r.a, at=0.5, priority=Priority.LOW)
    model.run_until(2.0)
    assert r.ran == ["a", "a", "a", "b", "b"]


def test_a_cancelled_built_event_does_not_run_and_a_dropped_handler_is_not_called():
    model = mesa.Model(rng=1)
    clock, r = Clock(model, fast=True), Recorder()
    clock.at(1.0, r.a).cancel()
    clock.at(1.0, handler(r.note_b))  # nobody keeps it: held weakly, as Mesa holds it
    model.run_until(2.0)
    assert r.ran == []


def test_what_the_clock_cannot_build_goes_through_mesa():
    model = mesa.Model(rng=1)
    r = Recorder()
    method = Clock(model, fast=True).at(1.0, r.note_a)  # a bound method: Mesa's WeakMethod
    assert isinstance(method.fn, WeakMethod)
    plain = Clock(model, fast=False).at(1.0, r.a)  # not fast: Mesa builds every event
    assert plain.fn() is r.a
    model.run_until(2.0)
    assert r.ran == ["a", "a"]
    # A Mesa that keeps its events otherwise gets schedule_event even when fast
    assert not _events_as_expected(None)
    assert not _events_as_expected(object())
    assert _events_as_expected(model._event_list)


def test_the_clocks_now_is_the_models_time_as_events_run():
    model = mesa.Model(rng=1)
    fast, plain = Clock(model, fast=True), Clock(model, fast=False)
    seen = []

    def note() -> None:
        seen.append((model.time, fast.now, plain.now))

    keep = handler(note)
    for t in (0.5, 1.25, 3.0):
        fast.at(t, keep)
    model.run_until(4.0)
    assert seen == [(t, t, t) for t in (0.5, 1.25, 3.0)]
    assert fast.now == plain.now == model.time == 4.0


def test_the_clocks_now_falls_back_to_model_time_where_mesa_keeps_it_elsewhere():
    class OtherModel:  # a model whose time is a plain attribute (no ``_time`` behind it)
        time = 2.5
        _event_list = None

    assert Clock(OtherModel(), fast=True).now == 2.5
