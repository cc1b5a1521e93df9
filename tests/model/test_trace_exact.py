"""A trace replay is exact: every job starts at the second that integer-second arithmetic says
(market/sim/clock.py snaps derived times to the trace's second grid). Checked against the
standalone EASY of market/inputs/workloads/deadlines.py run on whole seconds (an independent event
loop: no capacity profile, no Mesa, no floats but whole numbers of seconds)."""

from __future__ import annotations

import numpy as np
import pytest

from market import GridMarket
from market.inputs.scenario import validate
from tests.conftest import require_trace, synthetic_swf
from tests.easy_oracle import easy_schedule


def easy_replay(trace: str, **workload):
    scenario = validate(
        {
            "name": "exact",
            "resource_providers": [{"name": "pool", "capacity": 128, "price": 0.0}],
            "service_providers": [{"name": "site", "scheduler": "easy", "admission": "accept_all"}],
            "clients": [{"name": "users", "workload": {"kind": "swf", "trace": trace, **workload}}],
        }
    )
    jobs = GridMarket(scenario, seed=1).run().jobs.sort_values("job")
    spec = scenario.clients[0].workload
    prepared = spec.prepare(np.random.default_rng(0))
    seconds = [np.rint(x * 3600) for x in (prepared.arrival, prepared.runtime, prepared.estimate)]
    reference = easy_schedule(
        seconds[0], prepared.processors, seconds[1], seconds[2], prepared.capacity
    )
    return jobs, np.rint(jobs["start"].to_numpy() * 3600), reference


def test_every_job_starts_at_the_integer_second_reference_easy_says(tmp_path):
    # Arrivals and runtimes on a one-minute tick: many events share a second.
    trace = synthetic_swf(tmp_path / "tick.swf", n=600, procs=128, max_gap=120, tick=60)
    jobs, model, reference = easy_replay(str(trace), estimates="trace")
    assert (model == reference).all()
    assert jobs["swf_job"].notna().all()  # each job names its SWF job number


def test_the_first_10000_sdsc_sp2_jobs_replay_exactly():
    require_trace()
    jobs, model, reference = easy_replay(
        "SDSC-SP2-1998-4.2-cln.swf.gz", estimates="trace", first_jobs=10_000
    )
    assert len(jobs) == 10_000
    mismatched = np.flatnonzero(model != reference)
    assert mismatched.size == 0, (
        f"{mismatched.size} jobs start elsewhere, first job {mismatched[:1]}"
    )


@pytest.mark.parametrize("factor", [1.3])
def test_scaled_load_stays_on_the_second_grid(tmp_path, factor):
    trace = synthetic_swf(tmp_path / "t.swf", n=300, procs=128)
    jobs, model, reference = easy_replay(
        str(trace), estimates="trace", load_factor=factor, load_method="compress"
    )
    starts = jobs["start"].to_numpy() * 3600
    assert np.allclose(starts, np.rint(starts), atol=1e-6)  # whole seconds
    assert (model == reference).all()
