"""The profit paper's findings in whole runs (Popovici & Wilkes, "Profitable services in an
uncertain world", SC'05, §5.1 and §5.4; Figures 3 and 6).

Each test runs the paper's default market (Table 1, ``scenarios/profit/default.yaml``) with
``GridMarket`` directly, on a few fixed seeds (fewer than the paper's 10 runs, to keep the file
well under a minute), compares means over those seeds, and quotes the sentence it checks. The
full sweeps are ``scenarios/profit/fig3_load.yaml`` to ``fig6_price.yaml``.

A finding that does not reproduce in this model is written as the paper states it and marked
``xfail(strict=True)`` with the evidence, so that it turns into a failure the day it passes.
Both such findings concern FirstReward: with RiskReward's opportunity-cost term in its
admission reward (the sum of ``reward_i``, §3.4), it admits few jobs, keeps its queue short and
runs them at once on their widest shape, which earns more, not less, than the paper reports.
"""

from __future__ import annotations

import functools

import pandas as pd
import pytest

from market import GridMarket
from market.scenario import load
from tests.conftest import DEFAULT_SCENARIO

SEEDS = (1, 2, 3, 4)
SCHEDULER = "service_providers.0.scheduler"
PRICE = "resource_providers.0.price"
INTERARRIVAL = "clients.0.workload.mean_interarrival"
PROFIT_AWARE = ("first_profit", "first_opportunity", "first_opportunity_rate")


@functools.cache
def mean_summary(scheduler: str, sets: tuple[tuple[str, object], ...] = ()) -> pd.Series:
    """Mean summary metrics of ``scheduler`` (PositiveOpportunity admission) over ``SEEDS`` on
    the default scenario with ``sets`` overridden. Cached: several tests share runs."""
    scenario = load(DEFAULT_SCENARIO).model_copy(update={"variants": {}})
    scenario = scenario.with_overrides({SCHEDULER: scheduler, **dict(sets)})
    rows = [GridMarket(scenario, seed=seed).run().summary.iloc[0] for seed in SEEDS]
    return pd.DataFrame(rows)[["profit", "profit_rate", "accepted_pct", "mean_processors"]].mean()


def test_profit_aware_schedulers_earn_a_higher_profit_rate_than_first_price():
    # §5.1, Figure 3e: "The new profit-aware schedulers do generally better"; §5.4: "the
    # cost-aware schedulers ... consistently deliver greater profitability than the alternatives".
    # Here at the default load (0.15 h): FirstProfit ~99, FirstOpportunity ~110,
    # FirstOpportunityRate ~127, FirstPrice ~45 florins/h.
    first_price = mean_summary("first_price").profit_rate
    for name in PROFIT_AWARE:
        assert mean_summary(name).profit_rate > 1.5 * first_price, name


@pytest.mark.xfail(
    strict=True,
    reason=(
        "FirstReward earns more than FirstProfit and FirstOpportunity at the default load "
        "(Fig. 3 sweep, 10 runs: 113 vs 79 and 90 florins/h; here ~121 vs ~99 and ~110). Its "
        "admission reward, the sum of reward_i (§3.4), carries RiskReward's opportunity cost "
        "(the decay a job causes every queued job), so it admits 34 % of the jobs (FirstProfit "
        "50 %), runs them at once on 5 processors and realises 96 % of its predicted profit "
        "(FirstProfit 67 %): about FirstProfit's total profit in a makespan of 35 h, not 47 h. "
        "It stays ahead for every alpha <= 0.7 and discount rate 0 to 0.1, and whichever "
        "reading of the admission reward keeps the cost term. FirstProfit and FirstOpportunity "
        "also lose by running ~60 % of their jobs on another shape than admission evaluated "
        "(the provider re-plans each job on its scheduler's shape), which delays them into "
        "their penalties (FirstProfit: ~20 penalised jobs per run, FirstReward ~1); keeping "
        "the admitted shape, tried outside the code, brings them to ~118 and ~121 florins/h."
    ),
)
def test_profit_aware_schedulers_earn_a_higher_profit_rate_than_first_reward():
    # §5.1, Figure 3e: "The new profit-aware schedulers do generally better ... FirstReward and
    # FirstPrice had profit rates coming close to FirstProfit, but they exhibit higher variation".
    first_reward = mean_summary("first_reward").profit_rate
    for name in PROFIT_AWARE:
        assert mean_summary(name).profit_rate > first_reward, name


def test_first_profit_uses_fewer_processors_per_job_than_sjf_and_first_price():
    # §5.1, Figure 3c: "the new profit-based schedulers (FirstProfit and FirstOpportunity)
    # consistently choose roughly half as many processors per job as the cost-oblivious
    # schedulers". Here FirstProfit ~2.1, FirstPrice ~3.8, SJF 5.
    first_profit = mean_summary("first_profit").mean_processors
    assert first_profit < mean_summary("first_price").mean_processors
    assert first_profit < 0.6 * mean_summary("sjf").mean_processors


@pytest.mark.parametrize("price", [9.0, 10.0])
def test_above_8_per_processor_hour_first_price_loses_money_and_first_profit_does_not(price):
    # §5.4, Figure 6c: "FirstPrice and FirstReward schedulers start to operate in a negative
    # profit regime when the price increases to more than 8 florins/hour"; the cost-aware ones
    # "consistently deliver greater profitability". FirstPrice's mean profit turns negative
    # between 7 and 8 florins here.
    sets = ((PRICE, price),)
    assert mean_summary("first_price", sets).profit < 0
    assert mean_summary("first_profit", sets).profit > 0


@pytest.mark.xfail(
    strict=True,
    reason=(
        "FirstReward ignores rent, so its schedule is the same at every price and its profit "
        "falls linearly with it, but it rents few processor-hours (it admits about a third of "
        "the jobs and finishes them early, at nearly full value): its mean profit is ~2,400 "
        "florins at 9 and ~1,500 at 12, turning negative only near 17 florins per "
        "processor-hour. It loses money above 8 only with alpha = 1 (no opportunity cost, "
        "FirstPrice with a discount) or with an admission reward without the cost term; at "
        "alpha 0.9 it still earns ~150 florins at 12."
    ),
)
@pytest.mark.parametrize("price", [9.0, 10.0])
def test_above_8_per_processor_hour_first_reward_loses_money(price):
    # §5.4, Figure 6c: "FirstPrice and FirstReward schedulers start to operate in a negative
    # profit regime when the price increases to more than 8 florins/hour".
    assert mean_summary("first_reward", ((PRICE, price),)).profit < 0


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
