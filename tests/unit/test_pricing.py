"""Pricing policies, price quotes and a client's choice by surplus: hand-made cases."""

from __future__ import annotations

import numpy as np
import pytest

from agents.client import best_surplus
from agents.policies import make_admission, make_pricing, make_scheduler
from market.core.quotes import PriceQuote
from market.inputs.scenario import ScenarioError, load, validate
from tests.conftest import make_ctx, make_job


def _worked_example():
    """One processor at 1 florin per processor-hour, now = 0. Queued: job A, 1 h, worth 20
    decaying 5/h. Offered: job B, 1 h, worth 30, no decay. FirstProfit runs B first (profit 29
    against A's 14), so A ends at 2 h and is worth 10 there instead of 15: the plan with B
    earns 29 + 9 = 38 against 14 without it (gain 24), and B displaces 14 - 9 = 5 of A's profit."""
    a, b = make_job(0, 1.0, 20.0, 5.0), make_job(1, 1.0, 30.0)
    scheduler = make_scheduler("first_profit")
    decision = make_admission("positive_opportunity").decide(b, [a], make_ctx(1, 1.0), scheduler)
    return b, decision


def test_the_worked_example_decision():
    _, d = _worked_example()
    assert d.accepted and (d.start, d.end) == (0.0, 1.0)
    assert d.expected_value == 30.0 and d.expected_profit == 29.0  # rent 1 x 1 h x 1 florin
    assert d.gain == pytest.approx(24.0) and d.displaced == pytest.approx(5.0)


def test_cost_plus_and_opportunity_prices_on_the_worked_example():
    b, d = _worked_example()
    cost_plus = make_pricing("cost_plus", markup=0.2).quote(b, d)
    assert cost_plus.price == pytest.approx(1.2)  # rent 1 x 1.2
    assert cost_plus.rent == pytest.approx(1.0) and cost_plus.promised == 1.0
    opportunity = make_pricing("opportunity", markup=0.1).quote(b, d)
    assert opportunity.price == pytest.approx(6.6)  # (rent 1 + displaced 5) x 1.1
    assert opportunity.expected_surplus(b) == pytest.approx(30.0 - 6.6)
    assert make_pricing("utility").quote(b, d).price is None


def test_a_job_accepted_without_a_plan_pays_its_utility_under_every_rule():
    # One processor: EASY starts the first queued job, reserves it next for the second and
    # places none behind them, so accept_all predicts no completion for the job offered: no
    # rent to price on, whatever the rule.
    queue, job = [make_job(0, 1.0, 10.0), make_job(1, 1.0, 10.0)], make_job(2, 2.0, 40.0, 4.0)
    d = make_admission("accept_all").decide(job, queue, make_ctx(1, 3.0), make_scheduler("easy"))
    assert d.accepted and d.end is None
    for name in ("utility", "cost_plus", "urgency", "opportunity", "adaptive"):
        for confidence in (1.0, 0.9):
            quote = make_pricing(name).quote(job, d, (), confidence)
            assert (quote.price, quote.promised, quote.confidence) == (None, None, confidence)
            assert quote.payment(job, 1.5) == job.utility(1.5)
            assert quote.expected_price(job) == 0.0 and quote.expected_surplus(job) == 0.0


def test_an_urgency_premium_charges_the_decay_rate_at_the_promise():
    job = make_job(0, 2.0, 40.0, 4.0)  # 2 h on one processor, loses 4 florins an hour
    d = make_admission("positive_opportunity").decide(
        job, [], make_ctx(1, 3.0), make_scheduler("first_profit")
    )
    assert (d.end, d.expected_value - d.expected_profit) == (2.0, 6.0)  # rent 3 x 2 h
    quote = make_pricing("urgency", markup=0.5, premium=2.0).quote(job, d)
    assert quote.price == pytest.approx(6.0 * 1.5 + 2.0 * 4.0)  # 17
    no_decay = make_job(1, 2.0, 40.0)
    d = make_admission("positive_opportunity").decide(
        no_decay, [], make_ctx(1, 3.0), make_scheduler("first_profit")
    )
    assert make_pricing("urgency", markup=0.5, premium=2.0).quote(no_decay, d).price == 9.0


def test_adaptive_markup_follows_the_recent_win_rate_within_bounds():
    rule = make_pricing("adaptive", markup=0.2, sensitivity=1.0, target=0.5, window=4)
    assert rule.current_markup([]) == 0.2  # no history: the base markup
    assert rule.current_markup([True] * 4) == pytest.approx(0.7)  # 0.2 + (1 - 0.5)
    assert rule.current_markup([False] * 4) == 0.0  # 0.2 - 0.5, floored at min_markup 0
    # only the last 4 outcomes count: 3 wins of 4 -> 0.2 + 0.25
    assert rule.current_markup([False] * 10 + [True, True, False, True]) == pytest.approx(0.45)
    capped = make_pricing("adaptive", markup=1.0, sensitivity=10.0, max_markup=1.5)
    assert capped.current_markup([True] * 20) == 1.5
    b, d = _worked_example()
    quote = rule.quote(b, d, [True] * 4)
    assert quote.price == pytest.approx(1.7) and quote.markup == pytest.approx(0.7)


