"""The profit paper's findings in whole runs (Popovici & Wilkes, "Profitable services in an
uncertain world", SC'05, §5.1 and §5.4; Figures 3 and 6).

Each test runs the paper's default market (Table 1, ``scenarios/profit/default.yaml``) with
``GridMarket`` directly, on a few fixed seeds (fewer than the paper's 10 runs, to keep the file
well under a minute), compares means over those seeds, and quotes the sentence it checks. The
full sweeps are ``scenarios/profit/fig3_load.yaml`` to ``fig6_price.yaml``.

The default workload is the calibrated one (gamma job sizes with cv 1.25: docs/papers/profit.md,
"Calibration of the workload"; ``gridmarket calibrate``). A finding that does not reproduce on it
is written as the paper states it and marked ``xfail(strict=True)`` with the reason, so that it
turns into a failure the day it passes. The calibration found no workload and no FirstReward
alpha on which these hold together with the others: FirstPrice close to FirstProfit, FirstReward
losing money above 8 per processor-hour while close to FirstProfit, and the profit-aware
schedulers ahead of LJF and FirstReward.
"""

from __future__ import annotations

import functools

import pandas as pd
import pytest

from market import GridMarket
from market.experiments.calibration import STATEMENTS, workload_profile
from market.inputs.scenario import load
from tests.conftest import DEFAULT_SCENARIO

SEEDS = (1, 2, 3, 4)
SCHEDULER = "service_providers.0.scheduler"
PRICE = "resource_providers.0.price"
INTERARRIVAL = "clients.0.workload.mean_interarrival"
PROFIT_AWARE = ("first_profit", "first_opportunity", "first_opportunity_rate")
COST_OBLIVIOUS = ("ljf", "sjf", "first_price", "first_reward")
PRICE_NOW = 3.0  # Table 1


@functools.cache
def mean_summary(scheduler: str, sets: tuple[tuple[str, object], ...] = ()) -> pd.Series:
    """Mean summary metrics of ``scheduler`` (PositiveOpportunity admission) over ``SEEDS`` on
    the default scenario with ``sets`` overridden. Cached: several tests share runs."""
    scenario = load(DEFAULT_SCENARIO).model_copy(update={"variants": {}})
    scenario = scenario.with_overrides({SCHEDULER: scheduler, **dict(sets)})
    rows = [GridMarket(scenario, seed=seed).run().summary.iloc[0] for seed in SEEDS]
    frame = pd.DataFrame(rows)[["profit", "profit_rate", "accepted_pct", "mean_processors"]]
    return pd.concat(
        [
            frame.mean(),
            pd.Series({"profit_rate_sd": frame.profit_rate.std(), "break_even": break_even(rows)}),
        ]
    )


def break_even(rows) -> float:
    """The price per processor-hour at which the mean profit of ``rows`` would be zero, for a
    rent-blind scheduler (its schedule is the same at every price): revenue / hours rented."""
    revenue = sum(r.revenue for r in rows)
    return revenue / sum(r.rent / PRICE_NOW for r in rows)


def band(key: str) -> tuple[float, float]:
    """The tolerance market/experiments/calibration.py gives the statement ``key``."""
    statement = next(s for s in STATEMENTS if s.key == key)
    return statement.low, statement.high


def test_profit_aware_schedulers_earn_a_higher_profit_rate_than_first_price():
    # §5.1, Figure 3e: "The new profit-aware schedulers do generally better"; §5.4: "the
    # cost-aware schedulers ... consistently deliver greater profitability than the alternatives".
    # Here at the default load (0.15 h): FirstProfit ~137, FirstOpportunity ~140, FirstPrice ~52
    # florins/h.
    first_price = mean_summary("first_price").profit_rate
    for name in PROFIT_AWARE:
        assert mean_summary(name).profit_rate > 1.5 * first_price, name


@pytest.mark.xfail(
    strict=True,
    reason=(
        "LJF (149/h) and FirstReward (153) earn a little more than FirstProfit (143) and "
        "FirstOpportunity (144) at the default load (Fig. 3 sweep, 10 runs). In the "
        "calibration the profit-aware schedulers lead only with wide sizes (cv 1.5) and half the "
        "jobs steep, which offer 1.4 pools of profitable work, not 2, and put FirstPrice's "
        "break-even at 10.6 per processor-hour (docs/papers/profit.md, calibration)."
    ),
)
def test_profit_aware_schedulers_earn_a_higher_profit_rate_than_the_cost_oblivious():
    # §5.1, Figure 3e: "The new profit-aware schedulers do generally better".
    best_oblivious = max(mean_summary(name).profit_rate for name in COST_OBLIVIOUS)
    for name in PROFIT_AWARE:
        assert mean_summary(name).profit_rate > best_oblivious, name


def test_first_reward_comes_close_to_first_profit():
    # §5.1, Figure 3e/f: "FirstReward and FirstPrice had profit rates coming close to
    # FirstProfit": within 25 % (market/experiments/calibration.py). Here ~1.0 (137.7 against
    # 137.1).
    low, high = band("first_reward_close")
    ratio = mean_summary("first_reward").profit_rate / mean_summary("first_profit").profit_rate
    assert low <= ratio <= high


