"""Benchmark: the compiled profile kernel (market/core/compiled.py) against the same kernel in
Python, A/B in one run, on the QoPS paper's SDSC-SP2 experiment (the first 2,000 jobs duplicated
to load 1.6, stringency 0.2: 3,200 jobs on 128 processors) under each admission that plans on a
conservative profile. The timed round is this process's, on the kernel it loaded (compiled after
``make venv``); the Python round runs in a new process with ``GRIDMARKET_COMPILED=0`` and reports
its ``run()`` CPU seconds, and both must give every job the same outcome. Skipped by default and
where the trace is absent; `make bench-suite` runs it."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time

import pytest

from market import GridMarket
from market.core import capacity, compiled
from market.inputs.scenario import load
from market.inputs.traces import TraceNotFoundError, resolve_trace
from tests.conftest import ROOT

SCENARIO = ROOT / "scenarios" / "qops" / "sdsc_load.yaml"
SETS = {
    "clients.0.workload.first_jobs": 2000,
    "clients.0.workload.load_factor": 1.6,
    "clients.0.workload.stringency": 0.2,
}


def timed_run(label: str) -> tuple[float, str]:
    """CPU seconds of ``run()`` of the scenario's variant ``label``, and a hash of every job's
    outcome (decision, shape, start, end)."""
    variant = dict(load(SCENARIO).expand())[label].with_overrides(SETS)
    model = GridMarket(variant, seed=1)
    begin = time.process_time()
    model.run()
    spent = time.process_time() - begin
    rows = [
        (job, r.decision.accepted, r.decision.reason, r.processors, r.start, r.end)
        for sp in model.service_providers.values()
        for job, r in sorted(sp.records.items())
    ]
    return spent, hashlib.sha256(repr(rows).encode()).hexdigest()


def in_python(label: str) -> tuple[float, str]:
    """:func:`timed_run` in a new process on the Python kernel."""
    script = (
        "import json, sys\n"
        "from tests.benchmarks.test_compiled_kernel_bench import timed_run\n"
        "print(json.dumps(timed_run(sys.argv[1])))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, label],
        env={**os.environ, "GRIDMARKET_COMPILED": "0"},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    spent, digest = json.loads(done.stdout)
    return spent, digest


@pytest.mark.benchmark(group="compiled kernel")
@pytest.mark.parametrize("label", ["Conservative (all)", "QoPS", "MSB", "MRT"])
def test_the_qops_family_compiled_and_in_python(benchmark, label):
    try:
        resolve_trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    except TraceNotFoundError as exc:
        pytest.skip(str(exc))
    spent, digest = benchmark.pedantic(lambda: timed_run(label), rounds=1, iterations=1)
    python_s, python_digest = in_python(label)
    benchmark.extra_info.update(
        kernel="compiled" if compiled.is_compiled(capacity._kernel) else "python",
        run_cpu_s=round(spent, 3),
        python_run_cpu_s=round(python_s, 3),
        speedup=round(python_s / spent, 2),
    )
    assert digest == python_digest  # every job's outcome the same either way
