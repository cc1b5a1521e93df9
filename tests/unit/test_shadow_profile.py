"""EASY on a profile that never falls plans from its shadow time and extra processors
(market/core/shadow.py) exactly as on a copy of the profile: same starts, same floats, ends near
a breakpoint snapped to it the same way."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.planner import Planner
from agents.policies.admission import AcceptAll
from agents.policies.backfill import EASY
from agents.policies.base import PlanContext
from agents.replay import FixedPool
from market.core.capacity import EPS, CapacityError, CapacityProfile, LeaseEnds
from market.core.rent import PriceSchedule
from market.core.shadow import ShadowProfile
from tests.conftest import make_job

FREE = PriceSchedule.constant(0.0)


def rigid(id: int, runtime: float, processors: int):
    return make_job(id, runtime * processors, 10.0, shapes=(processors,))


def pool(capacity: int, *leases: tuple[float, int]) -> LeaseEnds:
    ends = LeaseEnds(capacity)
    for until, processors in leases:
        ends.add(until, processors)
    return ends


def as_any_profile(profile: CapacityProfile) -> CapacityProfile:
    plain = profile.copy()
    plain.rising = False
    return plain


def steps(plan):
    placed = [(p.job.id, p.processors, p.start, p.end) for p in plan.placements]
    return placed, [job.id for job in plan.unplaced]


def both_ways(ends: LeaseEnds, now: float, queue, pinned=None):
    """EASY's plan on the rising profile and on a plain copy of it (they must agree)."""
    rising = ends.profile(now)
    assert rising.rising
    shadow = EASY().plan(PlanContext(now, rising, FREE), queue, pinned)
    plain = EASY().plan(PlanContext(now, as_any_profile(rising), FREE), queue, pinned)
    assert steps(shadow) == steps(plain)
    return shadow


def test_the_head_waits_for_the_shadow_time_and_later_jobs_use_the_extra_processors():
    # 9 processors: 2 leased until 3, 4 until 5, so 3 free now. A (2 wide, 4 h) starts now and
    # leaves 1 free now; free then is 3 from 3, 5 from 4 (A ends), 9 from 5. B (6 wide) waits
    # for 5, the shadow time, leaving 3 extra there. C (1 wide, 10 h) runs past 5 on one of
    # them; D (1 wide) finds nothing free now.
    ends = pool(9, (3.0, 2), (5.0, 4))
    a, b, c, d = rigid(1, 4.0, 2), rigid(2, 1.0, 6), rigid(3, 10.0, 1), rigid(4, 1.0, 1)
    plan = both_ways(ends, 0.0, [a, b, c, d])
    assert steps(plan) == ([(1, 2, 0.0, 4.0), (2, 6, 5.0, 6.0), (3, 1, 0.0, 10.0)], [])


def test_the_shadow_time_can_be_the_end_of_a_job_started_now():
    # As above, but B is 5 wide: 5 are free from 4, when A ends, with none extra; so C (past 4)
    # waits and E (1 wide, ends at 3, before the shadow time) starts now. F is wider than the
    # pool ever has free: unplaced.
    ends = pool(9, (3.0, 2), (5.0, 4))
    a, b, c = rigid(1, 4.0, 2), rigid(2, 1.0, 5), rigid(3, 10.0, 1)
    e, f = rigid(5, 3.0, 1), rigid(6, 1.0, 10)
    plan = both_ways(ends, 0.0, [a, b, c, e, f])
    assert steps(plan) == ([(1, 2, 0.0, 4.0), (2, 5, 4.0, 5.0), (5, 1, 0.0, 3.0)], [6])


def test_an_end_within_eps_of_a_breakpoint_ends_at_it():
    # A lease ends at 3; A's run ends a rounding after it, so the profile's step at 3 is where
    # A's processors come back: B (3 wide) can start at 3, not at 3 + 1e-10.
    ends = pool(4, (3.0, 2))
    a, b = rigid(1, 3.0 + 1e-10, 2), rigid(2, 1.0, 3)
    plan = both_ways(ends, 0.0, [a, b])
    assert plan.placements[1].start == 3.0


def test_runs_ending_together_all_give_their_processors_back_at_the_shadow_time():
    # 4 free processors. A and B (1 wide each) end at 2, C (1 wide) at 5: D (2 wide) waits for
    # 2, when 3 are free, so 1 is extra there and E (1 wide, 10 h) runs past 2 on it.
    a, b, c = rigid(1, 2.0, 1), rigid(2, 2.0, 1), rigid(3, 5.0, 1)
    d, e = rigid(4, 1.0, 2), rigid(5, 10.0, 1)
    plan = both_ways(pool(4), 0.0, [a, b, c, d, e])
    assert [(p.job.id, p.start) for p in plan.placements][3:] == [(4, 2.0), (5, 0.0)]


def test_a_run_ending_within_eps_after_the_shadow_time_ends_by_it():
    # 3 of 4 leased until 2: A (4 wide) waits for 2 with none extra; B (1 wide) ends EPS / 2
    # after 2, which counts as by 2, so it starts now.
    a, b = rigid(1, 1.0, 4), rigid(2, 2.0 + EPS / 2, 1)
    plan = both_ways(pool(4, (2.0, 3)), 0.0, [a, b])
    assert [(p.job.id, p.start) for p in plan.placements] == [(1, 2.0), (2, 0.0)]


