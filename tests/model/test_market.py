"""Whole-market runs: invariants (capacity, money, every accepted job completed once),
determinism, several providers, and the default scenario end to end."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from agents.service_provider import ServiceProviderAgent
from market import GridMarket
from market.core.ledger import Kind
from market.inputs.scenario import validate
from tests.conftest import make_job


def small(scenario, jobs=60, **sets):
    """The default scenario cut to ``jobs`` jobs, with further overrides."""
    return scenario.with_overrides({"clients.0.workload.jobs": jobs, **sets})


def max_concurrent(jobs: pd.DataFrame) -> int:
    """Most processors held at once, from the per-job table's (start, end, processors)."""
    ran = jobs.dropna(subset=["start"])
    events = sorted(
        [(e, -n) for e, n in zip(ran.end, ran.processors, strict=True)]
        + [(s, n) for s, n in zip(ran.start, ran.processors, strict=True)]
    )  # at equal times releases (negative) come first
    held = peak = 0
    for _, n in events:
        held += n
        peak = max(peak, held)
    return int(peak)


@pytest.mark.parametrize("admission", ["positive_opportunity", "accept_all"])
def test_capacity_is_never_exceeded_and_every_accepted_job_runs_once(default_scenario, admission):
    scenario = small(default_scenario, 120, **{"service_providers.0.admission": admission})
    result = GridMarket(scenario, seed=3).run()
    jobs = result.jobs
    assert result.finished
    assert max_concurrent(jobs) <= 10
    accepted = jobs[jobs.committed]
    assert accepted.job.is_unique
    assert accepted.end.notna().all(), "every accepted job completes (§3.1)"
    assert (accepted.start >= accepted.arrival).all()
    assert jobs[~jobs.committed].start.isna().all(), "a rejected job never runs"
    assert (accepted.processors >= 1).all() and (accepted.processors <= 5).all()


def test_response_time_and_slowdown_of_jobs_without_deadlines(default_scenario):
    result = GridMarket(small(default_scenario, 60), seed=6).run()
    done = result.jobs.dropna(subset=["end"])
    row = result.summary.iloc[0]
    assert row.mean_response == pytest.approx((done.end - done.arrival).mean())
    slowdown = ((done.end - done.arrival) / (done.end - done.start).clip(lower=10 / 3600)).clip(1)
    assert row.mean_slowdown == pytest.approx(slowdown.mean())
    assert row.deadlines_missed == 0 and row.unadmitted_pct == 100 - row.accepted_pct


def test_jobs_run_for_their_amdahl_runtime(default_scenario):
    model = GridMarket(small(default_scenario, 40), seed=5)
    model.run()
    sp = model.service_providers["sp"]
    done = [r for r in sp.records.values() if r.end is not None]
    assert done
    for r in done:
        assert r.end - r.start == pytest.approx(r.job.runtime(r.processors))


def test_money_is_conserved_and_profit_is_revenue_minus_rent(default_scenario):
    model = GridMarket(small(default_scenario, 120), seed=11)
    result = model.run()
    balances = result.balances
    assert math.fsum(balances.values()) == pytest.approx(0.0, abs=1e-6)
    row = result.summary.iloc[0]
    ledger = model.ledger
    assert row.profit == pytest.approx(balances["sp"])
    assert row.profit == pytest.approx(row.revenue - row.rent)
    assert balances["rp"] == pytest.approx(ledger.received("rp", Kind.RENT))
    assert balances["clients"] == pytest.approx(
        ledger.received("clients", Kind.PENALTY) - ledger.paid("clients", Kind.PAYMENT)
    )
    jobs = result.jobs
    assert row.revenue == pytest.approx(jobs.paid.sum())
    assert row.rent == pytest.approx(jobs.rent.sum())
    # rent is price x processors x hours held
    held = (jobs.processors * (jobs.end - jobs.start)).sum()
    assert row.rent == pytest.approx(3.0 * held)


def test_same_seed_same_result_other_seed_different(default_scenario):
    scenario = small(default_scenario, 80)
    a, b = GridMarket(scenario, seed=21).run(), GridMarket(scenario, seed=21).run()
    pd.testing.assert_frame_equal(a.summary, b.summary)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    pd.testing.assert_frame_equal(a.timeseries, b.timeseries)
    c = GridMarket(scenario, seed=22).run()
    assert not a.jobs.arrival.equals(c.jobs.arrival)
    assert a.summary.profit.iloc[0] != c.summary.profit.iloc[0]


def test_policies_see_the_same_job_stream_on_the_same_seed(default_scenario):
    scenario = small(default_scenario, 50)
    other = scenario.with_overrides({"service_providers.0.admission": "accept_all"})
    a, b = GridMarket(scenario, seed=4).run(), GridMarket(other, seed=4).run()
    cols = ["job", "arrival", "work", "kind"]
    pd.testing.assert_frame_equal(a.jobs[cols], b.jobs[cols])


