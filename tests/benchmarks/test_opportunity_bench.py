"""Benchmark: FirstOpportunity, the costliest scheduler of the profit paper (Popovici & Wilkes
SC'05 §3.3 item 6, §3.4: "with the exception of the Opportunity-based schedulers when the queue
lengths get large"): every plan places the whole queue once per queued job, and PositiveOpportunity
admission builds 1 + (number of shapes) such plans per offered job.

- the default scenario (Table 1: 200 jobs, 0.15 h between arrivals), one whole run through the
  Mesa model; goal: <= 2 s per run on a 2-core machine;
- the same at the heaviest load of the Figure 3 sweep (0.05 h), where queues are longest: no
  goal, the figure says what a sweep's slowest runs cost.

Run with `make bench-suite` (or `pytest tests/benchmarks --benchmark-enable --benchmark-only`).
"""

from __future__ import annotations

import pytest

from market import GridMarket

FIRST_OPPORTUNITY = {"service_providers.0.scheduler": "first_opportunity"}


@pytest.mark.benchmark(group="first-opportunity")
def test_default_run_first_opportunity(benchmark, default_scenario):
    scenario = default_scenario.with_overrides(FIRST_OPPORTUNITY)
    seeds = iter(range(1, 10_000))
    result = benchmark.pedantic(
        lambda: GridMarket(scenario, seed=next(seeds)).run(), rounds=8, iterations=1
    )
    assert result.finished


@pytest.mark.benchmark(group="first-opportunity")
def test_heavy_load_run_first_opportunity(benchmark, default_scenario):
    scenario = default_scenario.with_overrides(
        {**FIRST_OPPORTUNITY, "clients.0.workload.mean_interarrival": 0.05}
    )
    seeds = iter(range(1, 10_000))
    result = benchmark.pedantic(
        lambda: GridMarket(scenario, seed=next(seeds)).run(), rounds=3, iterations=1
    )
    assert result.finished
