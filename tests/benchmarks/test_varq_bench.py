"""Benchmarks of the batch site, QBETS and VARQ: ``gridmarket trace qbets`` on the whole
SDSC-SP2 trace (54k online predictions; goal <= 10 s) and one run of
``scenarios/varq/table4.yaml`` (SDSC-SP2, f = 0.10, p = 0.75; goal <= 60 s).
Skipped by default and where the trace is absent (``make bench-suite``)."""

from __future__ import annotations

import pytest

from market import GridMarket
from market.experiments.qbets_replay import qbets_accuracy
from market.inputs.scenario import load
from tests.conftest import ROOT, require_trace

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"


def need_trace():
    require_trace(SDSC)


@pytest.mark.benchmark(group="varq")
def test_trace_qbets_on_sdsc_sp2(benchmark):
    need_trace()
    report = benchmark.pedantic(lambda: qbets_accuracy(SDSC), rounds=3, iterations=1)
    assert report["correct_pct"] >= 95.0


@pytest.mark.benchmark(group="varq")
def test_one_table4_run(benchmark):
    need_trace()
    scenario = load(ROOT / "scenarios" / "varq" / "table4.yaml").expand()[0][1]  # SDSC-SP2
    result = benchmark.pedantic(lambda: GridMarket(scenario).run(), rounds=1, iterations=1)
    assert result.finished and result.sites.varq_jobs.max() > 0  # (the VARQ user's row)
