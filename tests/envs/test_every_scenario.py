"""Both environments on every scenario file: a whole episode of masked random actions, or one
clear line refusing a market they cannot drive.

Each file runs without its variants, with its workload cut small (a few dozen jobs, the first
of a trace); a file whose trace is not on the search path is skipped. The episode's return is
checked against the run's own result: the provider's profit, or (where no money moves) the work
it finished by the deadlines less the work it finished late.
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from envs.admission import AdmissionEnv
from envs.market import MarketEnv
from envs.reward import money_moves
from market.inputs.scenario import Scenario, ScenarioError, load, validate
from market.inputs.scenario_files import list_files
from market.inputs.traces import TraceNotFoundError, resolve_trace
from market.results.fulfilment import MET
from tests.conftest import ROOT

SCENARIOS = [name for name, _ in list_files(ROOT / "scenarios")]
JOBS = 24  # jobs per client
#: The files the environments refuse (no service provider plans admission), and why.
REFUSED = {
    "libra": "every service provider is a deadline cluster",
    "varq/qbets_sites": "there is no service provider",
    "varq/random_jobs": "there is no service provider",
    "varq/table4": "there is no service provider",
}


def small(name: str) -> Scenario:
    """Scenario file ``name`` without its variants, each client's workload cut to ``JOBS``
    jobs (skipped if it needs a trace that is not found)."""
    spec = load(ROOT / "scenarios" / name)
    data = spec.model_dump(mode="python")
    data["variants"], data["sweep"] = {}, None
    traces = [site["trace"] for site in data.get("batch_sites", [])]
    for client in data["clients"]:
        workload = client["workload"]
        if workload["kind"] == "profit":
            workload["jobs"] = min(workload["jobs"], JOBS)
        else:
            traces.append(workload["trace"])
            workload.update(first_jobs=JOBS, last_jobs=None, window=None)
    for trace in traces:
        try:
            resolve_trace(trace)
        except TraceNotFoundError:
            pytest.skip(f"{name}: trace {trace} not found (set GRIDMARKET_TRACES)")
    return validate(data, name)


def refusal(name: str) -> str | None:
    return next((why for prefix, why in REFUSED.items() if name.startswith(prefix)), None)


def masked_random(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def qos_return(env, provider: str) -> float:
    """The ``qos`` reward's return, from the per-job table and the jobs' deadlines: each
    completed job's processors x runtime, positive if it met its deadline (or had none)."""
    jobs = env.result().jobs
    done = jobs[(jobs["provider"] == provider) & jobs["end"].notna()]
    records = env.model.service_providers[provider].records
    deadline = done["job"].map(lambda j: records[j].job.deadline).astype(float)
    work = done["processors"] * (done["end"] - done["start"])
    late = deadline.notna() & (done["end"] > deadline + MET)
    assert done["job"].map(lambda j: records[j].committed).all()
    return float(work[~late].sum() - work[late].sum())


def expected_return(env, provider: str) -> float:
    if env.reward_kind == "qos":
        return qos_return(env, provider)
    summary = env.result().summary.set_index("provider")
    return float(summary.loc[provider, "profit"])


@pytest.mark.parametrize("name", SCENARIOS)
def test_admission_env_runs_or_refuses_every_scenario(name):
    why = refusal(name)
    if why is not None:
        with pytest.raises(ScenarioError, match=f"no admission to drive: {why}") as refused:
            AdmissionEnv(small(name))
        assert "\n" not in str(refused.value)
        return
    scenario = small(name)
    env = AdmissionEnv(scenario)
    assert env.reward_kind == ("profit" if money_moves(scenario) else "qos")
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=1)
    total, steps, done = 0.0, 0, False
    while not done:
        assert env.observation_space.contains(obs)
        obs, reward, done, truncated, info = env.step(masked_random(info["action_mask"], rng))
        total += reward
        steps += 1
        assert not truncated
    jobs = env.result().jobs
    assert steps == int((jobs["provider"] == env.provider_name).sum())  # one step per offer
    assert total == pytest.approx(expected_return(env, env.provider_name), rel=1e-9, abs=1e-6)


@pytest.mark.parametrize("name", SCENARIOS)
def test_market_env_runs_or_refuses_every_scenario(name):
    why = refusal(name)
    if why is not None:
        with pytest.raises(ScenarioError, match=f"no admission to drive: {why}"):
            MarketEnv(small(name))
        return
    env = MarketEnv(small(name))
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=2)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        actions = {a: masked_random(obs[a]["action_mask"]["admit"], rng) for a in env.agents}
        obs, rewards, *_ = env.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += reward
    for agent, total in returns.items():
        assert total == pytest.approx(expected_return(env, agent), rel=1e-9, abs=1e-6)


@pytest.mark.parametrize("name", [n for n in SCENARIOS if n.startswith("market/")])
def test_parallel_api_test_passes_on_the_market_scenarios(name):
    parallel_api_test(MarketEnv(small(name)), num_cycles=200)