def test_a_markup_may_change_but_never_below_zero():
    rule = make_pricing("cost_plus", markup=0.2)
    assert rule.with_markup(0.5).markup == 0.5 and rule.markup == 0.2
    with pytest.raises(ValueError, match="markup must be >= 0"):
        rule.with_markup(-0.1)
    with pytest.raises(ValueError, match="pricing policy 'cost_plus': markup must be >= 0"):
        make_pricing("cost_plus", markup=-0.1)
    with pytest.raises(ValueError, match="unknown pricing policy 'free'"):
        make_pricing("free")


# -- the contract ---------------------------------------------------------------------------------
def test_a_quotes_payment_holds_to_the_promise_then_decays_with_the_utility():
    # Worth 30 at 0, losing 5 an hour down to -20 (at 10 h). Price 10, promised at 2 h (u = 20).
    job = make_job(0, 1.0, 30.0, 5.0, bound=-20.0)
    quote = PriceQuote(10.0, 2.0)
    assert quote.payment(job, 1.5) == 10.0  # early: the price
    assert quote.payment(job, 3.0) == 5.0  # 1 h late: u fell 20 -> 15, so 10 - 5
    assert quote.payment(job, 6.0) == -10.0  # u = 0: 10 - 20, a penalty of 10
    assert quote.payment(job, 20.0) == -20.0  # 10 - 40 = -30, bounded at the penalty bound
    # the client keeps its promised surplus u(T) - P = 10 while late, until the bound
    assert job.utility(3.0) - quote.payment(job, 3.0) == 10.0 == quote.expected_surplus(job)
    utility = PriceQuote(None, 2.0)  # the papers' contract: the utility whenever it ends
    assert [utility.payment(job, t) for t in (1.5, 3.0, 20.0)] == [22.5, 15.0, -20.0]
    assert utility.expected_surplus(job) == 0.0 and utility.expected_price(job) == 20.0


# -- the client's choice --------------------------------------------------------------------------
def test_a_client_takes_the_quote_of_highest_surplus_and_declines_when_all_are_negative():
    rng = np.random.default_rng(0)
    job = make_job(0, 1.0, 50.0, 5.0)  # worth 50, losing 5 an hour
    # provider 1: done at 2 h (u = 40) for 30 -> surplus 10; provider 2: at 3 h (u = 35) for
    # 20 -> surplus 15: the later but cheaper quote wins.
    quotes = [PriceQuote(30.0, 2.0), PriceQuote(20.0, 3.0)]
    assert best_surplus([q.expected_surplus(job) for q in quotes], rng) == 1
    # both dearer than the job is worth at their promise: -5 and -1, declined
    quotes = [PriceQuote(45.0, 2.0), PriceQuote(36.0, 3.0)]
    assert best_surplus([q.expected_surplus(job) for q in quotes], rng) is None
    assert best_surplus([0.0, -1.0], rng) == 0  # an indifferent client buys


def test_ties_in_surplus_are_broken_at_random():
    rng = np.random.default_rng(7)
    picks = [best_surplus([5.0, 5.0, 1.0], rng) for _ in range(400)]
    assert set(picks) == {0, 1} and 150 < picks.count(0) < 250


# -- scenario validation --------------------------------------------------------------------------
def _data(**sp):
    return {
        "resource_providers": [{"name": "a"}, {"name": "b"}],
        "service_providers": [{"name": "sp", **sp}],
        "clients": [{"name": "c", "workload": {"kind": "profit", "jobs": 1}}],
    }


@pytest.mark.parametrize(
    ("sp", "message"),
    [
        ({"pricing": "free"}, "service_providers.0.pricing: unknown pricing policy 'free'"),
        (
            {"pricing": {"name": "cost_plus", "markup": -0.5}},
            "service_providers.0.pricing: pricing policy 'cost_plus': markup must be >= 0",
        ),
        (
            {"resource_providers": ["a", "z"]},
            "service_providers.0.resource_providers.1: no resource provider named 'z'",
        ),
        ({"resource_providers": []}, "service_providers.0.resource_providers: give at least one"),
        ({"enters": -1}, "service_providers.0.enters: Input should be greater than or equal to 0"),
    ],
)
def test_bad_market_fields_are_one_line_errors_naming_file_and_field(sp, message):
    with pytest.raises(ScenarioError) as err:
        validate(_data(**sp), "m.yaml")
    assert str(err.value).startswith(f"m.yaml: {message}") and "\n" not in str(err.value)


def test_a_client_with_no_providers_is_an_error():
    data = _data()
    data["clients"][0]["providers"] = []
    with pytest.raises(ScenarioError, match=r"^m.yaml: clients.0.providers: give at least one"):
        validate(data, "m.yaml")


def test_the_default_pricing_is_utility_and_the_offer_rule_follows_the_pricing():
    from market.sim.model import GridMarket

    scenario = load("profit/default").model_copy(update={"variants": {}})
    assert scenario.service_providers[0].pricing.name == "utility"
    unset = scenario.with_overrides({"clients.0.offer_rule": None})  # the file says best_quote
    assert GridMarket(unset).clients["clients"].offer_rule == "best_quote"
    priced = unset.with_overrides({"service_providers.0.pricing": "cost_plus"})
    assert GridMarket(priced).clients["clients"].offer_rule == "best_surplus"
    stated = scenario.with_overrides({"service_providers.0.pricing": "cost_plus"})
    assert GridMarket(stated).clients["clients"].offer_rule == "best_quote"  # as the file says
