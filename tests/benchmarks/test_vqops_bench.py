"""Benchmark: DVQoPS admission in the VQoPS paper's setting (Islam, Balaji, Sabin & Sadayappan,
OSU-CISRC-3/07-TR17 §3: the first 10,000 SDSC-SP2 jobs at high load, about 14,000 jobs; 5
OC-Factors x 7 rollback windows) through the Mesa market model. Reports the mean CPU time per
admission decision (the run's CPU time over the jobs offered, so an upper bound: it includes the
market and the scheduler; the goal when written: <= 10 ms); it measures, never fails on the
machine's load. Skipped by default and where the trace is absent."""

from __future__ import annotations

import time

import pytest

from market import GridMarket
from market.inputs.scenario import load
from market.inputs.traces import TraceNotFoundError, resolve_trace
from tests.conftest import ROOT

SCENARIO = ROOT / "scenarios" / "vqops" / "sdsc.yaml"


@pytest.mark.benchmark(group="vqops")
def test_dvqops_on_10000_sdsc_jobs_at_high_load(benchmark):
    try:
        resolve_trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    except TraceNotFoundError as exc:
        pytest.skip(str(exc))
    variant = dict(load(SCENARIO).expand())["DVQoPS"]
    started = time.process_time()
    result = benchmark.pedantic(lambda: GridMarket(variant, seed=1).run(), rounds=1, iterations=1)
    seconds = time.process_time() - started
    row = result.summary.iloc[0]
    per_decision = 1000.0 * seconds / row.offered
    benchmark.extra_info.update(offered=int(row.offered), cpu_ms_per_decision=per_decision)
    print(f"\nDVQoPS: {row.offered} decisions, {per_decision:.2f} ms CPU each (whole run)")
    assert result.finished and row.deadlines_missed == 0
