"""Market-v0: PettingZoo's parallel API, and competing providers faithful to the model."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from envs.actions import InvalidAction
from envs.baselines import PositiveOpportunityAgent, market_actions
from envs.market import MarketEnv, parallel_env
from market import GridMarket
from market.inputs.scenario import ScenarioError
from tests.envs.conftest import default, two_providers
from tests.envs.test_faithfulness import assert_same_run


def test_parallel_api_test_passes():
    parallel_api_test(parallel_env(scenario=two_providers(30)), num_cycles=1000)


def play(env: MarketEnv, agents, seed: int) -> dict[str, float]:
    """One episode; each agent's return."""
    obs, infos = env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        obs, rewards, _, _, infos = env.step(market_actions(agents, obs, infos))
        for name, reward in rewards.items():
            returns[name] += reward
    return returns


@pytest.mark.parametrize(
    ("offer_rule", "shared"),
    [("best_quote", False), ("first_accept", False), ("best_quote", True), ("random", False)],
)
def test_positive_opportunity_agents_reproduce_the_market(offer_rule, shared):
    scenario = two_providers(60, offer_rule, shared)
    env = MarketEnv(scenario, hint=True)
    agents = {name: PositiveOpportunityAgent() for name in env.possible_agents}
    returns = play(env, agents, seed=3)
    reference = GridMarket(scenario, seed=3).run()
    assert_same_run(env.result(), reference)
    profit = dict(zip(reference.summary["provider"], reference.summary["profit"], strict=True))
    assert returns == pytest.approx(profit, rel=1e-12, abs=1e-9)
    assert all(p != 0 for p in profit.values())  # both providers won jobs


def test_only_the_providers_offered_a_job_decide_it():
    """Under the `random` offer rule each job is offered to one provider: the other sees no
    job and may only reject (its action is ignored)."""
    env = MarketEnv(two_providers(30, "random"))
    obs, infos = env.reset(seed=1)
    seen = set()
    while env.agents:
        offered = [a for a in env.agents if obs[a]["observation"]["job"][0] == 1]
        assert len(offered) == 1
        seen.update(offered)
        (other,) = set(env.agents) - set(offered)
        assert obs[other]["action_mask"]["admit"].tolist() == [1] + [0] * 7
        assert not obs[other]["observation"]["job"].any()
        assert infos[other]["job"] == -1 and infos[offered[0]]["job"] >= 0
        actions = {offered[0]: {"admit": 1}}  # admit on one processor; the other says nothing
        obs, _, _, _, infos = env.step(actions)
    assert seen == {"sp_a", "sp_b"}


def test_best_quote_offers_every_job_to_both():
    env = MarketEnv(two_providers(10))
    obs, _ = env.reset(seed=1)
    for _ in range(5):
        assert all(obs[a]["observation"]["job"][0] == 1 for a in env.agents)
        assert np.array_equal(obs["sp_a"]["observation"]["job"], obs["sp_b"]["observation"]["job"])
        obs, *_ = env.step({"sp_a": 0, "sp_b": {"admit": 2}})  # plain ints are taken too


def test_a_missing_or_invalid_action_is_a_clear_error():
    env = MarketEnv(two_providers(10))
    env.reset(seed=1)
    with pytest.raises(InvalidAction, match="sp_b: no action for job 0 offered to it"):
        env.step({"sp_a": {"admit": 0}})
    with pytest.raises(InvalidAction, match=r"sp_a: action 6 .* is not allowed"):
        env.step({"sp_a": {"admit": 6}, "sp_b": {"admit": 0}})
    with pytest.raises(InvalidAction, match="no 'admit' entry"):
        env.step({"sp_a": {"price": 3.0}, "sp_b": {"admit": 0}})


def test_chosen_providers_and_a_single_provider_market():
    env = MarketEnv(two_providers(10), providers=["sp_b"])
    assert env.possible_agents == ["sp_b"]
    assert env.driver.spec.service_providers[0].admission.name == "positive_opportunity"
    assert MarketEnv(default(10)).possible_agents == ["sp"]
    with pytest.raises(ScenarioError, match="no service provider 'sp_c'"):
        MarketEnv(two_providers(10), providers=["sp_c"])
