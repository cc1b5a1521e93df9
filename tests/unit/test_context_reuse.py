"""A fixed pool's planning context at a later instant takes the free profile of the one before
while no lease was granted, returned or ended in between (agents/planner.py): its origin is then
earlier than the instant, and every scheduler must plan on it as on the profile built at the
instant. That it changes no decision in whole runs is checked by the equivalence harness
(tests/equivalence)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.planner import Planner
from agents.policies import SCHEDULERS, make_scheduler
from agents.policies.admission import AcceptAll
from agents.policies.base import PlanContext
from agents.replay import FixedPool
from tests.conftest import make_job

leases = st.lists(
    st.tuples(st.integers(1, 4), st.integers(1, 40).map(lambda q: q / 4)),  # (processors, until)
    max_size=3,
)
job_specs = st.lists(
    st.tuples(
        st.floats(0.1, 6.0),  # work
        st.floats(1.0, 60.0),  # value
        st.sampled_from([0.0, 1.0, 4.0]),  # decay per hour
        st.sampled_from([(1,), (1, 2), (2, 4), (8,)]),
    ),
    min_size=1,
    max_size=6,
)


def steps(plan):
    return [(p.job.id, p.processors, p.start, p.end) for p in plan.placements]


def pool_with(held: list[tuple[int, float]], capacity: int = 8) -> FixedPool:
    pool = FixedPool(capacity)
    for processors, until in held:
        if processors <= capacity - pool.in_use:
            pool.lease(processors, until)
    return pool


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
@settings(max_examples=30, deadline=None)
@given(held=leases, specs=job_specs, at=st.floats(0.0, 2.0), frac=st.floats(0.05, 0.95))
def test_a_later_context_plans_on_the_carried_profile_as_on_one_built_then(
    name, held, specs, at, frac
):
    pool = pool_with(held)
    ends = sorted(until for _, until in held if until > at)
    later = at + frac * ((ends[0] if ends else at + 4.0) - at)  # before the next end
    planner = Planner(make_scheduler(name), AcceptAll(), pool)
    before = planner.context(at)
    ctx = planner.context(later)
    assert ctx.capacity is before.capacity and ctx.now == later  # (carried over)
    queue = [
        make_job(i, w, v, d, arrival=later, shapes=shapes, serial_fraction=0.2)
        for i, (w, v, d, shapes) in enumerate(specs)
    ]
    built = pool.free_profile(later)  # (rising, as the planner's own)
    fresh = PlanContext(later, built, pool.price, shapes=ctx.shapes)
    scheduler = make_scheduler(name)
    assert steps(scheduler.plan(ctx, queue)) == steps(scheduler.plan(fresh, queue))


def test_the_profile_is_built_again_once_a_lease_changes_or_ends():
    pool = pool_with([(3, 2.0), (2, 5.0)])
    planner = Planner(make_scheduler("easy"), AcceptAll(), pool)
    first = planner.context(0.0).capacity
    assert planner.context(1.0).capacity is first  # nothing changed, nothing ended
    ended = planner.context(2.0).capacity  # the 3 processors' lease ended at 2.0
    assert ended is not first and ended.free_at(2.0) == 6
    pool.lease(1, 4.0)  # a lease granted: the pool's version moves on
    granted = planner.context(2.5).capacity
    assert granted is not ended and granted.free_at(2.5) == 5
    plain = Planner(make_scheduler("easy"), AcceptAll(), pool, reuse=False)
    assert plain.context(2.5).capacity is not plain.context(3.0).capacity  # (not fast)
