"""EASY extends a plan that still holds by a job appended to the queue, and the planner offers
it a plan only while it holds (agents/policies/backfill.py, agents/planner.py): the extension
must be the plan that planning the whole queue again would make. That it changes no decision in
whole runs is checked by the equivalence tests (tests/model/test_fast_equivalence.py)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agents.planner import Planner
from agents.policies.admission import AcceptAll
from agents.policies.backfill import EASY
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


@settings(max_examples=300, deadline=None)
@given(
    queue=queue_specs,
    leases=lease_specs,
    new=st.tuples(st.floats(0.25, 8.0), st.sampled_from([1, 2, 4, 8, 9])),
    later=st.floats(0.0, 1.0),
)
def test_extending_a_plan_that_holds_is_planning_the_queue_again(queue, leases, new, later):
    # An 8-processor pool with leases ending at various times (a 9-wide job never fits); the
    # plan at 0, then at a later time before any lease ends and before anything in the plan is
    # due, the plan with one job more made both ways.
    ends = LeaseEnds(8)
    for until, processors in leases:
        if processors <= 8 - sum(n for _, n in leases[: leases.index((until, processors))]):
            ends.add(until, processors)
    jobs = [rigid(i, work * n, n) for i, (work, n) in enumerate(queue)]
    easy = EASY()
    plan = easy.plan(ctx_at(ends, 0.0), jobs)
    first = min([until for until, _ in leases] + [p.start for p in plan.placements] + [20.0])
    now = later * first
    assume(not plan.due(now) and not ends.ends_between(0.0, now))
    job = rigid(99, new[0] * new[1], new[1])
    extended = easy.extend(plan, ctx_at(ends, now), job)
    assert extended is not None
    assert steps(extended) == steps(easy.plan(ctx_at(ends, now), [*jobs, job]))


class CountingEASY(EASY):
    def __init__(self) -> None:
        self.extended = 0

    def extend(self, plan, ctx, job, pinned=None):
        self.extended += 1
        return super().extend(plan, ctx, job, pinned)


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
