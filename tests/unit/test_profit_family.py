"""The profit paper's scheduler family (Popovici & Wilkes SC'05 §3.3) and their admission rewards
(§3.4) on hand-made queues: LJF, SJF, FirstPrice, FirstReward, FirstOpportunity(Rate).

Every expected number is worked out by hand in the comment above it. Jobs decay from their
arrival (the profit paper's utility functions).
"""

from __future__ import annotations

import pytest

from agents.policies import SCHEDULERS, make_admission, make_scheduler
from agents.policies.profit import DelayCost
from tests.conftest import make_ctx, make_job

MOLDABLE = dict(shapes=(1, 2, 4), serial_fraction=0.2)
# runtime(n) = work * (0.2 + 0.8 / n) = work * (1, 0.6, 0.4) for n = 1, 2, 4

ALL = [
    "ljf",
    "sjf",
    "first_price",
    "first_reward",
    "first_profit",
    "first_opportunity",
    "first_opportunity_rate",
]


def ids(plan):
    return [p.job.id for p in plan.placements]


def test_every_scheduler_of_the_family_is_registered():
    assert set(ALL) <= set(SCHEDULERS)


# -- LJF and SJF ------------------------------------------------------------------------------


def three_jobs():
    # works 2, 5, 3; constant values, so only the runtimes matter
    return [make_job(i, w, 100, **MOLDABLE) for i, w in enumerate((2, 5, 3))]


def test_ljf_runs_the_longest_first_on_one_processor():
    # one processor each; runtimes 2, 5, 3 -> order 1 (5 h), 2 (3 h), 0 (2 h), back to back
    plan = make_scheduler("ljf").plan(make_ctx(1, 1.0), three_jobs())
    assert ids(plan) == [1, 2, 0]
    assert [p.processors for p in plan.placements] == [1, 1, 1]
    assert [(p.start, p.end) for p in plan.placements] == [(0, 5), (5, 8), (8, 10)]


def test_sjf_runs_the_shortest_first_on_its_widest_shape():
    # 4 processors each: runtimes 0.4 * (2, 5, 3) = 0.8, 2.0, 1.2 -> order 0, 2, 1, back to back
    plan = make_scheduler("sjf").plan(make_ctx(4, 1.0), three_jobs())
    assert ids(plan) == [0, 2, 1]
    assert [p.processors for p in plan.placements] == [4, 4, 4]
    assert [p.start for p in plan.placements] == pytest.approx([0, 0.8, 2.0])
    assert plan.end == pytest.approx(4.0)


def test_ljf_and_sjf_rank_a_pinned_shape_by_its_runtime():
    job = make_job(0, 10, 100, **MOLDABLE)
    assert make_scheduler("ljf").rank(job, make_ctx(4, 1.0), 2) == (2, pytest.approx(-6.0))
    assert make_scheduler("sjf").rank(job, make_ctx(4, 1.0), 2) == (2, pytest.approx(6.0))


# -- FirstPrice -------------------------------------------------------------------------------


def test_first_price_takes_the_best_value_rate_shape_and_ignores_rent():
    # Rent is 100 per processor-hour and makes no difference.
    # a: work 10, value 100 decaying 1/h. runtimes 10, 6, 4 -> values 90, 94, 96
    #    -> rates 9, 15.67, 24: shape 4, rate 24
    # b: work 2, value 20 constant. runtimes 2, 1.2, 0.8 -> rates 10, 16.67, 25: shape 4, rate 25
    # c: work 2, value 10 decaying 100/h to -48 (at t=0.58): -48 whatever the shape,
    #    rates -24, -40, -60: shape 1 (the formula prefers the longest run of a loss), rate -24
    # Order b, a, c on 4 processors: b [0, 0.8), a [0.8, 4.8), c [4.8, 6.8).
    a = make_job(0, 10, 100, 1, bound=-48, **MOLDABLE)
    b = make_job(1, 2, 20, **MOLDABLE)
    c = make_job(2, 2, 10, 100, bound=-48, **MOLDABLE)
    scheduler, ctx = make_scheduler("first_price"), make_ctx(4, 100.0)
    assert scheduler.rank(a, ctx) == (4, pytest.approx(-24))
    assert scheduler.rank(b, ctx) == (4, pytest.approx(-25))
    assert scheduler.rank(c, ctx) == (1, pytest.approx(24))
    plan = scheduler.plan(ctx, [a, b, c])
    assert ids(plan) == [1, 0, 2]
    assert [p.start for p in plan.placements] == pytest.approx([0, 0.8, 4.8])
    # Reward, the value rate: b 20 / 0.8 + a (100 - 4.8) / 4 + c -48 / 2 = 25 + 23.8 - 24
    assert scheduler.reward(plan, ctx) == pytest.approx(24.8)


