"""The scheduler run at the end of an instant (ServiceProviderAgent._request_dispatch) is done at
once when nothing else is scheduled at that instant, instead of in a low-priority event. That
is sound only if it changes no decision: checked here against a run that always schedules the
event, on scenarios with early and late job ends, competing providers on one pool, uncertain
capacity, and a trace on a one-minute tick (jobs arriving together, and as others end)."""

from __future__ import annotations

import pytest
from mesa.time import Priority

from market import GridMarket
from market.scenario import validate
from tests.conftest import synthetic_swf


def outcomes(model):
    return {
        (sp.name, job_id): (r.decision.accepted, r.decision.reason, r.processors, r.start, r.end)
        for sp in model.service_providers.values()
        for job_id, r in sp.records.items()
    }


def busy(default_scenario, **overrides):
    return default_scenario.with_overrides(
        {"clients.0.workload.jobs": 150, "clients.0.workload.mean_interarrival": 0.05, **overrides}
    )


def competing(default_scenario):
    spec = busy(default_scenario).model_dump()
    first = spec["service_providers"][0]
    spec["service_providers"] = [
        {**first, "name": "profit"},
        {**first, "name": "easy", "scheduler": "easy", "admission": "accept_all"},
    ]
    return validate(spec)


def on_a_tick(tmp_path, scheduler, admission, **workload):
    trace = synthetic_swf(tmp_path / "tick.swf", n=400, max_gap=300, tick=60)
    return validate(
        {
            "name": "tick",
            "resource_providers": [{"name": "pool", "capacity": 16, "price": 0.0}],
            "service_providers": [{"name": "site", "scheduler": scheduler, "admission": admission}],
            "clients": [
                {"name": "users", "workload": {"kind": "swf", "trace": str(trace), **workload}}
            ],
        }
    )


SCENARIOS = {
    "trace on a tick, easy": lambda d, tmp: on_a_tick(tmp, "easy", "accept_all", estimates="trace"),
    "trace on a tick, qops": lambda d, tmp: on_a_tick(
        tmp, "conservative", "qops", deadlines="stringency", stringency=0.2, load_factor=1.4
    ),
    "trace on a tick, first profit": lambda d, tmp: on_a_tick(
        tmp, "first_profit", "positive_opportunity", price_per_processor_hour=1.0
    ),
    "easy, estimates off by up to 50 %": lambda d, tmp: busy(
        d,
        **{
            "service_providers.0.scheduler": "easy",
            "service_providers.0.admission": "accept_all",
            "clients.0.workload.estimate_error": 0.5,
        },
    ),
    "first profit": lambda d, tmp: busy(d),
    "conservative, estimates off": lambda d, tmp: busy(
        d,
        **{
            "service_providers.0.scheduler": "conservative",
            "service_providers.0.admission": "accept_all",
            "clients.0.workload.estimate_error": 0.5,
        },
    ),
    "two providers, one pool": lambda d, tmp: competing(d),
    "uncertain capacity, risk 0.1": lambda d, tmp: busy(
        d, **{"resource_providers.0.uncertainty.sigma": 2.0, "service_providers.0.risk": 0.1}
    ),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_running_the_scheduler_at_once_when_the_instant_is_over_changes_no_decision(
    default_scenario, monkeypatch, tmp_path, name
):
    scenario = SCENARIOS[name](default_scenario, tmp_path)
    scheduled = []
    original = GridMarket.schedule_event

    def counting(self, function, **kwargs):
        scheduled.append(getattr(function, "func", function).__name__)
        return original(self, function, **kwargs)

    monkeypatch.setattr(GridMarket, "schedule_event", counting)
    at_once = GridMarket(scenario, seed=5)
    at_once.run()
    runs_at_once = scheduled.count("_dispatch")
    scheduled.clear()
    monkeypatch.setattr(GridMarket, "instant_is_over", lambda self: False)
    always_scheduled = GridMarket(scenario, seed=5)
    always_scheduled.run()
    assert runs_at_once < scheduled.count("_dispatch")  # the shortcut is taken
    assert outcomes(at_once) == outcomes(always_scheduled)
    assert any(accepted for accepted, *_ in outcomes(at_once).values())


def test_the_instant_is_over_only_when_every_scheduled_event_is_later(default_scenario):
    model = GridMarket(default_scenario.with_overrides({"clients.0.workload.jobs": 3}))
    model.run_until(0.01)  # nothing is scheduled at exactly this time
    assert model.instant_is_over()

    def nothing():
        pass

    now = model.time
    for later in (now + 2.0, now + 1.0):  # scheduled first: the heap's order is by time
        model.schedule_event(nothing, at=later)
    for priority in (Priority.HIGH, Priority.DEFAULT, Priority.LOW):
        event = model.schedule_event(nothing, at=now, priority=priority)
        assert not model.instant_is_over()  # something else happens now, whatever its priority
        event.cancel()
    # A canceled event on top of the heap: not known to be over (scheduling is always right).
    assert not model.instant_is_over()
    model.schedule_event(nothing, at=now + 1e-9)
    model.run_until(now + 1e-9)
    assert model.instant_is_over()
