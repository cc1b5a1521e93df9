"""Benchmark: the competing market. ``market/competition.yaml`` (3 pricing service
providers x 200 jobs over two resource providers, clients shopping by best_surplus): goal <= 1 s
per run on this 2-core machine. The price-war sweep (``market/price_war.yaml``, 18 points x 10
replications) is timed by hand (docs/benchmarks.md): goal <= 2 minutes on 2 processes.
Run with `make bench-suite`."""

from __future__ import annotations

import pytest

from market import GridMarket
from market.inputs.scenario import load


@pytest.mark.benchmark(group="market")
def test_competition_run(benchmark):
    scenario = load("market/competition")
    seeds = iter(range(10_000))
    result = benchmark(lambda: GridMarket(scenario, seed=next(seeds)).run())
    assert result.finished


@pytest.mark.benchmark(group="market")
def test_price_war_point(benchmark):
    scenario = load("market/price_war").model_copy(update={"sweep": None})
    seeds = iter(range(10_000))
    result = benchmark(lambda: GridMarket(scenario, seed=next(seeds)).run())
    assert result.finished