# -- FirstReward ------------------------------------------------------------------------------


def queue_at_ten():
    # now = 10, one processor each (runtime = work):
    # a: work 2, value 60 decaying 5/h from t=10 to -48 at t=31.6 -> h = 21.6, decay 5
    # b: work 4, value 30 decaying 20/h from t=10 to -48 at t=13.9 -> h = 3.9, decay 20
    # c: work 1, decaying from t=0, already at -48 since t=5.8 -> h = 0 (costs nothing)
    a = make_job(0, 2, 60, 5, arrival=10, bound=-48)
    b = make_job(1, 4, 30, 20, arrival=10, bound=-48)
    c = make_job(2, 1, 10, 10, arrival=0, bound=-48)
    return a, b, c


def test_first_reward_cost_is_the_decay_it_causes_the_other_jobs():
    a, b, c = queue_at_ten()
    cost = DelayCost([a, b, c], now=10)
    # a for 2 h: b loses 20 * min(2, 3.9) = 40, c nothing              -> 40
    assert cost(a, 2) == pytest.approx(40)
    # a for 5 h: b hits its bound after 3.9 h: 20 * 3.9 = 78             -> 78
    assert cost(a, 5) == pytest.approx(78)
    # b for 4 h: a loses 5 * min(4, 21.6) = 20                           -> 20
    assert cost(b, 4) == pytest.approx(20)
    # c for 1 h: a 5 * 1 + b 20 * 1                                      -> 25
    assert cost(c, 1) == pytest.approx(25)


def test_first_reward_orders_by_reward():
    # reward = (0.3 * yield / (1 + 0.01 * RPT) - 0.7 * cost) / RPT, yield at now + RPT:
    # a: yield 60 - 5 * 2 = 50          -> (0.3 * 50 / 1.02 - 0.7 * 40) / 2 = -6.647
    # b: yield -48 (bound at 13.9 < 14) -> (0.3 * -48 / 1.04 - 0.7 * 20) / 4 = -6.962
    # c: yield -48                      -> (0.3 * -48 / 1.01 - 0.7 * 25) / 1 = -31.757
    # Order a, b, c back to back from t=10.
    a, b, c = queue_at_ten()
    scheduler, ctx = make_scheduler("first_reward"), make_ctx(1, 1.0, now=10)
    cost = DelayCost([a, b, c], now=10)
    assert scheduler.rank(a, ctx, cost) == (1, pytest.approx(-(0.3 * 50 / 1.02 - 28) / 2))
    assert scheduler.rank(b, ctx, cost) == (1, pytest.approx(-(0.3 * -48 / 1.04 - 14) / 4))
    assert scheduler.rank(c, ctx, cost) == (1, pytest.approx(-(0.3 * -48 / 1.01 - 17.5)))
    plan = scheduler.plan(ctx, [c, b, a])
    assert ids(plan) == [0, 1, 2]
    assert [(p.start, p.end) for p in plan.placements] == [(10, 12), (12, 16), (16, 17)]


def test_first_reward_cost_term_changes_the_shape():
    # i: work 10 on shapes 1 or 4 (runtime 10 or 4), value 100 decaying 1/h (yield 90 or 96).
    # j: 1 h on 1 processor, value 2 decaying 100/h: it hits its bound -48 at t=0.5.
    # Alone, i prefers the wide shape:  n=1: 0.3 * 90 / 1.1 / 10 = 2.455
    #                                   n=4: 0.3 * 96 / 1.04 / 4 = 6.923
    # With j queued, i costs 100 * min(RPT, 0.5) = 50 on either shape, which weighs less per
    # hour on the long shape:           n=1: (24.545 - 35) / 10 = -1.045
    #                                   n=4: (27.692 - 35) / 4  = -1.827  -> 1 processor
    # j: yield -48, cost on i 1 * 1 (i decays 1/h for 148 h) -> (0.3 * -48 / 1.01 - 0.7) = -14.957
    i = make_job(0, 10, 100, 1, bound=-48, shapes=(1, 4), serial_fraction=0.2)
    j = make_job(1, 1, 2, 100, bound=-48)
    scheduler, ctx = make_scheduler("first_reward"), make_ctx(4, 1.0)
    alone = scheduler.plan(ctx, [i])
    assert alone.placements[0].processors == 4
    plan = scheduler.plan(ctx, [j, i])
    assert ids(plan) == [0, 1]
    assert [(p.processors, p.start) for p in plan.placements] == [(1, 0), (1, 0)]
    # Admission reward: the same reward_i with the planned values (90 at t=10, -48 at t=1)
    assert scheduler.reward(plan, ctx) == pytest.approx(
        (0.3 * 90 / 1.1 - 35) / 10 + (0.3 * -48 / 1.01 - 0.7)
    )


