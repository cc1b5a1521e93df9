"""The batch site (agents/batch_site.py) and VARQ users in a market: EASY on a hand-made trace,
kill at wall time, and the invariants of a VARQ run on a synthetic trace."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from market.inputs.scenario import ScenarioError, validate
from market.inputs.swf import FIELDS, write_swf
from market.sim.model import GridMarket
from tests.conftest import synthetic_swf


def site_scenario(trace, **site) -> dict:
    return {
        "name": "site-test",
        "service_providers": [],
        "clients": [],
        "batch_sites": [{"name": "site", "trace": str(trace), **site}],
    }


def tiny_trace(path):
    # (submit s, runtime s, requested s, nodes) on a 4-node machine.
    jobs = [(0, 3600, 3600, 4), (10, 7200, 3600, 2), (20, 600, 600, 4), (30, 1800, 1800, 2)]
    records = pd.DataFrame(-1.0, index=range(len(jobs)), columns=list(FIELDS))
    records["job"] = np.arange(1, len(jobs) + 1)
    records[["submit", "runtime", "req_time", "procs"]] = np.array(jobs, dtype=float)
    records["status"] = 1
    return write_swf(path, records, {"MaxProcs": 4})


@pytest.mark.parametrize(("kill", "j3_start"), [(True, 2.0), (False, 3.0)])
def test_easy_backfills_and_kills_at_the_requested_wall_time(tmp_path, kill, j3_start):
    # J1 (4 nodes, 1 h) runs 0-1 h. At 1 h: J2 (2 nodes, requests 1 h, needs 2 h) starts; J3
    # (4 nodes) is the head, reserved at J2's requested end, 2 h; J4 (2 nodes, 0.5 h) fits
    # now and ends before 2 h: it backfills at 1 h. Killed at its request, J2 ends at 2 h and
    # J3 starts then; not killed, J2 holds its nodes to 3 h and J3 waits for it.
    model = GridMarket(validate(site_scenario(tiny_trace(tmp_path / "t.swf"),
                                              kill_at_walltime=kill)))  # fmt: skip
    model.run()
    jobs = model.batch_sites["site"].jobs
    starts = [jobs[i].start for i in range(4)]
    assert starts == pytest.approx([0.0, 1.0, j3_start, 1.0])
    assert jobs[1].killed is kill and jobs[1].end == pytest.approx(2.0 if kill else 3.0)
    # QBETS learnt J3's delay last: start - submission (20 s)
    assert model.batch_sites["site"].predictor.pooled.ordered[-1] == pytest.approx(
        j3_start - 20 / 3600
    )
    assert not model.running


def test_varq_run_invariants(tmp_path):
    trace = synthetic_swf(tmp_path / "s.swf", n=400, procs=16, max_gap=900)
    spec = site_scenario(trace, varq={"fraction": 0.3, "probability": 0.5, "deadline_interval": 6})
    model = GridMarket(validate(spec), seed=2)
    result = model.run()
    site = model.batch_sites["site"]
    user = model.varq_users[0]
    jobs = list(site.jobs.values())
    assert all(j.start is not None and j.end is not None and j.submit <= j.start for j in jobs)
    # Capacity never exceeded: nodes in use just after every start.
    events = sorted(
        [(j.start, j.nodes) for j in jobs] + [(j.end, -j.nodes) for j in jobs],
        key=lambda e: (e[0], e[1]),
    )  # ends first at equal times
    assert max(np.cumsum([n for _, n in events])) <= site.capacity
    for j in jobs:
        hold = max(0.0, j.hold_until - j.start) if j.hold_until is not None else 0.0
        assert j.end - j.start == pytest.approx(min(hold + j.runtime, j.request))
        assert j.killed == (hold + j.runtime > j.request + 1e-12)
    made = [r for r in user.records if r.job is not None]
    assert made and all(r.job.hold_until == r.deadline for r in made)
    for r in made:  # a job started by its deadline holds its nodes idle until then
        assert r.success == (r.job.start <= r.deadline + 1e-9)
        assert r.job.request == pytest.approx(r.walltime + r.deadline - r.job.submit)
        assert r.plan.probability >= 0.5
    row = result.sites.set_index("provider").loc["site/varq"]
    assert row.varq_jobs == len(made) and row.overhead_ratio >= 1.0
    assert row.varq_requests == len(user.records) + user.refused
    assert len(site.predictor.pooled.ordered) <= len(jobs)  # trimmed, never more
    bounded = [j for j in jobs if np.isfinite(j.bound)]  # predicted at submission
    assert row.qbets_jobs == len(bounded) > 0
    assert row.qbets_correct_pct == pytest.approx(
        100 * sum(j.start - j.submit <= j.bound for j in bounded) / len(bounded)
    )


def test_random_users_make_reservations(tmp_path):
    trace = synthetic_swf(tmp_path / "s.swf", n=300, procs=64, max_gap=1800)
    spec = site_scenario(trace, random_users=[{"name": "p50", "probability": 0.5}])
    result = GridMarket(validate(spec), seed=1).run()
    row = result.sites.set_index("provider").loc["site/p50"]
    assert row.varq_jobs > 0 and row.varq_success_pct >= 0


def test_bad_site_fields_are_one_line_errors(tmp_path):
    trace = synthetic_swf(tmp_path / "s.swf", n=50, procs=16)
    with pytest.raises(ScenarioError, match=r"batch_sites\.0\.varq\.probability"):
        validate(site_scenario(trace, varq={"probability": 1.0}))
    with pytest.raises(ScenarioError, match=r"service_providers: give at least one"):
        validate({"service_providers": [], "clients": []})
    from agents.batch_site import SiteError

    spec = site_scenario(trace, random_users=[{"nodes": [32]}])
    with pytest.raises(SiteError, match=r"random_users\.0\.nodes: 32 nodes is wider"):
        GridMarket(validate(spec))
