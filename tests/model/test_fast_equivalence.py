"""The clock's speed tricks (market/sim/clock.py: end-of-instant work done at once, coalesced
completion events) and the planner's plan reuse (agents/planner.py) are sound only if they change
no decision: every job's outcome with ``fast=True`` is checked against the plain event-by-event
run (``fast=False``) on scenarios with early and late job ends, every scheduler with admission,
competing providers on one pool, uncertain capacity, and a trace on a one-minute tick (jobs
arriving together, and as others end); and each trick is checked to be taken."""

from __future__ import annotations

import pytest
from mesa.time import Priority

from agents.policies import SCHEDULERS
from market import GridMarket
from market.inputs.scenario import validate
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


for _scheduler in sorted(SCHEDULERS):
    SCENARIOS[f"{_scheduler}, positive opportunity"] = lambda d, tmp, s=_scheduler: busy(
        d, **{"service_providers.0.scheduler": s}
    )
SCENARIOS["sjf, accept all"] = lambda d, tmp: busy(
    d, **{"service_providers.0.scheduler": "sjf", "service_providers.0.admission": "accept_all"}
)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_speed_tricks_change_no_decision(default_scenario, tmp_path, name):
    scenario = SCENARIOS[name](default_scenario, tmp_path)
    fast = GridMarket(scenario, seed=5)
    fast.run()
    plain = GridMarket(scenario, seed=5, fast=False)
    plain.run()
    assert outcomes(fast) == outcomes(plain)
    assert any(accepted for accepted, *_ in outcomes(fast).values())
    assert fast.clock.at_once > 0 and plain.clock.at_once == 0  # the shortcut is taken
    assert sum(sp.planner.reused for sp in plain.service_providers.values()) == 0
    # A risk-aware provider plans again on its risk level; QoPS decides on its own schedules.
    if "risk" not in name and "qops" not in name:
        assert sum(sp.planner.reused for sp in fast.service_providers.values()) > 0


def test_the_instant_is_over_only_when_every_scheduled_event_is_later(default_scenario):
    model = GridMarket(default_scenario.with_overrides({"clients.0.workload.jobs": 3}))
    model.run_until(0.01)  # nothing is scheduled at exactly this time
    assert model.clock.instant_is_over()

    def nothing():
        pass

    now = model.time
    for later in (now + 2.0, now + 1.0):  # scheduled first: the heap's order is by time
        model.schedule_event(nothing, at=later)
    for priority in (Priority.HIGH, Priority.DEFAULT, Priority.LOW):
        event = model.schedule_event(nothing, at=now, priority=priority)
        assert (
            not model.clock.instant_is_over()
        )  # something else happens now, whatever its priority
        event.cancel()
    # A canceled event on top of the heap: not known to be over (scheduling is always right).
    assert not model.clock.instant_is_over()
    model.schedule_event(nothing, at=now + 1e-9)
    model.run_until(now + 1e-9)
    assert model.clock.instant_is_over()