def test_first_reward_parameters():
    scheduler = make_scheduler("first_reward", alpha=1.0, discount_rate=0.0)
    # alpha 1, no discount: reward = yield / RPT, FirstPrice's rate
    job = make_job(0, 10, 100, 1, **MOLDABLE)
    assert scheduler.plan(make_ctx(4, 1.0), [job]).placements[0].processors == 4
    with pytest.raises(ValueError, match="alpha"):
        make_scheduler("first_reward", alpha=1.5)


# -- FirstOpportunity -------------------------------------------------------------------------


def greedy_trap():
    # 4 processors at price 1. Best standalone shapes (profit = value at runtime - rent):
    # long: work 20, value 200 decaying 3/h. runtimes 20, 12, 8: 140-20, 164-24, 176-32
    #       = 120, 140, 144 -> 4 processors, profit 144
    # steep: work 1, value 60 decaying 20/h to -48 (at t=5.4). runtimes 1, 0.6, 0.4:
    #       40-1, 48-1.2, 52-1.6 = 39, 46.8, 50.4 -> 4 processors, profit 50.4
    long = make_job(0, 20, 200, 3, bound=-48, **MOLDABLE)
    steep = make_job(1, 1, 60, 20, bound=-48, **MOLDABLE)
    return long, steep


def test_first_profit_greedy_order_loses_money_first_opportunity_does_not():
    # FirstProfit: long [0, 8) earns 144; steep [8, 8.4) is worth -48, rent 1.6: -49.6.
    #   Total 94.4.
    # FirstOpportunity tries steep first: steep [0, 0.4) 50.4; long [0.4, 8.4) is worth
    #   200 - 3 * 8.4 = 174.8, rent 32: 142.8. Total 193.2.
    long, steep = greedy_trap()
    ctx = make_ctx(4, 1.0)
    greedy = make_scheduler("first_profit").plan(ctx, [long, steep])
    assert ids(greedy) == [0, 1]
    assert greedy.profit == pytest.approx(94.4)
    assert min(p.profit for p in greedy.placements) < 0
    plan = make_scheduler("first_opportunity").plan(ctx, [long, steep])
    assert ids(plan) == [1, 0]
    assert [(p.processors, p.start) for p in plan.placements] == [(4, 0), (4, pytest.approx(0.4))]
    assert plan.profit == pytest.approx(193.2)
    assert plan.profit > greedy.profit
    assert all(p.profit > 0 for p in plan.placements)


def test_first_opportunity_respects_a_pinned_shape():
    # steep pinned to 1 processor (runtime 1, profit 39). FirstProfit's order: long [0, 8) 144,
    # steep [8, 9) -48 - 1 = -49: 95. Steep first: 39, then long [1, 9) 200 - 27 - 32 = 141: 180.
    long, steep = greedy_trap()
    plan = make_scheduler("first_opportunity").plan(make_ctx(4, 1.0), [long, steep], {1: 1})
    assert ids(plan) == [1, 0]
    assert [p.processors for p in plan.placements] == [1, 4]
    assert plan.profit == pytest.approx(39 + 141)


def rate_trap():
    # 2 processors at price 1, no serial part. Standalone profits (value - decay * rt - rent):
    # a: 1 processor, 4 h, value 100 decaying 1/h -> 92
    # b: 1 processor, 1 h, value 100 decaying 5/h -> 94
    # c: 2 processors, 1 h, value 100 decaying 2/h -> 96;  FirstProfit order c, b, a.
    # Rent is 7 in every plan (7 processor-hours). Each job tried first, the rest as c, b, a:
    #   c first (FirstProfit's plan): c [0,1) 98, b [1,2) 90, a [1,5) 95 -> 276, ends 5: 55.2/h
    #   b first: b [0,1) 95, c [1,2) 96, a [2,6) 94                         -> 278, ends 6: 46.3/h
    #   a first: a [0,4) 96, b [0,1) 95, c [4,5) 90                         -> 274, ends 5: 54.8/h
    a = make_job(0, 4, 100, 1)
    b = make_job(1, 1, 100, 5)
    c = make_job(2, 2, 100, 2, shapes=(2,))
    return [a, b, c]


