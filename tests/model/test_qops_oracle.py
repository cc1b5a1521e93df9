"""QoPS in a whole market against the plain Figure 3 of tests/qops_oracle.py, decision by
decision, on a synthetic trace whose load is raised by duplication: with duplicates at random
times and with duplicates submitted with their originals (the VQoPS paper's rule), where a job
admitted to start at its arrival must not be pushed back by its twin arriving in the same
instant (start_due in agents/policies/deadline_schedule.py)."""

from __future__ import annotations

import pytest

from agents.policies import deadline_schedule
from market import GridMarket
from market.inputs.scenario import load
from tests import qops_oracle
from tests.conftest import ROOT, synthetic_swf

HOUR = 3600.0


def market(tmp_path, duplicates: str):
    trace = synthetic_swf(tmp_path / "t.swf", n=160, procs=16, seed=5, max_gap=600, tick=60)
    scenario = dict(load(ROOT / "scenarios" / "qops" / "sdsc_load.yaml").expand())["QoPS"]
    scenario = scenario.with_overrides(
        {
            "resource_providers.0.capacity": 16,
            "clients.0.workload.trace": str(trace),
            "clients.0.workload.first_jobs": 160,
            "clients.0.workload.load_factor": 1.6,
            "clients.0.workload.duplicate_arrival": duplicates,
            "clients.0.workload.stringency": 0.2,
        }
    )
    model = GridMarket(scenario, seed=1)
    model.run()
    (provider,) = [a for a in model.agents if hasattr(a, "records")]
    return provider.records


def decisions(records) -> tuple[dict[int, bool], list[qops_oracle.Job]]:
    ours, jobs = {}, []
    for record in records.values():
        job = record.job
        n = job.shapes[-1]
        ours[job.id] = record.decision.accepted
        # whole seconds, as in the trace: ends and arrivals then coincide exactly
        arrival, runtime = round(job.arrival * HOUR), round(job.predicted_runtime(n) * HOUR)
        jobs.append(qops_oracle.Job(job.id, arrival, n, runtime, job.deadline * HOUR))
    return ours, jobs


@pytest.mark.parametrize("duplicates", ["random", "same"])
def test_qops_decides_as_the_plain_figure_3(tmp_path, duplicates):
    ours, jobs = decisions(market(tmp_path, duplicates))
    assert 0 < sum(ours.values()) < len(ours)  # it turns some jobs away
    assert qops_oracle.run(jobs, 16) == ours


def test_without_the_started_rule_a_twin_can_push_back_its_original(tmp_path, monkeypatch):
    monkeypatch.setattr(deadline_schedule, "start_due", lambda ctx, waiting: (ctx, waiting, []))
    ours, jobs = decisions(market(tmp_path, "same"))
    assert qops_oracle.run(jobs, 16) != ours
