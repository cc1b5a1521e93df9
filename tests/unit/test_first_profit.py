"""FirstProfit and PositiveOpportunity (Popovici & Wilkes SC'05 §3.3-3.4) on hand-made cases."""

from __future__ import annotations

import pytest

from agents.policies import make_admission, make_scheduler
from tests.conftest import make_ctx, make_job

AMDAHL = dict(shapes=(1, 2, 3, 4, 5), serial_fraction=0.2)
# work 10, beta 0.2: runtime(n) = 10 * (0.2 + 0.8 / n) = 10, 6, 4.667, 4, 3.6 for n = 1..5


def test_cheap_processors_and_steep_decay_take_more_processors():
    # price 0.1, value 100 decaying 10/h: profit(n) = 100 - 10 rt - 0.1 n rt
    #   n=1: -1, n=2: 38.8, n=3: 51.93, n=4: 58.4, n=5: 62.2  -> 5 processors
    job = make_job(0, 10, 100, 10, **AMDAHL)
    shape, priority = make_scheduler("first_profit").rank(job, make_ctx(10, 0.1))
    assert shape == 5
    assert -priority == pytest.approx(62.2)


def test_expensive_processors_and_shallow_decay_take_fewer():
    # price 5, value 100 decaying 1/h: profit(n) = 100 - rt - 5 n rt, n rt = 10, 12, 14, 16, 18
    #   n=1: 40, n=2: 34, ...  -> 1 processor
    job = make_job(0, 10, 100, 1, **AMDAHL)
    shape, priority = make_scheduler("first_profit").rank(job, make_ctx(10, 5.0))
    assert shape == 1
    assert -priority == pytest.approx(40.0)


def test_jobs_are_ordered_by_profit_and_placed_on_the_profile():
    # One processor at price 1; profits: a = 10 - 2 = 8, b = 30 - 1 = 29, c = 20 - 3 = 17.
    a, b, c = make_job(0, 2, 10), make_job(1, 1, 30), make_job(2, 3, 20)
    plan = make_scheduler("first_profit").plan(make_ctx(1, 1.0), [a, b, c])
    assert [p.job.id for p in plan.placements] == [1, 2, 0]
    assert [(p.start, p.end) for p in plan.placements] == [(0, 1), (1, 4), (4, 6)]
    assert plan.profit == pytest.approx(8 + 29 + 17)


def test_a_later_job_fills_a_gap_before_an_earlier_one():
    # Two processors; the top job needs both but only one is free until t=5. A 1-processor job
    # ranked after it fits in the gap instead of waiting behind it.
    ctx = make_ctx(2, 0.0)
    ctx.capacity.reserve(0, 5, 1)
    wide = make_job(0, 4, 100, shapes=(2,))
    small = make_job(1, 3, 10)
    plan = make_scheduler("first_profit").plan(ctx, [wide, small])
    starts = {p.job.id: p.start for p in plan.placements}
    assert starts == {0: 5, 1: 0}


def test_positive_opportunity_admits_a_profitable_job():
    admission, scheduler = make_admission("positive_opportunity"), make_scheduler("first_profit")
    job = make_job(0, 10, 100, 1, **AMDAHL)
    decision = admission.decide(job, [], make_ctx(10, 5.0), scheduler)
    assert decision.accepted and decision.reason == "profitable"
    assert decision.processors == 1
    assert decision.expected_profit == pytest.approx(40.0)
    assert decision.gain == pytest.approx(40.0)
    assert (decision.start, decision.end) == (0, 10)


def test_positive_opportunity_rejects_a_job_whose_best_profit_is_negative():
    # value 10 for 10 processor-hours at 3 per processor-hour: -20 on one processor, worse wider
    admission, scheduler = make_admission("positive_opportunity"), make_scheduler("first_profit")
    job = make_job(0, 10, 10, shapes=(1, 2))
    decision = admission.decide(job, [], make_ctx(10, 3.0), scheduler)
    assert not decision.accepted
    assert decision.reason == "unprofitable"
    assert decision.expected_profit == pytest.approx(-20.0)


def test_positive_opportunity_rejects_a_job_that_delays_accepted_work_at_a_loss():
    # One processor at price 1. Accepted job A: 1 h, value 100 decaying 60/h -> alone it earns
    # 100 - 60 - 1 = 39. New job B: 1 h, value 50, no decay -> 49, so FirstProfit would run it
    # first, pushing A to end at t=2 where it is worth 100 - 120 = -20 (rent 1: -21).
    # With B: 49 - 21 = 28 < 39 without: B earns money itself but loses more than it brings.
    a = make_job(0, 1, 100, 60)
    b = make_job(1, 1, 50)
    admission, scheduler = make_admission("positive_opportunity"), make_scheduler("first_profit")
    decision = admission.decide(b, [a], make_ctx(1, 1.0), scheduler)
    assert not decision.accepted
    assert decision.reason == "displaces"
    assert decision.expected_profit == pytest.approx(49.0)
    assert decision.gain == pytest.approx(28.0 - 39.0)


def test_positive_opportunity_rejects_a_job_wider_than_the_pool():
    decision = make_admission("positive_opportunity").decide(
        make_job(0, 1, 100, shapes=(4, 8)), [], make_ctx(2, 0.0), make_scheduler("first_profit")
    )
    assert not decision.accepted and decision.reason == "no-fit"


def test_accept_all_admits_even_a_losing_job_but_not_one_that_cannot_fit():
    admission, scheduler = make_admission("accept_all"), make_scheduler("first_profit")
    losing = admission.decide(make_job(0, 10, 10), [], make_ctx(1, 3.0), scheduler)
    assert losing.accepted and losing.expected_profit == pytest.approx(-20.0)
    too_wide = admission.decide(make_job(1, 1, 10, shapes=(2,)), [], make_ctx(1, 3.0), scheduler)
    assert not too_wide.accepted


def test_unknown_policies_and_parameters_are_named_in_the_error():
    with pytest.raises(ValueError, match="unknown scheduler 'nope'"):
        make_scheduler("nope")
    with pytest.raises(ValueError, match="has no parameter 'alpha'"):
        make_scheduler("first_profit", alpha=1)


def test_accept_all_admits_a_job_that_must_wait_under_easy():
    # EASY plans only the jobs starting now and the head's reservation: a job that waits behind
    # the head has no placement, but it fits the pool, so accept_all admits it.
    ctx = make_ctx(2, 0.0)
    ctx.capacity.reserve(0, 5, 2)
    head = make_job(0, 2, 10, shapes=(2,))
    waiting = make_job(1, 2, 10, shapes=(2,))
    decision = make_admission("accept_all").decide(waiting, [head], ctx, make_scheduler("easy"))
    assert decision.accepted and decision.start is None
