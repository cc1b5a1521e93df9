"""Benchmark: EASY replay of the whole SDSC-SP2 trace (54,034 selected jobs, 128 processors,
user estimates) through the Mesa market model, every job admitted: building the model (the
trace read from disk each round, jobs made) and running it. The goal: >= 20,000 jobs/s
(<= 3 s) and <= 1 GiB. Skipped by default and where the trace is absent; `make bench-suite` runs it;
the jobs/s of the fastest round and the process's peak memory are in the extra info. Beside it,
an overloaded EASY replay (the first 20,000 jobs at load 1.6 by duplication: a queue of
thousands that every plan scans behind the head), reported, with no goal."""

from __future__ import annotations

import resource

import pytest

from market import GridMarket
from market.inputs.scenario import validate
from market.inputs.traces import TraceNotFoundError, resolve_trace
from market.inputs.workloads import trace

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"


def easy_replay(**workload):
    """The EASY replay of SDSC-SP2 (user estimates, every job admitted) with more ``workload``
    fields; skips the test where the trace is absent."""
    try:
        resolve_trace(SDSC)
    except TraceNotFoundError as exc:
        pytest.skip(str(exc))
    return validate(
        {
            "name": "sdsc-easy",
            "sample_interval": 24.0,
            "resource_providers": [{"name": "pool", "capacity": 128, "price": 0.0}],
            "service_providers": [{"name": "site", "scheduler": "easy", "admission": "accept_all"}],
            "clients": [{"name": "users", "workload": {"kind": "swf", "trace": SDSC,
                                                        "estimates": "trace", **workload}}],
        }
    )  # fmt: skip


@pytest.mark.benchmark(group="trace-replay")
def test_easy_replay_of_sdsc_sp2_through_the_model(benchmark):
    scenario = easy_replay()
    result = benchmark.pedantic(
        lambda: GridMarket(scenario, seed=1).run(),
        setup=trace._selected.cache_clear,  # read the trace in every round
        rounds=3,
        iterations=1,
    )
    benchmark.extra_info.update(
        jobs_per_s=round(54_034 / benchmark.stats.stats.min),
        peak_rss_mib=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    )
    assert result.finished and result.summary.completed[0] == 54_034


@pytest.mark.benchmark(group="trace-replay")
def test_easy_replay_of_20000_sdsc_jobs_at_load_1_6(benchmark):
    scenario = easy_replay(first_jobs=20_000, load_factor=1.6, load_method="duplicate")
    result = benchmark.pedantic(lambda: GridMarket(scenario, seed=1).run(), rounds=1, iterations=1)
    jobs = result.jobs
    benchmark.extra_info.update(
        jobs=len(jobs), mean_wait_h=round(float((jobs.start - jobs.arrival).mean()), 1)
    )
    assert result.finished and len(jobs) == 32_000 and jobs.start.notna().all()
