"""The EASY replay of an SWF trace (every job admitted, user estimates, a zero-price pool) as a
script, for instruction counts (A/B between commits on a noisy machine, where time is not a
measure) and for the CPU time of ``GridMarket.run()`` alone:

    valgrind --tool=callgrind --callgrind-out-file=F python tests/benchmarks/replay_script.py build
    valgrind --tool=callgrind --callgrind-out-file=F python tests/benchmarks/replay_script.py run
    python tests/benchmarks/replay_script.py time [JOBS|all] [TRACE CAPACITY]

The ``run`` count minus the ``build`` count is the run (result included) of the first N SDSC-SP2
jobs (default 8000). A 60-job run first takes the imports and first-call costs out of both, and
a collection after the build pays the collector's debt there: otherwise the run's first
allocation pays for whichever collection the process's history has made due, a difference of
about 70 M instructions that has nothing to do with the run. ``time`` prints, as JSON, the CPU
seconds of the build and of ``run()`` (no warm-up: a fresh process's run), the utilization and
the mean wait, and the CPU seconds of the planner alone on the same jobs
(:func:`agents.replay.replay_starts`: the same planning, in a loop without agents, Mesa events,
records or money), which must give every job the same start. Needs the trace
(``GRIDMARKET_TRACES``).
"""

from __future__ import annotations

import gc
import json
import sys
import time

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"


def scenario_data(jobs: int | None, trace: str = SDSC, capacity: int = 128) -> dict:
    """The replay as scenario data (``jobs`` None: the whole trace)."""
    workload = {"kind": "swf", "trace": trace, "estimates": "trace"}
    if jobs is not None:
        workload["first_jobs"] = jobs
    return {
        "name": "sdsc-easy",
        "sample_interval": 24.0,
        "resource_providers": [{"name": "pool", "capacity": capacity, "price": 0.0}],
        "service_providers": [{"name": "site", "scheduler": "easy", "admission": "accept_all"}],
        "clients": [{"name": "users", "workload": workload}],
    }


def scenario(jobs: int | None, trace: str = SDSC, capacity: int = 128):
    from market.inputs.scenario import validate

    return validate(scenario_data(jobs, trace, capacity))


def timed(jobs: int | None, trace: str, capacity: int) -> dict:
    """CPU seconds of building and running the replay, and its utilization and mean wait."""
    from market import GridMarket

    start = time.process_time()
    model = GridMarket(scenario(jobs, trace, capacity), seed=1)
    built = time.process_time()
    result = model.run()
    ran = time.process_time()
    frame = result.jobs
    planner_cpu_s = planner_alone(model, capacity, frame)
    return {
        "jobs": len(frame),
        "build_cpu_s": built - start,
        "run_cpu_s": ran - built,
        "utilization": float(result.summary.utilization.iloc[0]),
        "mean_wait_s": float((frame.start - frame.arrival).mean() * 3600.0),
        "planner_cpu_s": planner_cpu_s,
    }


def planner_alone(model, capacity: int, frame) -> float:
    """CPU seconds of :func:`agents.replay.replay_starts` replaying the model's jobs (EASY,
    accept all, whole seconds); a RuntimeError if a job starts otherwise than in the model."""
    from agents.policies.admission import AcceptAll
    from agents.policies.backfill import EASY
    from agents.replay import replay_starts

    jobs = [record.job for sp in model.service_providers.values() for record in sp.records.values()]
    begin = time.process_time()
    starts = replay_starts(jobs, capacity, EASY(), AcceptAll(), ticks_per_hour=3600)
    spent = time.process_time() - begin
    by_job = dict(zip(frame.job.tolist(), frame.start.tolist(), strict=True))
    if any(not _same(by_job[job.id], at) for job, at in zip(jobs, starts, strict=True)):
        raise RuntimeError("the planner alone started a job otherwise than the model")
    return spent


def _same(a: float, b: float) -> bool:
    return a == b or (a != a and b != b)  # (NaN: never started, in both)


if __name__ == "__main__":  # (the model imported here: compare.py imports this module)
    from market import GridMarket

    mode = sys.argv[1]
    count = sys.argv[2] if len(sys.argv) > 2 else "8000"
    jobs = None if count == "all" else int(count)
    if mode == "time":
        trace, capacity = (sys.argv[3], int(sys.argv[4])) if len(sys.argv) > 4 else (SDSC, 128)
        print(json.dumps(timed(jobs, trace, capacity)))
        sys.exit(0)
    GridMarket(scenario(60), seed=1).run()  # warm-up
    model = GridMarket(scenario(jobs), seed=1)
    gc.collect()  # the build's collector debt paid in the build (see above)
    if mode == "run":
        print(model.run().summary.completed.iloc[0])
