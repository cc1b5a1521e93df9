"""Benchmark: EASY replay of the whole SDSC-SP2 trace (54,034 selected jobs, 128 processors,
user estimates) through the Mesa market model, every job admitted. Issue 6's goal: >= 20,000
jobs/s (<= 3 s). Skipped by default and where the trace is absent; `make bench` runs it."""

from __future__ import annotations

import pytest

from market import GridMarket
from market.scenario import validate
from market.swf import TraceNotFoundError, resolve_trace

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"


@pytest.mark.benchmark(group="trace-replay")
def test_easy_replay_of_sdsc_sp2_through_the_model(benchmark):
    try:
        resolve_trace(SDSC)
    except TraceNotFoundError as exc:
        pytest.skip(str(exc))
    scenario = validate(
        {
            "name": "sdsc-easy",
            "sample_interval": 24.0,
            "resource_providers": [{"name": "pool", "capacity": 128, "price": 0.0}],
            "service_providers": [{"name": "site", "scheduler": "easy", "admission": "accept_all"}],
            "clients": [{"name": "users", "workload": {"kind": "swf", "trace": SDSC,
                                                        "estimates": "trace"}}],
        }
    )  # fmt: skip
    result = benchmark.pedantic(lambda: GridMarket(scenario, seed=1).run(), rounds=1, iterations=1)
    assert result.finished and result.summary.completed[0] == 54_034
