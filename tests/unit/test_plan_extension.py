"""EASY and conservative backfilling extend a plan that still holds by a job appended to the
queue, and the planner offers them a plan only while it holds (agents/policies/backfill.py,
agents/planner.py): the extension must be the plan that planning the whole queue again would
make. That it changes no decision in
whole runs is checked by the equivalence tests (tests/model/test_fast_equivalence.py)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agents.planner import Planner
from agents.policies.admission import AcceptAll
from agents.policies.backfill import EASY, Conservative
from agents.policies.base import PlanContext
from agents.replay import FixedPool
from market.core.capacity import LeaseEnds
from market.core.rent import PriceSchedule
from tests.conftest import make_job

FREE = PriceSchedule.constant(0.0)


def rigid(id: int, work: float, processors: int):
    return make_job(id, work, 10.0, shapes=(processors,))


def ctx_at(ends: LeaseEnds, now: float) -> PlanContext:
    return PlanContext(now, ends.profile(now), FREE)


def steps(plan):
    placed = [(p.job.id, p.processors, p.start, p.end, p.value, p.rent) for p in plan.placements]
    return placed, [job.id for job in plan.unplaced]


def test_a_job_that_fits_around_the_head_backfills_one_that_would_delay_it_waits():
    # 4 processors, 3 leased until 5. At 1, A (4 wide) is the head, reserved at 5, nothing
    # starts. At 2, nothing changed: B (1 wide, ends at 4, before 5) starts at 2; C (1 wide,
    # ends at 6) would hold a processor A needs at 5, so it waits (left out of the plan).
    ends = LeaseEnds(4)
    ends.add(5.0, 3)
    easy = EASY()
    a, b, c = rigid(1, 4.0 * 3.0, 4), rigid(2, 2.0, 1), rigid(3, 4.0, 1)
    plan = easy.plan(ctx_at(ends, 1.0), [a])
    assert steps(plan)[0] == [(1, 4, 5.0, 8.0, 10.0, 0.0)]
    with_b = easy.extend(plan, ctx_at(ends, 2.0), b)
    assert [(p.job.id, p.start, p.end) for p in with_b.placements] == [(1, 5.0, 8.0), (2, 2.0, 4.0)]
    with_c = easy.extend(plan, ctx_at(ends, 2.0), c)
    assert [p.job.id for p in with_c.placements] == [1] and with_c.unplaced == []
    assert steps(plan)[0] == [(1, 4, 5.0, 8.0, 10.0, 0.0)]  # extending leaves the plan as it was
    # With B due at 2 the plan is to be followed (B started), not extended.
    assert easy.extend(with_b, ctx_at(ends, 2.0), c) is None


def test_a_plan_with_a_job_due_is_not_extended():
    ends = LeaseEnds(4)
    ends.add(5.0, 3)
    easy = EASY()
    plan = easy.plan(ctx_at(ends, 1.0), [rigid(1, 1.0, 1)])  # starts at 1: due
    assert easy.extend(plan, ctx_at(ends, 1.0), rigid(2, 1.0, 1)) is None


queue_specs = st.lists(
    st.tuples(st.floats(0.25, 8.0), st.sampled_from([1, 2, 3, 4, 6, 8, 9])), max_size=7
)
lease_specs = st.lists(st.tuples(st.floats(0.5, 12.0), st.integers(1, 4)), max_size=4)


def test_conservative_places_an_appended_job_at_its_earliest_start_around_the_reservations():
    # 4 processors, 3 leased until 5. At 1, A (4 wide, 3 h) is reserved at 5-8. At 2, nothing
    # changed: B (1 wide, 2 h) starts at 2, ending at 4, before A; C (1 wide, 4 h) would overlap
    # A at 5, when no processor is left, so it is reserved at 8, after A (EASY leaves it out).
    ends = LeaseEnds(4)
    ends.add(5.0, 3)
    conservative = Conservative()
    a, b, c = rigid(1, 4.0 * 3.0, 4), rigid(2, 2.0, 1), rigid(3, 4.0, 1)
    plan = conservative.plan(ctx_at(ends, 1.0), [a])
    with_b = conservative.extend(plan, ctx_at(ends, 2.0), b)
    assert [(p.job.id, p.start, p.end) for p in with_b.placements] == [(1, 5.0, 8.0), (2, 2.0, 4.0)]
    with_c = conservative.extend(plan, ctx_at(ends, 2.0), c)
    placed = [(p.job.id, p.start, p.end) for p in with_c.placements]
    assert placed == [(1, 5.0, 8.0), (3, 8.0, 12.0)]
    assert steps(plan)[0] == [(1, 4, 5.0, 8.0, 10.0, 0.0)]  # extending leaves the plan as it was
    assert conservative.extend(with_b, ctx_at(ends, 2.0), c) is None  # B is due at 2


def lease_ends(leases) -> LeaseEnds:
    """An 8-processor pool with the leases that fit, in order (a 9-wide job never fits)."""
    ends = LeaseEnds(8)
    for until, processors in leases:
        if processors <= 8 - sum(n for _, n in leases[: leases.index((until, processors))]):
            ends.add(until, processors)
    return ends


@pytest.mark.parametrize("scheduler", [EASY, Conservative])
@settings(max_examples=300, deadline=None)
@given(
    queue=queue_specs,
    leases=lease_specs,
    new=st.tuples(st.floats(0.25, 8.0), st.sampled_from([1, 2, 4, 8, 9])),
    later=st.floats(0.0, 1.0),
)
def test_extending_a_plan_that_holds_is_planning_the_queue_again(
    scheduler, queue, leases, new, later
):
    # The plan at 0, then at a later time before any lease ends and before anything in the plan
    # is due, the plan with one job more made both ways.
    ends = lease_ends(leases)
    jobs = [rigid(i, work * n, n) for i, (work, n) in enumerate(queue)]
    policy = scheduler()
    plan = policy.plan(ctx_at(ends, 0.0), jobs)
    first = min([until for until, _ in leases] + [p.start for p in plan.placements] + [20.0])
    now = later * first
    assume(not plan.due(now) and not ends.ends_between(0.0, now))
    job = rigid(99, new[0] * new[1], new[1])
    extended = policy.extend(plan, ctx_at(ends, now), job)
    assert extended is not None
    assert steps(extended) == steps(policy.plan(ctx_at(ends, now), [*jobs, job]))


@settings(max_examples=300, deadline=None)
@given(queue=queue_specs, leases=lease_specs)
def test_conservative_plans_its_compressed_queue_as_it_planned_the_queue(queue, leases):
    # Compression keeps the queue in planned-start order; planning that order gives every job
    # the start it had, the placements in that order (what lets the planner extend the plan).
    ends = lease_ends(leases)
    jobs = [rigid(i, work * n, n) for i, (work, n) in enumerate(queue)]
    conservative = Conservative()
    plan = conservative.plan(ctx_at(ends, 0.0), jobs)
    start = {p.job.id: p.start for p in plan.placements}
    compressed = sorted(jobs, key=lambda job: start.get(job.id, float("inf")))
    again = conservative.plan(ctx_at(ends, 0.0), compressed)
    by_start = sorted(plan.placements, key=lambda p: p.start)
    assert steps(again) == steps(type(plan)(0.0, by_start, plan.unplaced))


class Counting:
    """A scheduler that counts the plans it extends."""

    extended = 0

    def extend(self, plan, ctx, job, pinned=None):
        found = super().extend(plan, ctx, job, pinned)
        self.extended += found is not None
        return found


class CountingEASY(Counting, EASY):
    pass


class CountingConservative(Counting, Conservative):
    pass


def test_the_planner_offers_a_plan_to_extend_only_while_the_pool_is_as_it_was():
    pool = FixedPool(4)
    pool.lease(3, 5.0)  # 3 processors until 5
    easy = CountingEASY()
    planner = Planner(easy, AcceptAll(), pool)
    for job_id, at in ((1, 1.0), (2, 2.0)):  # 4 wide: both wait for 5
        job = rigid(job_id, 4.0, 4)
        planner.admit(job, planner.quote(job, at), at)
        planner.plan(at)
    assert easy.extended == 1  # the second quote: nothing changed since the plan at 1
    pool.lease(1, 3.0)  # (another tenant's lease: the pool's version moves)
    job = rigid(3, 1.0, 1)
    planner.quote(job, 2.5)
    assert easy.extended == 1  # planned again
    planner.plan(2.5)
    planner.quote(rigid(4, 1.0, 1), 4.0)  # the lease ending at 3 changed the profile since
    assert easy.extended == 1
    planner.quote(rigid(5, 1.0, 1), 2.75)  # nothing ended in (2.5, 2.75]: extended
    assert easy.extended == 2


def test_the_planner_extends_conservative_plans_through_compression():
    # 4 processors, 3 leased until 5. A (2 wide, 3 h) at 1 is reserved at 5-8 (one processor is
    # free until 5); B (4 wide, 1 h) at 2 after it, at 8; C (2 wide, 2 h) at 2.5 beside A at 5,
    # ahead of B, so compression makes the queue A, C, B; D (2 wide, 1 h) at 3 in the gap C
    # leaves at 7. Nothing starts, so each offer extends the plan followed last, and each plan
    # is the plan of the whole queue in its order.
    pool = FixedPool(4)
    pool.lease(3, 5.0)
    conservative = CountingConservative()
    planner = Planner(conservative, AcceptAll(), pool)
    arrivals = ((1.0, rigid(1, 6.0, 2)), (2.0, rigid(2, 4.0, 4)), (2.5, rigid(3, 4.0, 2)))
    for at, job in (*arrivals, (3.0, rigid(4, 2.0, 2))):
        planner.admit(job, planner.quote(job, at), at)
        plan = planner.plan(at)
        assert not plan.due(at)
        assert steps(plan) == steps(Conservative().plan(pool_at(pool, at), planner.queue))
        planner.compress(plan)
    assert [(p.job.id, p.start) for p in plan.placements] == [
        (1, 5.0),
        (3, 5.0),
        (2, 8.0),
        (4, 7.0),
    ]
    assert [job.id for job in planner.queue] == [1, 3, 4, 2]
    assert conservative.extended == 3  # B's, C's and D's offers


def pool_at(pool: FixedPool, now: float) -> PlanContext:
    return PlanContext(now, pool.free_profile(now), FREE)