def test_first_opportunity_picks_the_most_profitable_first_job():
    ctx = make_ctx(2, 1.0)
    plan = make_scheduler("first_opportunity").plan(ctx, rate_trap())
    assert plan.placements[0].job.id == 1
    assert plan.profit == pytest.approx(278)
    assert plan.end == pytest.approx(6)
    assert make_scheduler("first_profit").plan(ctx, rate_trap()).profit == pytest.approx(276)


def test_first_opportunity_rate_picks_the_faster_plan():
    ctx = make_ctx(2, 1.0)
    scheduler = make_scheduler("first_opportunity_rate")
    plan = scheduler.plan(ctx, rate_trap())
    assert plan.placements[0].job.id == 2
    assert plan.profit == pytest.approx(276)
    assert plan.end == pytest.approx(5)
    assert scheduler.reward(plan, ctx) == pytest.approx(55.2)


def test_first_opportunity_rate_rewards_an_empty_plan_with_zero():
    scheduler, ctx = make_scheduler("first_opportunity_rate"), make_ctx(2, 1.0)
    assert scheduler.reward(scheduler.plan(ctx, []), ctx) == 0.0


# -- PositiveOpportunity with each scheduler ----------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_positive_opportunity_admits_a_profitable_job_into_an_empty_queue(name):
    # work 1, value 100 decaying 1/h, price 1: at least 100 - 1 - 1 = 98 on any shape
    job = make_job(0, 1, 100, 1, bound=-48, **MOLDABLE)
    decision = make_admission("positive_opportunity").decide(
        job, [], make_ctx(4, 1.0), make_scheduler(name)
    )
    assert decision.accepted and decision.reason == "profitable"
    assert decision.start == 0 and decision.expected_profit > 90


@pytest.mark.parametrize("name", ALL)
def test_positive_opportunity_rejects_a_job_worth_far_less_than_its_rent(name):
    # work 10, value 5 decaying 100/h: at -48 from t=0.53, before any shape ends (runtime >= 4);
    # rent >= 10. Every reward metric is negative (profit, value rate, reward_i).
    job = make_job(0, 10, 5, 100, bound=-48, **MOLDABLE)
    decision = make_admission("positive_opportunity").decide(
        job, [], make_ctx(4, 1.0), make_scheduler(name)
    )
    assert not decision.accepted and decision.reason == "unprofitable"


@pytest.mark.parametrize(
    ("name", "accepted"),
    [
        ("ljf", False),
        ("sjf", False),
        ("first_profit", False),
        ("first_opportunity", False),
        ("first_opportunity_rate", False),
        ("first_price", True),
        ("first_reward", True),
    ],
)
def test_only_cost_oblivious_schedulers_admit_a_job_worth_less_than_its_rent(name, accepted):
    # value 5, no decay, 10 processor-hours or more at price 1: a loss of at least 5, but a
    # positive value. FirstPrice and FirstReward ignore rent, so they admit it (§5.1: they
    # "accept more jobs at low load, even if they are not profitable").
    job = make_job(0, 10, 5, **MOLDABLE)
    decision = make_admission("positive_opportunity").decide(
        job, [], make_ctx(4, 1.0), make_scheduler(name)
    )
    assert decision.accepted is accepted
    assert decision.expected_profit < 0


def test_positive_opportunity_with_first_opportunity_admits_what_first_profit_rejects():
    # Queue: long (earns 144 alone). Offered: steep. FirstProfit would run long first whatever
    # steep's shape, so steep ends past its bound and loses money: rejected. FirstOpportunity
    # runs steep first on 4 processors: 193.2 > 144, admitted.
    long, steep = greedy_trap()
    admission, ctx = make_admission("positive_opportunity"), make_ctx(4, 1.0)
    assert not admission.decide(steep, [long], ctx, make_scheduler("first_profit")).accepted
    decision = admission.decide(steep, [long], ctx, make_scheduler("first_opportunity"))
    assert decision.accepted
    assert (decision.processors, decision.start) == (4, 0)
    assert decision.gain == pytest.approx(193.2 - 144)
