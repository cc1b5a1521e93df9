"""The service provider runs the plan admission made with a job instead of planning again when
nothing changed in between (agents/service_provider.py). That is sound only if (1) pinning every
job to the shape a plan gave it leaves every scheduler's plan as it was (a committed job is
pinned to its admitted shape), and (2) the reuse changes no decision; both are checked here."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.policies import SCHEDULERS, make_scheduler
from agents.service_provider import ServiceProviderAgent
from market import GridMarket
from tests.conftest import make_ctx, make_job

job_specs = st.lists(
    st.tuples(
        st.floats(0.1, 6.0),  # work
        st.floats(1.0, 60.0),  # value
        st.sampled_from([0.0, 0.5, 1.0, 4.0]),  # decay per hour
        st.sampled_from([(1,), (1, 2), (1, 2, 4), (2, 4, 8), (8,)]),
    ),
    min_size=1,
    max_size=8,
)


def steps(plan):
    return [(p.job.id, p.processors, p.start, p.end) for p in plan.placements]


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@settings(max_examples=40, deadline=None)
@given(specs=job_specs, capacity=st.sampled_from([4, 8, 16]), pinned_ahead=st.booleans())
def test_pinning_jobs_to_their_planned_shapes_leaves_the_plan_unchanged(
    name, specs, capacity, pinned_ahead
):
    scheduler = make_scheduler(name)
    queue = [
        make_job(i, w, v, d, shapes=shapes, serial_fraction=0.2)
        for i, (w, v, d, shapes) in enumerate(specs)
    ]
    ctx = make_ctx(capacity, 1.0)
    if pinned_ahead:  # some jobs already carry an admitted shape
        ctx.shapes = {job.id: job.shapes[0] for job in queue[::2]}
    plan = scheduler.plan(ctx, queue)
    pins = {p.job.id: p.processors for p in plan.placements}
    again = make_ctx(capacity, 1.0)
    again.shapes = {**ctx.shapes, **pins}
    assert steps(scheduler.plan(again, queue)) == steps(plan)


def outcomes(model):
    return {
        (sp.name, job_id): (r.decision.accepted, r.decision.reason, r.processors, r.start, r.end)
        for sp in model.service_providers.values()
        for job_id, r in sp.records.items()
    }


@pytest.mark.parametrize(
    "scheduler, admission",
    [
        ("first_profit", "positive_opportunity"),
        ("first_opportunity", "positive_opportunity"),
        ("sjf", "accept_all"),
        ("easy", "accept_all"),
        ("conservative", "accept_all"),
        ("fcfs", "accept_all"),
    ],
)
def test_reusing_the_admission_plan_changes_no_decision(
    default_scenario, monkeypatch, scheduler, admission
):
    scenario = default_scenario.with_overrides(
        {
            "service_providers.0.scheduler": scheduler,
            "service_providers.0.admission": admission,
            "clients.0.workload.jobs": 150,
            "clients.0.workload.mean_interarrival": 0.05,  # a long queue
        }
    )
    original, used = ServiceProviderAgent._quoted_plan, []

    def spy(self, job):
        plan = original(self, job)
        used.append(plan is not None)
        return plan

    monkeypatch.setattr(ServiceProviderAgent, "_quoted_plan", spy)
    reused = GridMarket(scenario, seed=5)
    reused.run()
    assert sum(used) > len(used) / 2  # most commits could use the admission's plan
    monkeypatch.setattr(ServiceProviderAgent, "_quoted_plan", lambda self, job: None)
    fresh = GridMarket(scenario, seed=5)
    fresh.run()
    assert outcomes(reused) == outcomes(fresh)
    assert sum(r[0] for r in outcomes(fresh).values()) > 0