def test_an_end_within_eps_after_another_run_s_ends_with_it():
    # A ends at 2 and B EPS / 2 later, at A's end: C (4 wide) starts at 2 exactly.
    a, b, c = rigid(1, 2.0, 1), rigid(2, 2.0 + EPS / 2, 1), rigid(3, 1.0, 4)
    plan = both_ways(pool(4), 0.0, [a, b, c])
    assert plan.placements[2].start == 2.0


def test_it_refuses_what_easy_never_asks():
    shadow = ShadowProfile(pool(4, (3.0, 2)).profile(0.0), 0.0)
    assert shadow.reserve_earliest(2, 5.0, 0.0) == 0.0
    with pytest.raises(CapacityError):
        shadow.reserve_at(1.0, 1.0, 1)  # something was reserved from 0
    assert shadow.reserve_earliest(3, 1.0, 0.0) == 5.0  # the shadow time (the job ends at 5)
    with pytest.raises(CapacityError):
        shadow.reserve_earliest(1, 1.0, 0.0)  # a second shadow time
    with pytest.raises(CapacityError):
        ShadowProfile(CapacityProfile(4), 0.0)  # not known to be rising


def test_its_window_is_the_shadow_time_and_the_extra_processors_easy_backfills_on():
    # The first example's profile: no window before the head's reservation (B, 6 wide, waits
    # for 5 and leaves 3 extra there); then (5, 3); none at another time; a run of 10 h on 1
    # past 5 takes one of the extra processors, leaving 2.
    shadow = ShadowProfile(pool(9, (3.0, 2), (5.0, 4)).profile(0.0), 0.0)
    assert shadow.reserve_earliest(2, 4.0, 0.0) == 0.0
    assert shadow.window(0.0) is None
    assert shadow.reserve_earliest(6, 1.0, 0.0) == 5.0
    assert shadow.window(0.0) == (5.0, 3)
    assert shadow.window(1.0) is None
    assert shadow.reserve_at(0.0, 10.0, 1)
    assert shadow.window(0.0) == (5.0, 2)


# Lease ends, and runs that end on, a rounding off, or EPS off them, so that snapping is tried.
near = st.sampled_from([0.0, 1e-12, -1e-12, 0.9 * EPS, -0.9 * EPS, 1.1 * EPS, -1.1 * EPS, 0.25])
leases = st.lists(st.tuples(st.integers(1, 6), st.integers(1, 3)), max_size=5)
queues = st.lists(
    st.tuples(st.integers(1, 8), near, st.sampled_from([1, 2, 3, 4, 6, 8, 9])),
    max_size=8,
)


@settings(max_examples=400, deadline=None)
@given(leases=leases, queue=queues, now=st.sampled_from([0.0, 0.5]), pin=st.booleans())
def test_easy_plans_on_the_shadow_as_on_the_profile(leases, queue, now, pin):
    # An 8-processor pool (a 9-wide job never fits); runtimes reach a lease's end (or a whole
    # hour) from now, give or take a rounding or EPS.
    ends, leased = LeaseEnds(8), 0
    for until, processors in leases:
        if leased + processors <= 8:
            ends.add(float(until), processors)
            leased += processors
    jobs = [rigid(i, hours - now + off, n) for i, (hours, off, n) in enumerate(queue)]
    pinned = {jobs[-1].id: jobs[-1].shapes[0]} if pin and jobs else None
    plan = both_ways(ends, now, jobs, pinned)
    assert all(p.start >= now and p.processors <= 8 for p in plan.placements)


@settings(max_examples=300, deadline=None)
@given(leases=leases, queue=queues, new=st.tuples(st.integers(1, 8), near, st.integers(1, 9)))
def test_an_extended_shadow_plan_is_the_plain_plan_of_the_longer_queue(leases, queue, new):
    ends, leased = LeaseEnds(8), 0
    for until, processors in leases:
        if leased + processors <= 8:
            ends.add(float(until), processors)
            leased += processors
    jobs = [rigid(i, hours + off, n) for i, (hours, off, n) in enumerate(queue)]
    easy = EASY()
    plan = easy.plan(PlanContext(0.0, ends.profile(0.0), FREE), jobs)
    first = min([t for t, _ in leases] + [p.start for p in plan.placements] + [10.0])
    later = first / 2 if first > 0 else 0.0
    if plan.due(later) or ends.ends_between(0.0, later):
        return  # (not a plan the planner would offer to extend)
    job = rigid(99, new[0] + new[1], new[2])
    extended = easy.extend(plan, PlanContext(later, ends.profile(later), FREE), job)
    plain = easy.plan(PlanContext(later, as_any_profile(ends.profile(later)), FREE), [*jobs, job])
    assert extended is not None and steps(extended) == steps(plain)
    assert math.isfinite(later)


def test_only_the_fast_planner_lets_easy_plan_from_the_shadow():
    # The plain model (the fast switch off) plans on the profile as any profile: the reference
    # the equivalence tests compare the shadow plans with.
    fixed = FixedPool(4)
    fixed.lease(3, 5.0)
    assert Planner(EASY(), AcceptAll(), fixed, reuse=True).context(1.0).capacity.rising
    assert not Planner(EASY(), AcceptAll(), fixed, reuse=False).context(1.0).capacity.rising
