"""The provider's parts outside the agent (agents/sales.py, agents/pool_choice.py) on hand-worked
cases, and the provider interface (agents/provider.py) refusing an incomplete provider."""

from __future__ import annotations

import math

import pytest

from agents.policies import make_pricing
from agents.policies.base import Decision, Placement, Plan
from agents.pool_choice import choose_pool, merged, merit
from agents.provider import Provider
from agents.records import JobRecord
from agents.sales import Sales
from tests.conftest import make_job


def accepted(value: float, profit: float, end: float = 2.0, gain: float | None = None):
    return Decision(True, "ok", "", 1, 0.0, end, value, profit, gain)


def test_sales_price_win_and_payment_by_the_quotes_terms():
    sales = Sales(make_pricing("cost_plus", markup=0.5))
    job = make_job(1, 2.0, 10.0, decay=1.0)  # worth 10 at 0, 1 less every hour
    record = JobRecord(job, accepted(value=8.0, profit=6.0))  # planned rent 2
    sales.quote(record, confidence=1.0)
    assert record.quote.price == 3.0  # rent 2 x (1 + 0.5)
    assert sales.quoted == 1 and sales.win_rate_pct == 0.0 and math.isnan(sales.mean_price)
    sales.win(record)
    assert (sales.won, sales.mean_price, sales.mean_markup) == (1, 3.0, 0.5)
    assert sales.win_rate_pct == 100.0
    # On time (the promised end, 2 h): the price; the client's surplus is its utility less it.
    assert sales.payment(record, 2.0) == 3.0
    assert sales.client_surplus == pytest.approx(job.utility(2.0) - 3.0)


def test_utility_terms_pay_the_utility_and_leave_no_surplus():
    sales = Sales(make_pricing("utility"))
    job = make_job(1, 2.0, 10.0, decay=1.0)
    record = JobRecord(job, accepted(value=8.0, profit=6.0))
    sales.quote(record, confidence=0.9)
    sales.win(record)
    assert record.quote.price is None and record.quote.confidence == 0.9
    assert sales.payment(record, 3.0) == job.utility(3.0) == 7.0
    assert sales.client_surplus == 0.0 and math.isnan(sales.mean_markup)


def test_an_adaptive_rule_reads_the_outcomes_of_its_last_window_of_quotes():
    sales = Sales(make_pricing("adaptive", markup=0.2, sensitivity=1.0, target=0.5, window=2))
    records = [JobRecord(make_job(i, 1.0, 10.0), accepted(8.0, 6.0)) for i in range(4)]
    markups = []
    for i, record in enumerate(records):
        sales.quote(record, 1.0)
        markups.append(record.quote.markup)
        if i == 0:  # the first quote is won, the others lost
            record.committed = True
            sales.win(record)
    # none yet: the target rate (0.2); [won]: 1 -> 0.7; [won, lost]: 0.5 -> 0.2;
    # [lost, lost] (the first is out of the window): 0 -> -0.3, kept at min_markup 0
    assert markups == pytest.approx([0.2, 0.7, 0.2, 0.0])
    assert sales.win_rate_pct == 25.0


class Quoting:
    """A planner stand-in with a fixed decision."""

    def __init__(self, decision: Decision) -> None:
        self.decision = decision

    def quote(self, job, now):
        return self.decision


def test_the_pool_of_the_largest_gain_else_profit_wins_ties_to_the_first():
    job = make_job(1, 1.0, 10.0)
    rejected = Decision(False, "no", "")
    pools = [Quoting(rejected), Quoting(accepted(8, 2, gain=1.0)), Quoting(accepted(8, 5, gain=3))]
    assert choose_pool(pools, job, 0.0) == (pools[2].decision, 2)
    tie = [Quoting(accepted(8, 2, gain=3.0)), Quoting(accepted(8, 9, gain=3.0))]
    assert choose_pool(tie, job, 0.0)[1] == 0
    assert merit(accepted(8, 4)) == 4  # no gain: the expected profit
    assert choose_pool([Quoting(rejected)] * 2, job, 0.0) == (rejected, 0)


def test_the_pools_plans_merge_into_one():
    a, b = make_job(1, 1.0, 5.0), make_job(2, 1.0, 5.0)
    pa = Plan(1.0, [Placement(a, 1, 1.0, 2.0, 5.0, 1.0)])
    pb = Plan(1.0, [Placement(b, 2, 3.0, 4.0, 5.0, 2.0)], [make_job(3, 1.0, 1.0)])
    plan = merged([pa, pb])
    assert [p.job.id for p in plan.placements] == [1, 2] and plan.end == 4.0
    assert [j.id for j in plan.unplaced] == [3] and merged([]) is None


def test_a_provider_must_say_how_it_quotes_commits_and_queues():
    class Half(Provider):
        def quote(self, job):
            return Decision(False, "no", "")

    with pytest.raises(TypeError, match="abstract"):
        Half(None, "half", [])  # (refused before the model is touched)