@pytest.mark.xfail(
    strict=True,
    reason=(
        "FirstPrice, blind to rent, admits jobs FirstProfit turns away and runs them on 4-5 "
        "processors: it earns about a third of FirstProfit's profit rate on every workload the "
        "calibration searched (0.17-0.44), the price of breaking even near 8 per "
        "processor-hour, which holds."
    ),
)
def test_first_price_comes_close_to_first_profit():
    # §5.1: "FirstReward and FirstPrice had profit rates coming close to FirstProfit".
    low, high = band("first_price_close")
    ratio = mean_summary("first_price").profit_rate / mean_summary("first_profit").profit_rate
    assert low <= ratio <= high


def test_first_profit_uses_fewer_processors_per_job_than_sjf_and_first_price():
    # §5.1, Figure 3c: "the new profit-based schedulers (FirstProfit and FirstOpportunity)
    # consistently choose roughly half as many processors per job as the cost-oblivious
    # schedulers": 0.35-0.65 of the mean of SJF, FirstPrice and FirstReward (LJF is held to one).
    # Here FirstProfit ~2.1 and FirstOpportunity ~1.9, SJF and FirstReward 5, FirstPrice ~4.6.
    low, high = band("half_processors")
    oblivious = sum(mean_summary(n).mean_processors for n in ("sjf", "first_price", "first_reward"))
    for name in ("first_profit", "first_opportunity"):
        assert low <= mean_summary(name).mean_processors / (oblivious / 3) <= high, name


def test_first_price_breaks_even_near_8_per_processor_hour():
    # §5.4: FirstPrice starts "to operate in a negative profit regime when the price increases to
    # more than 8 florins/hour": it ignores rent, so its profit is linear in the price and zero at
    # revenue / processor-hours rented; 7-10 (market/experiments/calibration.py). Here ~8.5.
    low, high = band("first_price_break_even")
    assert low <= mean_summary("first_price").break_even <= high


@pytest.mark.parametrize("price", [9.0, 10.0])
def test_above_8_per_processor_hour_first_price_loses_money_and_first_profit_does_not(price):
    # §5.4, Figure 6c: "FirstPrice and FirstReward schedulers start to operate in a negative
    # profit regime when the price increases to more than 8 florins/hour"; the cost-aware ones
    # "consistently deliver greater profitability".
    sets = ((PRICE, price),)
    assert mean_summary("first_price", sets).profit < 0
    assert mean_summary("first_profit", sets).profit > 0


@pytest.mark.xfail(
    strict=True,
    reason=(
        "FirstReward ignores rent, so its profit is linear in the price, but with alpha 0.3 it "
        "admits few jobs and finishes them early at nearly full value: it breaks even near 19 "
        "per processor-hour. Higher alpha lowers that (0.9: 14, 1: 8.3) but also its profit "
        "rate (0.76 and 0.36 x FirstProfit's), so 'close to FirstProfit' fails instead: the "
        "two cannot hold together at any alpha or discount rate searched (docs/papers/profit.md)."
    ),
)
@pytest.mark.parametrize("price", [9.0, 10.0])
def test_above_8_per_processor_hour_first_reward_loses_money(price):
    # §5.4, Figure 6c: "FirstPrice and FirstReward schedulers start to operate in a negative
    # profit regime when the price increases to more than 8 florins/hour".
    assert mean_summary("first_reward").break_even < price


@pytest.mark.parametrize("scheduler", ["ljf", "first_price", "first_reward", "first_profit"])
def test_acceptance_falls_as_load_rises(scheduler):
    # §5.1, Figure 3b: "the percentage of jobs accepted also declines as the load increases
    # (Figure 3b) from a maximum of about 70%, which reflects the fraction of the offered jobs in
    # this workload that can be run profitably" (FirstPrice and FirstReward, blind to rent,
    # "accept more jobs at low load"). Mean inter-arrival times from light load to overload.
    accepted = [
        mean_summary(scheduler, ((INTERARRIVAL, t),)).accepted_pct for t in (1.0, 0.3, 0.15, 0.05)
    ]
    assert accepted == sorted(accepted, reverse=True)
    assert accepted[0] > accepted[-1] + 25
    if scheduler in ("ljf", "first_profit"):
        assert 60 <= accepted[0] <= 80


def test_the_default_load_offers_about_twice_the_pool_of_profitable_work():
    # Table 1's caption: "a mean inter-arrival time of 0.15 hours generates a potentially-
    # profitable load for approximately twice the available resources"; §5.1: "a maximum of
    # about 70 %, which reflects the fraction of the offered jobs in this workload that can be
    # run profitably". From the workload alone (market/experiments/calibration.py). Here ~2.0 and
    # ~73 %.
    scenario = load(DEFAULT_SCENARIO)
    rp = scenario.resource_providers[0]
    profile = workload_profile(scenario.clients[0].workload, rp.price, rp.capacity)
    low, high = band("profitable_load")
    assert low <= profile["profitable_load"] <= high
    low, high = band("max_acceptance")
    assert low <= profile["profitable_pct"] <= high


@pytest.mark.xfail(
    strict=True,
    reason=(
        "FirstReward's profit rate varies more than FirstProfit's, but FirstPrice's, about a "
        "third of FirstProfit's, varies less in florins per hour (Fig. 3 sweep, 10 runs: sd 14 "
        "against 17; relative to its mean, twice as much), on every workload searched."
    ),
)
def test_first_reward_and_first_price_vary_more_than_first_profit():
    # §5.1, Figure 3f: FirstReward and FirstPrice "exhibit higher variation in the profit".
    first_profit = mean_summary("first_profit").profit_rate_sd
    for name in ("first_reward", "first_price"):
        assert mean_summary(name).profit_rate_sd > first_profit, name
