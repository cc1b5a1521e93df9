"""A service provider renting from several resource providers, driven by an agent: one action
decides every pool's admission, the provider keeps the pool it prefers, and agents taking
PositiveOpportunity's action reproduce the market run (the competition scenario, priced)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.admission import AdmissionEnv
from envs.baselines import PositiveOpportunityAgent, market_actions, run_episode
from envs.market import MarketEnv
from envs.observation import PROVIDER_FIELDS
from market import GridMarket
from market.inputs.scenario import Scenario, load, validate
from tests.conftest import ROOT
from tests.envs.conftest import default
from tests.envs.test_faithfulness import assert_same_run

PROVIDER = {name: i for i, name in enumerate(PROVIDER_FIELDS)}


def competition(jobs: int = 80) -> Scenario:
    """The competing market: three priced providers, each on a cheap uncertain pool and a dear
    certain one (one of them risk-aware)."""
    spec = load(ROOT / "scenarios" / "market" / "competition.yaml")
    return spec.model_copy(update={"variants": {}}).with_overrides(
        {"clients.0.workload.jobs": jobs}
    )


def small_and_wide(jobs: int = 30) -> Scenario:
    """One FirstProfit provider renting a 4-processor pool at 2 and an 8-processor pool at 3."""
    data = default(jobs).model_dump(mode="python")
    data["resource_providers"] = [
        {"name": "small", "capacity": 4, "price": 2.0},
        {"name": "wide", "capacity": 8, "price": 3.0},
    ]
    sp = data["service_providers"][0]
    sp.pop("resource_provider")
    data["service_providers"] = [{**sp, "resource_providers": ["small", "wide"]}]
    return validate(data, "small-and-wide")


def test_positive_opportunity_agents_reproduce_the_competing_market():
    scenario = competition()
    env = MarketEnv(scenario, hint=True)
    agents = {name: PositiveOpportunityAgent() for name in env.possible_agents}
    obs, infos = env.reset(seed=3)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        obs, rewards, _, _, infos = env.step(market_actions(agents, obs, infos))
        for name, reward in rewards.items():
            returns[name] += reward
    reference = GridMarket(scenario, seed=3).run()
    assert_same_run(env.result(), reference)
    pools = {r.pool for sp in env.model.service_providers.values() for r in sp.records.values()}
    assert pools == {0, 1}  # both pools were chosen
    profit = dict(zip(reference.summary["provider"], reference.summary["profit"], strict=True))
    assert returns == pytest.approx(profit, rel=1e-12, abs=1e-9)


def test_one_provider_of_the_competing_market_reproduces_it():
    scenario = competition(60)
    env = AdmissionEnv(scenario, provider="opp", hint=True)  # opportunity pricing
    ret, _ = run_episode(env, PositiveOpportunityAgent(), 5)
    reference = GridMarket(scenario, seed=5).run()
    assert_same_run(env.result(), reference)
    assert ret == pytest.approx(reference.summary.set_index("provider").loc["opp", "profit"])


def test_the_observation_sums_the_pools():
    env = AdmissionEnv(competition(10), provider="plus")
    obs, info = env.reset(seed=1)
    assert env.capacity == 10 and len(info["action_mask"]) == 12  # the widest pool: 10
    p = obs["provider"]
    assert p[PROVIDER["capacity"]] == 20  # 10 cheap + 10 dear
    assert p[PROVIDER["available"]] == 20
    assert p[PROVIDER["price"]] == 3.0  # the cheaper pool
    assert p[PROVIDER["sigma"]] == 2.0  # sqrt(2^2 + 0^2)
    assert obs["free"][0] == 20


def test_an_action_too_wide_for_a_pool_goes_to_the_other():
    env = AdmissionEnv(small_and_wide())
    _, info = env.reset(seed=2)
    assert env.capacity == 8
    assert info["action_mask"].tolist() == [1, 1, 1, 1, 1, 1, 0, 0, 0, 1]  # shapes 1..5, all
    chosen = {}
    done = False
    while not done:
        job = info["job"]
        action = 5 if job % 2 else 1  # 5 fits only the wide pool
        chosen[job] = action
        _, _, done, _, info = env.step(action)
    records = env.provider.records
    wide = [j for j, a in chosen.items() if a == 5]
    assert wide and all(records[j].pool == 1 and records[j].processors == 5 for j in wide)
    narrow = [records[j].pool for j, a in chosen.items() if a == 1]
    assert 0 in narrow  # the cheaper pool takes one-processor jobs (while it has room)
    assert np.isfinite(env.result().summary["profit"][0])
