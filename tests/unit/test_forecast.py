"""Uncertain capacity (Popovici & Wilkes SC'05 §3.5): availability model, plan probability
(exact cases and Monte Carlo), planning levels, risk-bounded admission, price schedules."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import norm

from agents.policies import PlanContext, make_admission, make_scheduler
from agents.policies.risk import plan_within_risk
from market.core.forecast import AvailabilityModel, Forecast
from market.core.rent import PriceSchedule
from tests.conftest import make_job


def at(start, end, processors):
    return SimpleNamespace(start=start, end=end, processors=processors)


def test_availability_without_error_is_the_forecast_cut_to_the_pool():
    model = AvailabilityModel(10, 0.0)
    assert [model.prob_at_least(8.0, k) for k in (0, 8, 9, 11)] == [1.0, 1.0, 0.0, 0.0]
    assert model.realise(12.4, 0.0) == 10 and model.realise(-3, 0.0) == 0
    assert model.quantile(10.0, 0.05) == 10


def test_normal_availability_tail_and_quantile():
    model = AvailabilityModel(10, 1.0)
    # A = round(10 + e) cut to 10: P(A >= 10) = P(e >= -0.5) = Phi(0.5)
    assert model.prob_at_least(10.0, 10) == pytest.approx(norm.cdf(0.5))
    assert model.prob_at_least(10.0, 9) == pytest.approx(norm.cdf(1.5))
    assert model.prob_at_least(10.0, 11) == 0.0
    # Phi(1.5) = 0.933 < 0.95 <= Phi(2.5) = 0.994: at 5 % risk plan on 8, at 10 % on 9
    assert model.quantile(10.0, 0.05) == 8
    assert model.quantile(10.0, 0.10) == 9
    assert model.quantile(10.0, 0.40) == 10


@pytest.mark.parametrize("name", ["normal", "laplace", "uniform", "logistic"])
def test_every_error_distribution_has_the_asked_standard_deviation(name, rng=None):
    model = AvailabilityModel(1000, 3.0, name)
    draws = [model.sample(500.0, np.random.default_rng(i)) for i in range(4000)]
    assert np.std(draws) == pytest.approx(3.0, rel=0.08)
    assert np.mean(draws) == pytest.approx(500.0, abs=0.3)


def forecast(now=0.5, sigma=1.0, leases=()):
    return Forecast(now, 1.0, 10.0, AvailabilityModel(10, sigma), tuple(leases))


def test_plan_probability_exact_cases():
    f = forecast()
    p9, p10 = norm.cdf(1.5), norm.cdf(0.5)
    assert f.plan_probability([]) == 1.0
    # a start now counts too: tenants plan on the forecast, not on what is there
    assert f.plan_probability([at(0.5, 3, 10)]) == pytest.approx(p10)
    # one start in period 1 needing 9 processors
    assert f.plan_probability([at(1.2, 3, 9)]) == pytest.approx(p9)
    # two starts in period 1: the most held after any of them (4 + 6 = 10) counts, once
    assert f.plan_probability([at(1.2, 3, 4), at(1.5, 3, 6)]) == pytest.approx(p10)
    # starts in periods 1 and 2 (the first job has ended): independent, so a product
    assert f.plan_probability([at(1.0, 1.5, 9), at(2.0, 3, 9)]) == pytest.approx(p9 * p9)
    # a lease held until 1.5 counts at a start at 1.2 (4 + 5), not at one at 2.0
    g = forecast(leases=[(1.5, 4)])
    assert g.plan_probability([at(1.2, 2, 5)]) == pytest.approx(p9)
    assert g.plan_probability([at(2.0, 3, 5)]) == pytest.approx(norm.cdf(5.5))
    assert forecast(sigma=0.0).plan_probability([at(1.2, 3, 10)]) == 1.0


def test_plan_probability_matches_monte_carlo():
    rng = np.random.default_rng(7)
    f = forecast(now=0.0, sigma=1.5, leases=[(2.5, 3)])
    # period 0 needs 3 + 4 = 7; period 1 needs 3 + 4 + 2 = 9 at t=1.0; period 3 needs
    # 2 + 6 + 1 = 9 at t=3.2.  P(A >= k) = sf((k - 0.5 - 10) / 1.5)
    plan = [at(0.0, 1.2, 4), at(1.0, 4.0, 2), at(1.5, 3.0, 3), at(3.0, 5.0, 6), at(3.2, 6.0, 1)]
    exact = f.plan_probability(plan)
    assert exact == pytest.approx(norm.sf(-3.5 / 1.5) * norm.sf(-1.0) ** 2)
    model = f.model
    hits = 0
    samples = 20_000
    for _ in range(samples):
        availability = {p: model.sample(10.0, rng) for p in range(4)}
        ok = True
        for start in plan:
            held = sum(n for until, n in f.leases if until > start.start) + sum(
                q.processors for q in plan if q.start <= start.start < q.end
            )
            ok &= held <= availability[math.floor(start.start)]
        hits += ok
    assert hits / samples == pytest.approx(exact, abs=0.015)


def test_profiles_plan_on_a_level_less_the_leases():
    f = forecast(now=0.5, leases=[(2.0, 3), (3.0, 2), (0.4, 5)])
    assert f.profile(None).steps() == [(0.5, 5), (2.0, 8), (3.0, 10)]
    assert f.profile(0.05).steps() == [(0.5, 3), (2.0, 6), (3.0, 8)]  # level 8 (sigma 1)
    assert f.profile_at(4).steps() == [(0.5, 0), (2.0, 2), (3.0, 4)]
    assert f.profile_at(2).steps() == [(0.5, 0), (3.0, 2)]


def test_a_risk_aware_profile_plans_now_on_what_is_there():
    known = Forecast(0.5, 1.0, 10.0, AvailabilityModel(10, 1.0), ((2.0, 3),), available_now=6)
    assert known.profile(None).steps() == [(0.5, 7), (2.0, 10)], "oblivious: the forecast"
    assert known.profile(0.05).steps() == [(0.5, 3), (1.0, 5), (2.0, 8)]
    assert known.profile_at(4, 6).steps() == [(0.5, 3), (1.0, 1), (2.0, 4)]
    # starts in the current period are certain once what is there is known
    assert known.plan_probability([at(0.7, 3, 3)]) == 1.0
    assert known.plan_probability([at(1.2, 3, 5)]) == pytest.approx(norm.sf(-2.5))


def test_price_schedule_integrates_rent_over_changes():
    flat = PriceSchedule.constant(3.0)
    assert flat.cost(2, 1.0, 4.0) == 18.0
    steps = PriceSchedule.steps(3.0, [(10.0, 5.0), (20.0, 1.0)])
    assert steps.at(9.9) == 3.0 and steps.at(10.0) == 5.0 and steps.at(25) == 1.0
    # 2 processors over [8, 22): 2 h at 3, 10 h at 5, 2 h at 1 -> 2 * (6 + 50 + 2) = 116
    assert steps.cost(2, 8.0, 22.0) == pytest.approx(116.0)
    assert steps.cost(1, 12.0, 14.0) == pytest.approx(10.0)
    with pytest.raises(ValueError):
        PriceSchedule.steps(3.0, [(5.0, -1.0)])


@pytest.mark.parametrize(
    "price",
    [PriceSchedule.constant(0.3), PriceSchedule.steps(3.0, [(10.0, 5.0), (20.0, 1.0)])],
    ids=["flat", "steps"],
)
def test_price_schedule_costs_many_as_cost_each(price):
    held = [(2, 1.0, 4.0), (7, 0.1, 0.7), (3, 8.0, 22.0), (1, 12.0, 14.0)]
    n, a, b = (np.array(column, dtype=np.float64) for column in zip(*held, strict=True))
    assert price.costs(n, a, b) == [price.cost(*h) for h in held]  # exactly, float by float


def ctx_with(sigma, risk, now=0.0, leases=()):
    f = Forecast(now, 1.0, 10.0, AvailabilityModel(10, sigma), tuple(leases), available_now=10)
    return PlanContext(now, f.profile(risk), 1.0, forecast=f, risk=risk)


def test_risk_aware_admission_equals_oblivious_without_uncertainty():
    admission, scheduler = make_admission("positive_opportunity"), make_scheduler("first_profit")
    queue = [make_job(i, 3 + i, 60 + 10 * i, 2, shapes=(1, 2, 3, 4, 5), serial_fraction=0.2)
             for i in range(6)]  # fmt: skip
    job = make_job(9, 4, 80, 3, shapes=(1, 2, 3, 4, 5), serial_fraction=0.2)
    assert admission.decide(job, queue, ctx_with(0.0, 0.05), scheduler) == admission.decide(
        job, queue, ctx_with(0.0, None), scheduler
    )


def test_a_job_that_needs_certain_capacity_later_is_too_risky():
    # Ten busy processors until t=1.5 (leases); a 10-wide job can start only in period 1, where
    # all ten must be there: P = Phi(0.5) = 0.69 < 0.9. Oblivious admission takes it.
    admission, scheduler = make_admission("positive_opportunity"), make_scheduler("first_profit")
    job = make_job(0, 10, 500, 0, shapes=(10,))
    leases = [(1.5, 10)]
    oblivious = admission.decide(job, [], ctx_with(1.0, None, leases=leases), scheduler)
    assert oblivious.accepted
    risky = admission.decide(job, [], ctx_with(1.0, 0.1, leases=leases), scheduler)
    assert not risky.accepted and risky.reason == "too-risky"
    assert "probability" in risky.detail or "level" in risky.detail
    # the same job on up to 5 processors can be planned on 8 and is admitted
    flexible = make_job(1, 10, 500, 0, shapes=(1, 2, 3, 4, 5))
    decision = admission.decide(flexible, [], ctx_with(1.0, 0.1, leases=leases), scheduler)
    assert decision.accepted


def test_dispatch_plan_stays_within_the_risk_or_falls_back_to_running_the_queue():
    scheduler = make_scheduler("first_profit")
    queue = [make_job(i, 8, 400, 0, shapes=(1, 2, 3, 4, 5), serial_fraction=0.2) for i in range(4)]
    ctx = ctx_with(1.0, 0.05, now=0.2, leases=[(1.0, 10)])
    plan = plan_within_risk(scheduler, ctx, queue)
    assert not plan.unplaced and len(plan.placements) == 4
    assert ctx.plan_probability(plan) >= 0.95


def test_a_risk_aware_provider_starts_a_job_early_on_processors_free_now():
    # sigma 1, risk 5 %: later periods are planned on 8 of the 10 processors. Job A holds 5 until
    # t=4. Job B (5 processors, 3 h, decaying) cannot start now in that plan (5 + 5 > 8 after
    # t=1), so it waits for A. Started now instead, it holds its processors whatever happens, no
    # later start needs them, and it earns more: start it early.
    from agents.policies.risk import start_early

    scheduler = make_scheduler("first_profit")
    b = make_job(1, 15, 100, 5, shapes=(5,))
    f = Forecast(0.5, 1.0, 10.0, AvailabilityModel(10, 1.0), ((4.0, 5),), available_now=10)
    ctx = PlanContext(0.5, f.profile(0.05), 1.0, forecast=f, risk=0.05)
    plan = plan_within_risk(scheduler, ctx, [b])
    assert plan.placement_of(1).start == 4.0
    early = start_early(scheduler, ctx, [b], plan)
    assert early is not None and early.job is b and early.start == 0.5 and early.end == 3.5
    # no decay and no rent: starting early earns nothing more, so it waits
    flat = make_job(2, 15, 100, 0, shapes=(5,))
    ctx0 = PlanContext(0.5, f.profile(0.05), 0.0, forecast=f, risk=0.05)
    assert start_early(scheduler, ctx0, [flat], plan_within_risk(scheduler, ctx0, [flat])) is None
    # without uncertainty the level is what is free now: nothing to start early
    g = Forecast(0.5, 1.0, 10.0, AvailabilityModel(10, 0.0), ((4.0, 5),), available_now=10)
    ctx_g = PlanContext(0.5, g.profile(0.05), 1.0, forecast=g, risk=0.05)
    assert start_early(scheduler, ctx_g, [b], plan_within_risk(scheduler, ctx_g, [b])) is None
