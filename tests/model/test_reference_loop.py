"""The benchmarks' minimal reference loop (tests/benchmarks/easy_loop.py) replays a trace as the
market's ``easy`` + ``accept_all`` replay does: the same start for every job, so the same
utilization and mean wait (the speed ratios compare the same work)."""

from __future__ import annotations

import json

import numpy as np

from market import GridMarket
from tests.benchmarks import easy_loop
from tests.benchmarks.replay_script import scenario
from tests.conftest import require_trace, synthetic_swf


def both(trace: str, jobs: int | None = None, capacity: int = 128):
    capacity_read, arrival, procs, runtime, estimate = easy_loop.read_jobs(trace, jobs)
    assert capacity_read == capacity
    start = easy_loop.easy(arrival, procs, runtime, estimate, capacity)
    result = GridMarket(scenario(jobs, trace, capacity), seed=1).run()
    frame = result.jobs.sort_values("job")
    return (capacity, arrival, procs, runtime, start), frame, result


def test_the_loop_starts_every_job_when_the_market_does(tmp_path):
    # Arrivals and runtimes on a one-minute tick: many events share a second; job 2 is cancelled
    # before it ran (dropped by both), estimates are 2x the runtime or a short 30 s request.
    trace = synthetic_swf(tmp_path / "tick.swf", n=600, procs=128, max_gap=120, tick=60)
    (capacity, arrival, procs, runtime, start), frame, result = both(str(trace))
    assert len(start) == len(frame) == 599
    assert (np.rint(frame["start"].to_numpy() * 3600) == np.array(start)).all()
    utilization, wait = easy_loop.measures(capacity, arrival, procs, runtime, start)
    assert np.isclose(result.summary.utilization.iloc[0], utilization, rtol=1e-12)
    assert np.isclose((frame.start - frame.arrival).mean() * 3600, wait, rtol=1e-12)
    assert np.isclose(result.summary.mean_wait.iloc[0] * 3600, wait, rtol=1e-12)
    assert wait > 0  # the queue was used: backfilling had something to do


def test_the_loop_replays_the_first_3000_sdsc_sp2_jobs_as_the_market_does():
    (_, _, _, _, start), frame, _ = both(str(require_trace()), 3000)
    assert (np.rint(frame["start"].to_numpy() * 3600) == np.array(start)).all()


def test_mesa_events_alone_runs_one_event_per_arrival_and_per_completion(tmp_path, capsys):
    # The bench's scale row for Mesa's own scheduling: every job arrives and completes, each as
    # one Mesa event, at the times the loop gives (599 jobs kept of 600, as above).
    from tests.benchmarks import mesa_events

    trace = synthetic_swf(tmp_path / "tick.swf", n=600, procs=128, max_gap=120, tick=60)
    assert mesa_events.main([str(trace)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["jobs"] == 599 and printed["events"] == 2 * 599
    _, arrival, procs, runtime, estimate = easy_loop.read_jobs(str(trace))
    start = easy_loop.easy(arrival, procs, runtime, estimate, 128)
    ends = [(s + r) / 3600 for s, r in zip(start, runtime, strict=True)]
    model = mesa_events.EventsAlone([a / 3600 for a in arrival], ends)
    model.run_until(max(ends) - 1e-9)  # just before the last end: one completion still to come
    assert model.replay.arrived == 599 and model.replay.completed == 599 - ends.count(max(ends))
