"""Speed of the trace path: reading the SDSC-SP2 trace (59,715 lines), preparing a QoPS workload
from it (EASY deadlines), and admission control over its first 2,000 jobs at load 1.0 with QoPS
(and its baselines), decided per arrival by the Mesa-free event loop of
:func:`tests.unit.test_backfill.replay`.

Skipped by default (pyproject addopts has --benchmark-skip); run with
``pytest tests/benchmarks --benchmark-enable --benchmark-only`` (or ``make bench-suite``).
Skipped if the trace is not in ../shared/traces (or on $GRIDMARKET_TRACES).
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.policies.backfill import Conservative
from agents.policies.mrt import MRT
from agents.policies.msb import MSB
from agents.policies.qops import QoPS
from market.inputs.swf import read_swf
from market.inputs.traces import TraceNotFoundError, resolve_trace
from market.inputs.workloads import TraceWorkload
from tests.unit.test_backfill import replay

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"


def sdsc_path():
    try:
        return resolve_trace(SDSC)
    except TraceNotFoundError as exc:
        pytest.skip(str(exc))


@pytest.mark.benchmark(group="swf")
def test_read_sdsc_sp2(benchmark):
    path = sdsc_path()

    def read():
        trace = read_swf(path)
        return trace, trace.select()

    trace, (jobs, report) = benchmark(read)
    assert len(trace.records) == 59715 and report.kept + report.dropped == 59715
    assert len(jobs) == report.kept


@pytest.mark.benchmark(group="swf")
def test_prepare_sdsc_sp2_at_load_1_6_with_easy_deadlines(benchmark):
    sdsc_path()
    w = TraceWorkload(trace=SDSC, load_factor=1.6, deadlines="stringency")
    prepared = benchmark(lambda: w.prepare(np.random.default_rng(1)))
    assert len(prepared) == round(1.6 * 54034)


def admission_run(policy):
    sdsc_path()
    w = TraceWorkload(trace=SDSC, first_jobs=2000, deadlines="stringency", stringency=0.2)
    jobs = w.generate(np.random.default_rng(1))
    return lambda: replay(jobs, 128, Conservative(), policy)


@pytest.mark.benchmark(group="admission-2000")
@pytest.mark.parametrize(
    "policy", [QoPS(), MSB(), MRT()], ids=["qops", "msb", "mrt"]
)  # fmt: skip
def test_admission_first_2000_sdsc_jobs(benchmark, policy):
    run = admission_run(policy)
    result = benchmark.pedantic(run, rounds=1, iterations=1)
    accepted = sum(o.decision.accepted for o in result.values())
    late = sum(o.decision.accepted and o.end > o.job.deadline + 1e-9 for o in result.values())
    benchmark.extra_info.update(accepted=accepted, jobs=len(result))
    share = 100 * accepted / len(result)
    print(f"\n{policy.name}: {accepted} of {len(result)} admitted ({share:.1f} %)")
    assert late == 0
    assert accepted > len(result) // 2


@pytest.mark.benchmark(group="admission-8000")
def test_qops_first_5000_sdsc_jobs_at_load_1_6(benchmark):
    """The paper's setting (§4.2, Figure 7): a 5000-job subset duplicated to load 1.6."""
    sdsc_path()
    w = TraceWorkload(trace=SDSC, first_jobs=5000, deadlines="stringency", stringency=0.2,
                      load_factor=1.6)  # fmt: skip
    jobs = w.generate(np.random.default_rng(1))
    result = benchmark.pedantic(lambda: replay(jobs, 128, Conservative(), QoPS()), rounds=1)
    accepted = sum(o.decision.accepted for o in result.values())
    benchmark.extra_info.update(accepted=accepted, jobs=len(result))
    print(f"\nqops at load 1.6: {accepted} of {len(result)} admitted "
          f"({100 * accepted / len(result):.1f} %)")  # fmt: skip
    assert all(o.end <= o.job.deadline + 1e-9 for o in result.values() if o.decision.accepted)
