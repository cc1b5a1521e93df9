"""Benchmark: a 200-run sweep of the default scenario (its variants, replicated; no parameters) on
1 worker (in this process) and on 2 local worker processes, and on a local Dask cluster of 2.

Reports CPU seconds (this process's, plus, for the runs made in worker processes, the CPU time
each took there as the worker measured it: ``SweepReport.cpu_seconds``; a worker's start and
its messages are not counted, and a forkserver's workers are not this process's children, so
the operating system's count of finished children would miss them), runs per CPU second, the
overhead per run of the sweep machinery (planning, Parquet parts, merging, the manifest) over
the same 200 runs done as plain ``GridMarket(scenario, seed).run()`` calls in a loop, and, as
wall time (what parallel workers are for, so it depends on the machine's load), the speed-up of
2 workers over 1 (goal: >= 1.8x on 2 idle cores). Nothing is asserted on time. Run
with `make bench-suite`; the figures are printed at the end and stored in each benchmark's
``extra_info``.
"""

from __future__ import annotations

import math
import resource
import time

import pytest

from market import GridMarket
from market.experiments.batch import DaskCluster, InProcess, LocalProcesses, run_sweep
from market.experiments.sweep import SweepPlan
from market.inputs.scenario import load
from tests.conftest import DEFAULT_SCENARIO

RUNS = 200


def cpu() -> float:
    """CPU seconds of this process (its threads included, its children not)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


@pytest.fixture(scope="module")
def plan() -> SweepPlan:
    """The default scenario's variants, replicated until there are 200 runs."""
    scenario = load(DEFAULT_SCENARIO)
    replications = math.ceil(RUNS / max(1, len(scenario.variants)))
    scenario = scenario.with_overrides({"sweep": {"replications": replications}})
    start = time.process_time()
    plan = SweepPlan.from_scenario(scenario)
    plan.runs = plan.runs[:RUNS]  # replication-major, so every variant runs about as often
    plan.planning_seconds = time.process_time() - start
    return plan


@pytest.fixture(scope="module")
def figures() -> dict[str, float]:
    """Seconds per measurement, shared by the tests of this module (which run in order)."""
    return {}


def summary(found: dict[str, float]) -> list[str]:
    """The figures as lines of text."""
    lines = [f"sweep benchmark: {RUNS} runs of the default scenario (CPU seconds)"]
    plain = found.get("plain")
    if plain:
        lines.append(f"  plain loop of GridMarket.run: {plain:.1f} s, {RUNS / plain:.2f} runs/s")
    dask = "a local Dask cluster of 2 (its start in this process included)"
    for key, label in (("1", "1 worker (in process)"), ("2", "2 local processes"), ("dask", dask)):
        if key in found:
            line = f"  sweep on {label}: {found[key]:.1f} s, {RUNS / found[key]:.2f} runs/s"
            if key == "2" and "wall1" in found:
                line += f", wall-time speed-up {found['wall1'] / found['wall2']:.2f}x over 1 worker"
            lines.append(line)
    if plain and "1" in found:
        lines.append(
            f"  1 worker vs the plain loop: {1000 * (found['1'] - plain) / RUNS:+.1f} ms/run"
        )
    if "overhead" in found:
        lines.append(f"  sweep machinery per run (tiny runs, best of 3): "
                     f"{1000 * found['overhead']:.2f} ms")  # fmt: skip
    if "planning" in found:
        lines.append(f"  planning {RUNS} runs: {1000 * found['planning']:.0f} ms")
    return lines


def _once(benchmark, function):
    return benchmark.pedantic(function, rounds=1, iterations=1, warmup_rounds=0)


@pytest.mark.benchmark(group="sweep-200")
def test_plain_runs(benchmark, plan, figures):
    def loop():
        for run in plan.runs:
            GridMarket(run.scenario, seed=run.seed).run()

    start = cpu()
    _once(benchmark, loop)
    figures["plain"] = cpu() - start
    figures["planning"] = plan.planning_seconds
    benchmark.extra_info["runs_per_s"] = RUNS / figures["plain"]


@pytest.mark.benchmark(group="sweep-200")
@pytest.mark.parametrize("workers", [1, 2])
def test_sweep_on_local_workers(benchmark, plan, figures, tmp_path, workers):
    executor = InProcess() if workers == 1 else LocalProcesses(workers)
    start, wall = cpu(), time.perf_counter()
    report = _once(benchmark, lambda: run_sweep(plan, tmp_path, executor=executor, progress=False))
    seconds = cpu() - start + (report.cpu_seconds if workers > 1 else 0.0)  # (1: in this process)
    figures[str(workers)] = seconds
    figures[f"wall{workers}"] = time.perf_counter() - wall
    assert len(report.ran) == RUNS and not report.failed
    benchmark.extra_info["runs_per_s"] = RUNS / seconds
    benchmark.extra_info["cpu_s"] = seconds  # (the timer's figure is this process's alone)
    if workers == 1 and "plain" in figures:
        benchmark.extra_info["overhead_ms_per_run"] = 1000 * (seconds - figures["plain"]) / RUNS
    if workers == 2 and "wall1" in figures:
        benchmark.extra_info["wall_speedup"] = figures["wall1"] / figures["wall2"]


@pytest.mark.benchmark(group="sweep-200")
def test_sweep_on_a_local_dask_cluster(benchmark, plan, figures, tmp_path):
    start = cpu()
    executor = DaskCluster(None, 2)
    report = _once(benchmark, lambda: run_sweep(plan, tmp_path, executor=executor, progress=False))
    seconds = figures["dask"] = cpu() - start + report.cpu_seconds
    assert len(report.ran) == RUNS and not report.failed
    benchmark.extra_info["runs_per_s"] = RUNS / seconds
    benchmark.extra_info["cpu_s"] = seconds


@pytest.mark.benchmark(group="sweep-overhead")
def test_sweep_overhead_per_run(benchmark, figures, tmp_path, capsys):
    """What the sweep adds to each run (a Parquet part, the merges, the manifest, the loop),
    measured on 200 tiny runs (5 jobs), where it is not lost in the noise of real runs."""
    scenario = load(DEFAULT_SCENARIO).with_overrides(
        {"clients.0.workload.jobs": 5, "variants": {}, "sweep": {"replications": RUNS}}
    )
    tiny = SweepPlan.from_scenario(scenario)
    best = math.inf
    for attempt in range(3):
        start = time.process_time()
        for run in tiny.runs:
            GridMarket(run.scenario, seed=run.seed).run()
        plain = time.process_time() - start
        start = time.process_time()
        run_sweep(tiny, tmp_path / str(attempt), executor=InProcess(), progress=False)
        best = min(best, (time.process_time() - start - plain) / RUNS)
    figures["overhead"] = best
    benchmark.extra_info["overhead_ms_per_run"] = 1000 * best
    _once(benchmark, lambda: None)
    with capsys.disabled():
        print("\n" + "\n".join(summary(figures)))
