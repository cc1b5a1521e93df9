"""Benchmark: the profit paper's default scenario (Table 1) with FirstProfit +
PositiveOpportunity, one whole run (200 jobs) through the Mesa model. Goal: <= 0.3 s per run on
a 2-core machine. Run with `make bench-suite`."""

from __future__ import annotations

import pytest

from market import GridMarket


@pytest.mark.benchmark(group="default-run")
def test_default_run_first_profit(benchmark, default_scenario):
    seeds = iter(range(10_000))
    result = benchmark(lambda: GridMarket(default_scenario, seed=next(seeds)).run())
    assert result.finished


@pytest.mark.benchmark(group="default-run")
def test_default_run_accept_all(benchmark, default_scenario):
    scenario = default_scenario.with_overrides({"service_providers.0.admission": "accept_all"})
    seeds = iter(range(10_000))
    result = benchmark(lambda: GridMarket(scenario, seed=next(seeds)).run())
    assert result.finished
