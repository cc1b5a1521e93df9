"""Uncertain rented capacity in whole runs (Popovici & Wilkes SC'05 §3.5, §6, Figure 7)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from market import GridMarket
from tests.model.test_market import max_concurrent

SIGMA = "resource_providers.0.uncertainty.sigma"
RISK = "service_providers.0.risk"


def runs(scenario, seeds, **sets):
    variant = scenario.with_overrides(sets)
    return [GridMarket(variant, seed=seed).run() for seed in seeds]


def test_without_uncertainty_the_risk_aware_provider_decides_as_first_profit(default_scenario):
    scenario = default_scenario.with_overrides({"clients.0.workload.jobs": 120})
    (aware,) = runs(scenario, [5], **{RISK: 0.05})
    (oblivious,) = runs(scenario, [5])
    pd.testing.assert_frame_equal(aware.jobs, oblivious.jobs)
    pd.testing.assert_frame_equal(aware.summary, oblivious.summary)


def test_admission_falls_as_uncertainty_rises_for_the_risk_aware_only(default_scenario):
    # Figure 7a: "the uncertainty-aware schedulers admit fewer jobs as the resource-uncertainty
    # increases to reduce risk, while the others do not"
    def admitted(sigma, risk):
        sets = {SIGMA: sigma} | ({RISK: risk} if risk else {})
        return sum(r.summary.accepted_pct[0] for r in runs(default_scenario, range(3), **sets)) / 3

    aware = [admitted(sigma, 0.05) for sigma in (0, 2, 4)]
    assert aware[0] > aware[2] + 10
    assert aware[1] >= aware[2]
    oblivious = [admitted(sigma, None) for sigma in (0, 4)]
    assert abs(oblivious[0] - oblivious[1]) < 5


@pytest.mark.parametrize("risk", [0.05, 0.2])
def test_risk_aware_runs_never_lose_money_at_the_default_load(default_scenario, risk):
    # §6: "We saw cases with negative profit with the uncertainty-oblivious schedulers at high
    # uncertainty, but did not see this for the uncertainty-aware ones."
    for sigma in (1, 3):
        for result in runs(default_scenario, range(3), **{SIGMA: sigma, RISK: risk}):
            assert result.summary.profit[0] > 0


@pytest.mark.parametrize(
    "uncertainty",
    [
        {"sigma": 3.0},
        {"sigma": 2.0, "distribution": "laplace", "period": 0.25},
        {"overbooking": 0.3},
        {"outage_rate": 0.2, "outage_duration": 2.0, "outage_share": 0.6},
    ],
)
@pytest.mark.parametrize("reshape", [True, False])
def test_when_capacity_drops_no_job_is_lost_or_run_twice(default_scenario, uncertainty, reshape):
    scenario = default_scenario.with_overrides(
        {
            "clients.0.workload.jobs": 80,
            "resource_providers.0.uncertainty": uncertainty,
            "service_providers.0.reshape": reshape,
        }
    )
    model = GridMarket(scenario, seed=12)
    result = model.run()
    jobs = result.jobs
    assert result.finished
    accepted = jobs[jobs.committed]
    assert accepted.end.notna().all() and accepted.job.is_unique
    assert jobs[~jobs.committed].start.isna().all()
    assert max_concurrent(jobs) <= 10
    assert math.fsum(result.balances.values()) == pytest.approx(0.0, abs=1e-6)
    sp = model.service_providers["sp"]
    if not reshape:
        assert sp.reshaped == 0
    for r in sp.records.values():
        if r.end is not None:
            assert r.processors in r.job.shapes
            assert r.end - r.start == pytest.approx(r.job.runtime(r.processors))


def test_oblivious_providers_reshape_jobs_that_cannot_get_their_processors(default_scenario):
    scenario = default_scenario.with_overrides({SIGMA: 3.0})
    model = GridMarket(scenario, seed=3)
    model.run()
    sp = model.service_providers["sp"]
    assert sp.reshaped > 0
    planned = [r.decision.processors for r in sp.records.values() if r.committed]
    ran = [r.processors for r in sp.records.values() if r.committed]
    assert sum(ran) < sum(planned), "short capacity: jobs ran narrower than planned (Fig. 7b)"


def test_uncertain_runs_are_deterministic(default_scenario):
    scenario = default_scenario.with_overrides(
        {
            "clients.0.workload.jobs": 60,
            SIGMA: 2.0,
            RISK: 0.1,
            "resource_providers.0.uncertainty.outage_rate": 0.1,
        }
    )
    a, b = (GridMarket(scenario, seed=4).run() for _ in range(2))
    pd.testing.assert_frame_equal(a.jobs, b.jobs)


def test_a_price_schedule_is_what_rent_costs(default_scenario):
    scenario = default_scenario.with_overrides(
        {
            "clients.0.workload.jobs": 40,
            "resource_providers.0.price_changes": [{"at": 2.0, "price": 6.0}],
        }
    )
    result = GridMarket(scenario, seed=2).run()
    jobs = result.jobs.dropna(subset=["start"])
    expected = sum(
        n * (3.0 * max(0.0, min(e, 2.0) - s) + 6.0 * max(0.0, e - max(s, 2.0)))
        for n, s, e in zip(jobs.processors, jobs.start, jobs.end, strict=True)
    )
    assert result.summary.rent[0] == pytest.approx(expected)
