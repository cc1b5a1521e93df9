"""The clock's events (market/sim/clock.py): the events it builds itself when fast are Mesa's own,
in Mesa's order, and anything it cannot build goes through Mesa's ``schedule_event``."""

from __future__ import annotations

from weakref import WeakMethod, ref

import mesa
import pytest
from mesa.time import Event, Priority

from market.sim.clock import Clock, _events_as_expected


class Recorder:
    """Handlers that write down what ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def note_a(self) -> None:
        self.ran.append("a")

    def note_b(self) -> None:
        self.ran.append("b")

    a = note_a
    b = note_b


def test_a_fast_clock_builds_the_event_mesa_would():
    model = mesa.Model(rng=1)
    clock, r = Clock(model, fast=True), Recorder()
    built = clock.at(2.0, r.a, Priority.HIGH)
    by_mesa = Event(2.0, r.a, Priority.HIGH)
    assert set(vars(built)) == set(vars(by_mesa))
    assert (built.time, built.priority, built.CANCELED) == (2.0, Priority.HIGH.value, False)
    assert built.unique_id < by_mesa.unique_id  # Mesa's id counter
    assert built.fn() == r.a  # the method, kept by the clock (Mesa's event holds it weakly)
    assert not built.function_args and not built.function_kwargs  # (no arguments)
    assert clock.at(3.0, r.a).fn() is built.fn()  # one per method, however many events
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

    def dropped() -> None:
        r.note_b()

    clock.at(1.0, dropped)
    del dropped  # nobody keeps it: held weakly, as Mesa holds it
    model.run_until(2.0)
    assert r.ran == []


def test_what_the_clock_cannot_build_goes_through_mesa():
    model = mesa.Model(rng=1)
    r = Recorder()

    def kept() -> None:  # not a bound method: a function its owner keeps
        r.note_b()

    other = Clock(model, fast=True).at(1.0, kept)
    assert isinstance(other.fn, ref) and not isinstance(other.fn, WeakMethod)
    plain = Clock(model, fast=False).at(1.0, r.a)  # not fast: Mesa builds every event
    assert isinstance(plain.fn, WeakMethod) and plain.fn() == r.a
    model.run_until(2.0)
    assert r.ran == ["b", "a"]
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

    for t in (0.5, 1.25, 3.0):
        fast.at(t, note)  # (a function: Mesa's event, held while ``note`` lives)
    model.run_until(4.0)
    assert seen == [(t, t, t) for t in (0.5, 1.25, 3.0)]
    assert fast.now == plain.now == model.time == 4.0


def test_the_clocks_now_falls_back_to_model_time_where_mesa_keeps_it_elsewhere():
    class OtherModel:  # a model whose time is a plain attribute (no ``_time`` behind it)
        time = 2.5
        _event_list = None

    assert Clock(OtherModel(), fast=True).now == 2.5


def test_an_end_is_never_snapped_before_its_start():
    from types import SimpleNamespace

    from market.sim.clock import Clock

    model = SimpleNamespace(_event_list=None, time=0.0)
    grid, free = Clock(model, False, 3600), Clock(model, False, None)
    start = 10.4 / 3600  # off the one-second grid (a synthetic arrival beside a trace)
    assert grid.end_of(start, 0.05 / 3600) == start  # 10.45 s would round to 10 s: not before
    assert grid.end_of(start, 0.09 / 3600) == start
    assert grid.end_of(start, 0.3 / 3600) == 11 / 3600  # 10.7 s: the grid, after the start
    assert grid.end_of(10 / 3600, 5 / 3600) == 15 / 3600
    assert free.end_of(start, 0.3 / 3600) == start + 0.3 / 3600


def test_the_clocks_run_loop_runs_what_mesa_would_in_mesas_order():
    # The same events (built ones, Mesa's, cancelled ones skipped) in Mesa's order, each at its
    # time, then the time set to the end; an end at or before now runs nothing, as in Mesa.
    def scheduled(model, clock, r, seen):
        def note() -> None:
            seen.append(model.time)

        clock.at(1.0, r.a)
        model.schedule_event(r.b, at=1.0)
        clock.at(1.0, r.b, Priority.LOW)
        clock.at(1.0, r.a, Priority.HIGH)
        clock.at(0.5, r.b).cancel()
        model.schedule_event(r.a, at=0.5, priority=Priority.LOW)
        clock.at(2.5, r.b)  # after the end: stays scheduled
        return note

    runs = []
    for fast in (True, False):
        model = mesa.Model(rng=1)
        clock, r, seen = Clock(model, fast=fast), Recorder(), []
        note = scheduled(model, clock, r, seen)
        clock.at(1.5, note)
        clock.run_until(2.0)
        assert model.time == clock.now == 2.0
        with pytest.warns(RuntimeWarning):  # (Mesa's warning: nothing more runs)
            clock.run_until(2.0)
        runs.append((r.ran, seen, clock.next_event_time()))
    assert runs[0] == runs[1] == (["a", "a", "a", "b", "b"], [1.5], 2.5)


def test_a_model_whose_time_is_observed_is_run_by_mesa_and_every_change_seen():
    model = mesa.Model(rng=1)
    clock, r, seen = Clock(model, fast=True), Recorder(), []

    def changed(signal) -> None:
        seen.append(signal.additional_kwargs["new"])

    model.observe("time", "changed", changed)
    clock.at(1.0, r.a)
    clock.at(1.5, r.b)
    clock.run_until(2.0)
    assert r.ran == ["a", "b"] and seen == [1.0, 1.5, 2.0]