def test_admission_control_beats_accepting_everything_under_overload(default_scenario):
    # §3.4: "simply accepting all jobs did poorly under overload: admission control is a necessity"
    profits = {}
    for admission in ("positive_opportunity", "accept_all"):
        scenario = default_scenario.with_overrides({"service_providers.0.admission": admission})
        runs = [GridMarket(scenario, seed=s).run().summary.iloc[0] for s in range(3)]
        profits[admission] = sum(r.profit_rate for r in runs) / len(runs)
    assert profits["positive_opportunity"] > 0
    assert profits["positive_opportunity"] > profits["accept_all"]


def test_default_scenario_end_to_end(default_scenario):
    result = GridMarket(default_scenario).run()
    row = result.summary.iloc[0]
    assert result.finished
    assert row.offered == 200
    assert 0 < row.accepted < 200, "under Table 1's overload some jobs are turned away"
    assert row.completed == row.accepted
    assert 80 < row.utilization <= 100, "overloaded: the pool is kept busy (Figure 3a)"
    assert 1 <= row.mean_processors <= 5
    assert row.profit > 0 and row.profit_rate == pytest.approx(row.profit / row.end_time)
    assert set(result.timeseries.columns) >= {"time", "provider", "profit", "profit_rate",
                                              "utilization", "queue_length"}  # fmt: skip
    assert result.timeseries.time.is_monotonic_increasing
    assert result.timeseries.profit.iloc[-1] == pytest.approx(row.profit)
    decided = result.jobs
    assert decided.reason.isin(["profitable", "unprofitable", "displaces", "no-fit"]).all()
    assert (decided.detail.str.len() > 0).all()


def test_two_providers_compete_for_one_client_under_best_quote(default_scenario):
    data = small(default_scenario, 80).model_dump()
    data["resource_providers"] = [
        {"name": "cheap", "capacity": 10, "price": 2.0},
        {"name": "dear", "capacity": 10, "price": 4.0},
    ]
    data["service_providers"] = [
        {"name": "A", "resource_provider": "cheap"},
        {"name": "B", "resource_provider": "dear", "admission": "accept_all"},
    ]
    model = GridMarket(validate(data), seed=2)
    result = model.run()
    jobs = result.jobs
    assert set(jobs.provider) == {"A", "B"}
    assert jobs.groupby("job").size().eq(2).all(), "every job is quoted by both"
    assert jobs.groupby("job").committed.sum().le(1).all(), "and given to at most one"
    for name, sp in model.service_providers.items():
        assert max_concurrent(jobs[jobs.provider == name]) <= 10
        assert sp.idle
    assert math.fsum(result.balances.values()) == pytest.approx(0.0, abs=1e-6)
    # best_quote: a committed job went to the provider promising the higher value
    quotes = jobs.pivot(index="job", columns="provider", values="expected_value")
    accepted = jobs.pivot(index="job", columns="provider", values="accepted")
    winners = jobs[jobs.committed].set_index("job").provider
    for job, winner in winners.items():
        other = "B" if winner == "A" else "A"
        if accepted.loc[job, other]:
            assert quotes.loc[job, winner] >= quotes.loc[job, other]


def test_timeseries_is_sampled_per_provider(default_scenario):
    scenario = small(default_scenario, 30)
    model = GridMarket(scenario, seed=1)
    result = model.run()
    ts = result.timeseries
    assert (ts.provider == "sp").all()
    times = ts.time.to_numpy()
    assert times[0] == 0.0
    assert list(times[1:] - times[:-1]) == pytest.approx(
        [scenario.sample_interval] * (len(times) - 1)
    )
    assert ((ts.utilization >= 0) & (ts.utilization <= 1)).all()
    assert model.datacollector.get_agenttype_vars_dataframe(ServiceProviderAgent).shape[0] == len(
        ts
    )


def test_stepping_event_by_event_reaches_the_same_end(default_scenario):
    scenario = small(default_scenario, 30)
    whole = GridMarket(scenario, seed=8).run()
    model = GridMarket(scenario, seed=8)
    times = []
    while model.running and model.step_event():
        times.append(model.time)
    assert times == sorted(times) and len(set(times)) == len(times)
    assert not model.running and model.end_time == whole.summary.end_time.iloc[0]
    stepped = model.result()
    pd.testing.assert_frame_equal(stepped.jobs, whole.jobs)
    assert model.next_event_time() is None and model.step_event() is False


def test_a_decision_can_reorder_the_queue(default_scenario):
    from dataclasses import replace

    model = GridMarket(small(default_scenario, 0), seed=1)
    sp = model.service_providers["sp"]
    jobs = [make_job(i, 1, 100, arrival=0.0) for i in range(3)]
    for job in jobs[:2]:
        sp.quote(job)
        sp.commit(job)
    decision = sp.quote(jobs[2])
    sp.records[2].decision = replace(decision, accepted=True, queue_order=(2, 0, 1))
    sp.commit(jobs[2])
    assert [j.id for j in sp.queue] == [2, 0, 1]
