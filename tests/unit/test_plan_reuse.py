"""The planner follows the plan admission made with a job instead of planning again when nothing
changed in between (agents/planner.py). That is sound only if pinning every job to the shape a
plan gave it leaves every scheduler's plan as it was (a committed job is pinned to its admitted
shape), checked here; that reuse changes no decision in whole runs is checked in
tests/model/test_fast_equivalence.py."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.planner import Planner
from agents.policies import SCHEDULERS, make_admission, make_scheduler
from agents.policies.base import PlanContext
from market.core.capacity import CapacityProfile
from market.core.rent import PriceSchedule
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


class FixedPool:
    """A pool of ``capacity`` processors that never varies and has nothing leased (what the
    planner reads of a resource provider)."""

    def __init__(self, capacity: int, price: float) -> None:
        self.capacity, self.price, self.varies, self.version = (
            capacity,
            PriceSchedule.constant(price),
            False,
            0,
        )

    def free_profile(self, now: float) -> CapacityProfile:
        return CapacityProfile(self.capacity, origin=now)

    def ends_between(self, after: float, until: float) -> bool:
        return False  # (nothing leased)


def test_the_planner_follows_the_admission_plan_only_while_nothing_changed():
    pool = FixedPool(4, 1.0)
    planner = Planner(make_scheduler("first_profit"), make_admission("positive_opportunity"), pool)
    first = make_job(1, 2.0, 20.0, shapes=(1, 2), serial_fraction=0.2)
    decision = planner.quote(first, 0.0)
    assert decision.accepted
    planner.admit(first, decision, 0.0)
    plan = planner.plan(0.0)
    assert planner.reused == 1 and plan.placement_of(1).processors == decision.processors
    # Quoted and admitted, then the pool changes before the scheduler runs: plan afresh.
    second = make_job(2, 2.0, 20.0, shapes=(1, 2), serial_fraction=0.2)
    planner.admit(second, planner.quote(second, 0.0), 0.0)
    pool.version += 1
    planner.plan(0.0)
    assert planner.reused == 1
    # Without reuse (the model's fast=False) the same plan is built again.
    again = Planner(make_scheduler("first_profit"), make_admission("positive_opportunity"),
                    FixedPool(4, 1.0), reuse=False)  # fmt: skip
    again.admit(first, again.quote(first, 0.0), 0.0)
    assert steps(again.plan(0.0)) == steps(plan) and again.reused == 0


def test_ranks_are_memoised_per_instant_and_price_only():
    scheduler = make_scheduler("first_profit")
    job = make_job(1, 2.0, 20.0, decay=1.0, shapes=(1, 2, 4), serial_fraction=0.2)
    ctx = make_ctx(4, 1.0)
    assert scheduler.ranked(job, ctx) == scheduler.rank(job, ctx)
    smaller = PlanContext(0.0, CapacityProfile(2, origin=0.0), ctx.price)  # same now and price
    assert scheduler.ranked(job, smaller) == scheduler.rank(job, ctx)  # (not the capacity's)
    later = make_ctx(4, 1.0, now=3.0)  # another instant: the memo starts afresh
    assert scheduler.ranked(job, later) == scheduler.rank(job, later)
    assert scheduler.rank(job, later) != scheduler.rank(job, ctx)  # (the value decays)
    dearer = make_ctx(4, 2.0, now=3.0)  # another price at the same instant: afresh too
    assert scheduler.ranked(job, dearer) == scheduler.rank(job, dearer)
    assert scheduler.rank(job, dearer) != scheduler.rank(job, later)
