"""QoPS, MSB and MRT admission (Islam et al., QoPS TR §2.2, §3) on hand-made queues whose
schedules are worked out below, and the guarantee they exist for (hypothesis): run with the
conservative scheduler and estimates no shorter than the runtimes, every admitted deadline is met.

The guarantee test replays a stream of arrivals with :func:`tests.unit.test_backfill.replay`,
an event loop like the service provider's: each arrival is offered to the admission policy with
the queue in its current order and the pool as it is (running jobs until their estimated ends),
an accepted job's ``queue_order`` is applied, and the conservative scheduler starts the jobs due
at every arrival, completion and planned start.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.policies import make_admission
from agents.policies.backfill import Conservative
from agents.policies.deadline_schedule import heuristic, insertion_points
from agents.policies.mrt import MRT
from agents.policies.msb import MSB
from agents.policies.qops import QoPS
from tests.unit.test_backfill import ctx_for, replay, rigid

SCHEDULER = Conservative()


@pytest.fixture(autouse=True)
def queued_not_started(monkeypatch):
    """The hand-made cases here queue jobs that could start now, as admitted but not started,
    to test the search on them; in a run such jobs have started (start_due, tested in
    tests/unit/test_started_now.py), so that rule is off here."""
    from agents.policies import deadline_schedule, vqops

    def none_started(ctx, waiting):
        return ctx, waiting, []

    monkeypatch.setattr(deadline_schedule, "start_due", none_started)
    monkeypatch.setattr(vqops, "start_due", none_started)


def decide(policy, job, queue, ctx=None):
    return policy.decide(job, queue, ctx or ctx_for(4), SCHEDULER)


def test_insertion_points_follow_0_n2_3n4():
    assert insertion_points(0) == [0]
    assert insertion_points(1) == [0, 1]
    assert insertion_points(8) == [0, 4, 6, 7, 8]
    assert insertion_points(8, append=False) == [0, 4, 6, 7]
    assert insertion_points(100)[:4] == [0, 50, 75, 88] and len(insertion_points(100)) == 8


def test_heuristic_orders():
    a = rigid(1, 1, 4.0, deadline=10.0)  # laxity 6
    b = rigid(2, 1, 1.0, deadline=8.0)  # laxity 7
    c = rigid(3, 1, 1.0)  # no deadline: last
    assert sorted([c, a, b], key=heuristic("edf")) == [b, a, c]
    assert sorted([c, a, b], key=heuristic("llf")) == [a, b, c]
    with pytest.raises(ValueError):
        heuristic("fifo")


# Pool of 4, empty at 0. Queue (admitted, in order): J1 (3 procs, 1 h, deadline 4),
# J2 (2, 3 h, deadline 5). Current schedule: J1 [0,1); J2 [1,4) (1 free beside J1).
# New: J3 (2, 2 h, deadline 3).
J1, J2, J3 = rigid(1, 3, 1, deadline=4), rigid(2, 2, 3, deadline=5), rigid(3, 2, 2, deadline=3)


def test_qops_reorders_after_a_violation():
    # Point 0: J3 first [0,2), then EDF: J1 [2,3), J2 [3,6) misses 5 -> violation at T = 2:
    # J2 moves up to mid(0, 2) = 1: J3 [0,2), J2 [0,3), J1 [3,4). Every deadline met.
    d = decide(QoPS(), J3, [J1, J2])
    assert (d.accepted, d.reason) == (True, "meets-deadlines")
    assert d.queue_order == (3, 2, 1)
    assert (d.processors, d.start, d.end) == (2, 0.0, 2.0)
    assert "position 0 of 2 waiting jobs after 1 reordering" in d.detail


def test_qops_with_k_0_moves_on_to_the_next_insertion_point():
    # Point 0 fails at its first violation; point 1 keeps J1 [0,1), then J3 [1,3), J2 [1,4).
    d = decide(QoPS(k=0), J3, [J1, J2])
    assert d.accepted and d.queue_order == (1, 3, 2)
    assert (d.start, d.end) == (1.0, 3.0)
    assert "position 1 of 2" in d.detail and "reordering" not in d.detail


def test_qops_new_job_sorted_in():
    # "sorted": point 0 is plain EDF: J3, J1, J2 -> J2 misses, one reordering as above.
    d = decide(QoPS(new_job="sorted"), J3, [J1, J2])
    assert d.accepted and d.queue_order == (3, 2, 1)


def test_qops_rejects_when_no_schedule_meets_every_deadline():
    # A (4 procs, 2 h, deadline 2) must run [0,2); C (4, 1 h, deadline 2.5) would end at 3
    # after it, and before it A would end at 3: impossible.
    a, b = rigid(1, 4, 2, deadline=2), rigid(2, 4, 2, deadline=4)
    c = rigid(3, 4, 1, deadline=2.5)
    d = decide(QoPS(), c, [a, b])
    assert (d.accepted, d.reason, d.queue_order) == (False, "deadline-miss", None)
    assert "3 insertion point(s)" in d.detail


def test_a_job_that_cannot_make_its_deadline_alone_is_rejected_at_once():
    # Running: 4 processors until 1. Even alone the job starts at 1 and ends at 2 > 1.5.
    ctx = ctx_for(4, running=[(1.0, 4)])
    for policy in (QoPS(), MSB(), MRT()):
        d = decide(policy, rigid(1, 2, 1, deadline=1.5), [], ctx)
        assert (d.accepted, d.reason) == (False, "deadline-miss")
        assert "even at its earliest start (1 h) it would end at 2 h" in d.detail


def test_a_job_wider_than_the_pool_does_not_fit():
    for policy in (QoPS(), MSB(), MRT()):
        d = decide(policy, rigid(1, 8, 1, deadline=100), [])
        assert (d.accepted, d.reason) == (False, "no-fit")


def test_jobs_without_deadlines_are_never_missed():
    # E has no deadline: F (deadline 1) may push it back. G has no deadline and goes last.
    e, f = rigid(1, 4, 2), rigid(2, 4, 1, deadline=1)
    for policy in (QoPS(), MSB(), MRT()):
        d = decide(policy, f, [e])
        assert d.accepted and d.queue_order == (2, 1) and d.end == 1.0, policy.name
    a, g = rigid(1, 4, 2, deadline=2), rigid(2, 4, 5)
    for policy in (QoPS(), MSB(), MRT()):
        d = decide(policy, g, [a])
        assert d.accepted and d.queue_order == (1, 2) and d.start == 2.0, policy.name


def test_msb_takes_the_cheapest_feasible_position():
    # Order by planned start: J1 (0), J2 (1). Position 0: J3 [0,2), J1 [2,3), J2 [3,6) misses.
    # Position 1: J1 [0,1), J3 [1,3), J2 [1,4): completions 1 + 3 + 4 = 8.
    # Position 2: J1 [0,1), J2 [1,4), J3 [1,3): also 8; the tie goes to the earlier position.
    d = decide(MSB(), J3, [J1, J2])
    assert (d.accepted, d.reason, d.queue_order) == (True, "meets-deadlines", (1, 3, 2))
    assert (d.start, d.end) == (1.0, 3.0) and "completion 8 h" in d.detail


def test_msb_prefers_the_front_when_it_is_cheaper():
    # A [0,2), B [2,4) (deadlines 10); C (4, 1 h): front 1+3+5 = 9 < 10 < 11.
    a, b, c = rigid(1, 4, 2, deadline=10), rigid(2, 4, 2, deadline=10), rigid(3, 4, 1, deadline=10)
    d = decide(MSB(), c, [a, b])
    assert d.queue_order == (3, 1, 2) and d.start == 0.0


def test_msb_rejects_when_every_position_misses():
    a, b = rigid(1, 4, 2, deadline=2), rigid(2, 4, 2, deadline=4)
    d = decide(MSB(), rigid(3, 4, 1, deadline=2.5), [a, b])
    assert (d.accepted, d.reason) == (False, "deadline-miss")
    assert "each of the 3 positions" in d.detail


def test_mrt_backtracks_out_of_edf():
    # EDF: J3 [0,2) is strongly feasible (J1 could go [2,3), J2 [0,3)); then J1 [2,3) is not:
    # J2 would go [3,6), after 5. Backtrack; J2 [0,3) instead, then J1 [3,4).
    d = decide(MRT(), J3, [J1, J2])
    assert (d.accepted, d.queue_order) == (True, (3, 2, 1))
    assert "1 backtrack" in d.detail
    d = decide(MRT(max_backtracks=0), J3, [J1, J2])
    assert (d.accepted, d.reason) == (False, "deadline-miss")
    assert "within 0 backtrack(s)" in d.detail


def test_a_late_waiting_job_is_not_a_violation():
    # Pool of 4. L (4 procs, 2 h, deadline 1) already ends at 2 in the current schedule (its
    # estimate was wrong, say). New J (4, 1 h, deadline 3) first: J [0,1), L [1,3): L's lateness
    # is not a violation, so no reordering (which would give L [0,2), J [2,3)).
    late, j = rigid(1, 4, 2, deadline=1), rigid(2, 4, 1, deadline=3)
    d = decide(QoPS(), j, [late])
    assert d.accepted and d.queue_order == (2, 1) and (d.start, d.end) == (0.0, 1.0)
    assert "reordering" not in d.detail
    # MSB: position 0 costs 1 + 3 < position 1's 2 + 3. MRT: EDF puts L first, then J [2,3).
    assert decide(MSB(), j, [late]).queue_order == (2, 1)
    assert decide(MRT(), j, [late]).queue_order == (1, 2)


def conservative_plan_agrees(d, job, queue, ctx):
    """Whether the accepted decision ``d`` is the conservative plan of its order: the new job
    planned where the decision says, every other job meeting its deadline (unless it was late
    already in the queue's own plan)."""
    by_id = {j.id: j for j in [*queue, job]}
    plan = SCHEDULER.plan(ctx, [by_id[i] for i in d.queue_order])
    before = {p.job.id: p.end for p in SCHEDULER.plan(ctx, queue).placements}
    mine = plan.placement_of(job.id)
    ok = (mine.processors, mine.start, mine.end) == (d.processors, d.start, d.end)
    for p in plan.placements:
        dl = p.job.deadline
        late_before = p.job.id in before and dl is not None and before[p.job.id] > dl + 1e-9
        ok &= dl is None or late_before or p.end <= dl + 1e-9
    return ok and not plan.unplaced


@pytest.mark.parametrize(
    "policy", [QoPS(), QoPS(k=0), MSB(), MRT()], ids=["qops", "k0", "msb", "mrt"]
)
def test_the_decision_is_the_conservative_plan_of_its_order(policy):
    # The schedule a policy accepts is the conservative scheduler's plan of the queue in the
    # decision's order, so the service provider runs it by keeping the queue in that order.
    d = decide(policy, J3, [J1, J2])
    assert d.accepted and conservative_plan_agrees(d, J3, [J1, J2], ctx_for(4))


def test_policies_are_registered_with_parameters():
    assert isinstance(make_admission("qops", k=3, order="llf"), QoPS)
    assert isinstance(make_admission("msb", cost="makespan"), MSB)
    assert isinstance(make_admission("mrt", max_backtracks=4), MRT)
    with pytest.raises(ValueError, match="k must be"):
        make_admission("qops", k=-1)


# -- the guarantee --------------------------------------------------------------------------------
SIZES = st.sampled_from([1, 2, 4, 8])
HALVES = st.integers(1, 8).map(lambda k: k / 2)
job_specs = st.lists(
    st.tuples(
        st.integers(0, 16).map(lambda k: k / 2),  # arrival
        SIZES,
        HALVES,  # runtime
        st.sampled_from([1.0, 1.0, 1.5, 2.0]),  # estimate / runtime
        st.one_of(st.none(), st.integers(0, 16).map(lambda k: k / 2)),  # slack (None: no deadline)
    ),
    min_size=1,
    max_size=20,
)


def stream(specs):
    jobs = []
    for i, (arrival, n, runtime, over, slack) in enumerate(specs):
        estimate = runtime * over
        deadline = None if slack is None else arrival + estimate + slack
        jobs.append(rigid(i, n, runtime, arrival=arrival, estimate=estimate, deadline=deadline))
    return jobs


POLICIES = pytest.mark.parametrize(
    "policy", [QoPS(), QoPS(k=0, order="llf", new_job="sorted"), MSB(), MRT(), MRT(order="llf")],
    ids=["qops", "qops-k0-llf-sorted", "msb", "mrt", "mrt-llf"],
)  # fmt: skip


def check_guarantee(result, policy) -> None:
    for o in result.values():
        if o.decision.accepted:
            assert o.start is not None, f"job {o.job.id} admitted but never run"
            if o.job.deadline is not None:
                assert o.end <= o.job.deadline + 1e-9, (o.job, o.decision)
        else:
            assert o.start is None
            assert o.decision.reason in ("deadline-miss", "no-fit")
    # Jobs without a deadline fit the pool of 8 and are always admitted (at the end of the
    # order), except by MRT: its rebuild can run out of backtracks on the queued jobs alone.
    if not isinstance(policy, MRT):
        assert all(o.decision.accepted for o in result.values() if o.job.deadline is None)


@POLICIES
@settings(max_examples=80, deadline=None)
@given(specs=job_specs)
def test_admitted_deadlines_are_met_with_exact_estimates(policy, specs):
    jobs = stream([(a, n, r, 1.0, slack) for a, n, r, _, slack in specs])
    check_guarantee(replay(jobs, 8, SCHEDULER, policy), policy)


@POLICIES
@settings(max_examples=80, deadline=None)
@given(specs=job_specs)
def test_with_longer_estimates_deadlines_hold_if_the_queue_is_compressed(policy, specs):
    # Jobs end early; re-sorting the queue by planned start after every re-plan (the
    # compression of conservative backfilling) keeps every admitted deadline.
    check_guarantee(replay(stream(specs), 8, SCHEDULER, policy, compress=True), policy)


def test_without_compression_an_early_end_can_cost_a_deadline():
    # Pool 8, all at time 0, in this order:
    #   1: 4 procs, estimate 4 h (deadline 4), really ends after 1 h;  2: 4 procs, 2 h (dl 2)
    #   3: 4 procs, 2 h (deadline 4): admitted behind them, planned [2,4)
    #   4: 8 procs, 2 h, no deadline: with k=0 QoPS keeps 3 behind it in the queue
    #      (order 2, 1, 4, 3), planned [4,6) while 3 backfills [2,4) ahead of it.
    # At 1 job 1 ends: re-planned in that order, 4 moves to [2,4) and 3 to [4,6): late.
    # Compressed (3 before 4, by their planned starts 2 and 4): 3 runs [1,3), 4 [3,5).
    jobs = [rigid(1, 4, 1, estimate=4, deadline=4), rigid(2, 4, 2, deadline=2),
            rigid(3, 4, 2, deadline=4), rigid(4, 8, 2)]  # fmt: skip
    result = replay(jobs, 8, SCHEDULER, QoPS(k=0))
    assert result[4].decision.queue_order == (2, 1, 4, 3)
    assert (result[3].start, result[3].end) == (4.0, 6.0)  # deadline 4 missed
    compressed = replay(jobs, 8, SCHEDULER, QoPS(k=0), compress=True)
    assert (compressed[3].start, compressed[3].end) == (1.0, 3.0)
    assert (compressed[4].start, compressed[4].end) == (3.0, 5.0)


# -- MSB against brute force ------------------------------------------------------------------
def msb_by_brute_force(job, queue, ctx):
    """Figure 1 without shortcuts: the order of the cheapest schedule (sum of completions) with
    the new job at one position of the current schedule's start order, or None."""

    def ends_of(order):
        profile, ends = ctx.capacity.copy(), {}
        for j in order:
            n, runtime = j.max_shape, j.predicted_runtime(j.max_shape)
            start = profile.earliest_start(n, runtime, ctx.now)
            if start < math.inf:
                profile.reserve(start, runtime, n)
            ends[j.id] = start + runtime
        return ends

    def misses(j, end):
        return j.deadline is not None and end > j.deadline + 1e-9

    current = ends_of(queue)
    late = {j.id for j in queue if misses(j, current[j.id])}
    starts = {j.id: current[j.id] - j.predicted_runtime(j.max_shape) for j in queue}
    arranged = sorted(queue, key=lambda j: starts[j.id])
    best = None
    for ts in range(len(arranged) + 1):
        order = [*arranged[:ts], job, *arranged[ts:]]
        ends = ends_of(order)
        if not any(misses(j, ends[j.id]) and j.id not in late for j in order):
            cost = math.fsum(end for end in ends.values() if end < math.inf)
            if best is None or cost < best[0]:
                best = (cost, tuple(j.id for j in order))
    return None if best is None else best[1]


QUEUES = st.tuples(
    st.lists(
        st.tuples(SIZES, HALVES, st.one_of(st.none(), st.integers(0, 24).map(lambda k: k / 2))),
        min_size=1,
        max_size=12,
    ),
    st.lists(st.tuples(HALVES, SIZES), max_size=3).filter(lambda r: sum(n for _, n in r) <= 8),
)


def offer(specs, running):
    """The last spec is the new job (a deadline is runtime + slack), the others the queue, on
    a pool of 8 with ``running`` jobs."""
    jobs = [
        rigid(i, n, r, deadline=None if slack is None else r + slack)
        for i, (n, r, slack) in enumerate(specs)
    ]
    return jobs[-1], jobs[:-1], ctx_for(8, running=running)


@settings(max_examples=150, deadline=None)
@given(QUEUES)
def test_msb_matches_brute_force(queue_and_running):
    job, queue, ctx = offer(*queue_and_running)
    assert MSB().decide(job, queue, ctx, SCHEDULER).queue_order == msb_by_brute_force(
        job, queue, ctx
    )


@POLICIES
@settings(max_examples=60, deadline=None)
@given(QUEUES)
def test_an_admitted_schedule_is_the_conservative_plan_of_its_order(policy, queue_and_running):
    # On the queue as given and on the queue compressed (in order of planned start).
    job, queue, ctx = offer(*queue_and_running)
    planned = {p.job.id: p.start for p in SCHEDULER.plan(ctx, queue).placements}
    for waiting in (queue, sorted(queue, key=lambda j: planned.get(j.id, math.inf))):
        d = policy.decide(job, waiting, ctx, SCHEDULER)
        if d.accepted:
            assert conservative_plan_agrees(d, job, waiting, ctx)
