"""The mean bounded slowdown with a 10 s threshold (market/results/metrics/scheduling.py):
BSLD = max(1, (wait + run) / max(run, 10 s)), averaged over the completed jobs, on a hand-worked
case and against the per-job table of a trace replay."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from market.inputs.scenario import validate
from market.results.metrics import METRICS, ProviderRun
from market.results.metrics.scheduling import bounded_slowdowns
from market.sim.model import GridMarket
from tests.conftest import synthetic_swf

H = 1.0 / 3600.0  # one second, in hours

# (arrival, start, end) in hours, worked by hand:
JOBS = [
    (0.0, 0.0, 1.0),  # no wait, 1 h run: 1 / 1 = 1
    (0.0, 1.0, 1.5),  # 1 h wait, 0.5 h run: 1.5 / 0.5 = 3
    (0.5, 1.5, 1.5 + 5 * H),  # 1 h wait, 5 s run (counts as 10 s): 3605 s / 10 s = 360.5
]
BSLD = (1.0 + 3.0 + 360.5) / 3  # 121.5


def provider_run(jobs) -> ProviderRun:
    """A provider's run whose job columns are ``jobs`` (an unfinished job: end None)."""
    arrival, start, end = (np.array(c, dtype=float) for c in zip(*jobs, strict=True))
    model = SimpleNamespace(time=2.0, end_time=2.0, first_arrival=0.0, last_arrival=0.5)
    sp = SimpleNamespace(records=dict.fromkeys(range(len(jobs))))
    columns = {"arrival": arrival, "start": start, "end": end}
    return ProviderRun(model, sp, columns)


def test_the_hand_worked_three_jobs():
    arrival, start, end = (np.array(c) for c in zip(*JOBS, strict=True))
    assert bounded_slowdowns(arrival, start, end).tolist() == pytest.approx([1.0, 3.0, 360.5])
    assert METRICS["bounded_slowdown_10s"].compute(provider_run(JOBS)) == pytest.approx(BSLD)


def test_only_completed_jobs_count():
    waiting = (1.0, None, None)  # arrived, never started: not in the mean
    running = (1.0, 1.2, None)  # started, not finished
    assert METRICS["bounded_slowdown_10s"].compute(
        provider_run([*JOBS, waiting, running])
    ) == pytest.approx(BSLD)
    assert math.isnan(METRICS["bounded_slowdown_10s"].compute(provider_run([waiting])))


def test_a_trace_replay_reports_the_mean_of_its_jobs_bounded_slowdowns(tmp_path):
    trace = synthetic_swf(tmp_path / "t.swf", n=120, procs=16, max_gap=600)
    scenario = validate({
        "name": "replay",
        "resource_providers": [{"name": "pool", "capacity": 16, "price": 0.0}],
        "service_providers": [{"name": "site", "scheduler": "easy", "admission": "accept_all"}],
        "clients": [{"name": "users", "workload": {"kind": "swf", "trace": str(trace),
                                                   "estimates": "trace"}}],
    })  # fmt: skip
    result = GridMarket(scenario, seed=1).run()
    jobs = result.jobs[result.jobs["end"].notna()]
    by_hand = [
        max(1.0, (end - arrival) / max(end - start, 10 * H))
        for arrival, start, end in zip(jobs["arrival"], jobs["start"], jobs["end"], strict=True)
    ]
    (row,) = result.summary.to_dict("records")
    assert row["bounded_slowdown_10s"] == pytest.approx(math.fsum(by_hand) / len(by_hand))
    assert row["bounded_slowdown_10s"] > 1.0  # some jobs waited on the 16 processors
