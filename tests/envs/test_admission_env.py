"""Admission-v0: the Gymnasium API, determinism, masks, errors, and reward = profit."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envs
from envs.actions import InvalidAction
from envs.admission import AdmissionEnv
from envs.baselines import RandomAgent, run_episode
from envs.observation import JOB_FIELDS, PROVIDER_FIELDS
from market import GridMarket
from market.cli.main import main
from market.inputs.scenario import ScenarioError
from tests.envs.conftest import default

JOB = {name: i for i, name in enumerate(JOB_FIELDS)}
PROVIDER = {name: i for i, name in enumerate(PROVIDER_FIELDS)}


@pytest.mark.filterwarnings("ignore:.*Box observation space m:UserWarning")  # unbounded money
@pytest.mark.parametrize("hint", [False, True])
def test_check_env_passes(hint):
    check_env(AdmissionEnv(default(30), hint=hint), skip_render_check=True)


def test_registered_with_gymnasium():
    env = gym.make(envs.ADMISSION_ID, scenario=default(10), provider="sp")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"][0] == 1


def trajectory(env, seed, agent_seed=0):
    agent = RandomAgent(agent_seed)
    obs, info = env.reset(seed=seed)
    steps, done = [(obs, 0.0)], False
    while not done:
        obs, reward, done, _, info = env.step(agent(obs, info))
        steps.append((obs, reward))
    return steps


def test_same_seed_same_trajectory_different_seed_different_jobs():
    env = AdmissionEnv(default(40))
    first, again = trajectory(env, 3), trajectory(env, 3)
    assert len(first) == len(again)
    for (o1, r1), (o2, r2) in zip(first, again, strict=True):
        assert r1 == r2
        assert all(np.array_equal(o1[k], o2[k]) for k in o1)
    other = trajectory(env, 4)
    assert not np.array_equal(first[0][0]["job"], other[0][0]["job"])


def test_reset_without_seed_continues_the_seeded_sequence():
    a, b = AdmissionEnv(default(10)), AdmissionEnv(default(10))
    seeds = []
    for env in (a, b):
        env.reset(seed=11)
        seeds.append([env.reset()[1]["seed"], env.reset()[1]["seed"]])
    assert seeds[0] == seeds[1] and seeds[0][0] != seeds[0][1]


def test_job_stream_is_the_runs():
    """reset(seed=s) offers the jobs of `gridmarket run --seed s`, in order (the agent's choices
    do not change the job stream)."""
    env = AdmissionEnv(default(25))
    steps = trajectory(env, 9)
    jobs = env.result().jobs
    works = [o["job"][JOB["work"]] for o, _ in steps[:-1]]
    reference = GridMarket(default(25), seed=9).run().jobs
    assert jobs["job"].tolist() == reference["job"].tolist()
    assert works == pytest.approx(reference["work"].tolist(), rel=1e-6)


def test_masks_never_allow_a_shape_the_job_lacks():
    # Shapes 2 and 4, and 12: wider than the 10-processor pool, so never an action.
    scenario = default(30).with_overrides({"clients.0.workload.shapes": [2, 4, 12]})
    env = AdmissionEnv(scenario)
    obs, info = env.reset(seed=2)
    c = env.capacity
    done = False
    while not done:
        mask = info["action_mask"]
        assert mask.tolist() == [1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1]
        assert obs["shapes"].tolist() == [0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
        for _ in range(20):  # the space's own sample respects the mask
            assert mask[env.action_space.sample()]
        action = env.action_space.sample()
        assert action in (0, 2, 4, c + 1)
        obs, _, done, _, info = env.step(action)
    processors = env.result().jobs["processors"].dropna()
    assert set(processors) <= {2, 4}


def test_invalid_actions_get_a_clear_error_and_the_episode_goes_on():
    env = AdmissionEnv(default(10))
    env.reset(seed=1)
    with pytest.raises(
        InvalidAction, match=r"sp: action 7 \(7 processors\) is not allowed for job"
    ):
        env.step(7)  # the job's shapes are 1..5
    with pytest.raises(InvalidAction, match=r"outside 0\.\.11"):
        env.step(12)
    with pytest.raises(InvalidAction, match="not an integer"):
        env.step(1.5)
    with pytest.raises(InvalidAction, match="not an integer"):
        env.step(True)
    _, _, done, _, info = env.step(np.int64(3))  # numpy integers are fine
    assert info["job"] == 1 and not done


def test_return_is_the_providers_profit():
    env = AdmissionEnv(default(60))
    ret, steps = run_episode(env, RandomAgent(5), 6)
    summary = env.result().summary
    assert steps == 60
    assert ret == pytest.approx(summary["profit"][0], rel=1e-12, abs=1e-9)
    assert ret == pytest.approx(env.provider.revenue - env.provider.rent_paid)
    assert summary["accepted_pct"][0] > 50  # the random agent admitted most jobs


def test_observation_reads_the_market():
    """Hand-checked fields of the first offer of seed 1 (the default scenario)."""
    env = AdmissionEnv(default(10), horizon=12.0, points=4)
    obs, info = env.reset(seed=1)
    job = env.driver.offer.job
    now = info["time"]
    assert now == job.arrival
    assert obs["job"][JOB["offered"]] == 1
    assert obs["job"][JOB["value"]] == pytest.approx(job.utility.max_value)
    # profit paper utility: value until arrival, then linear decay to the -48 bound (Table 1)
    assert obs["job"][JOB["penalty"]] == -48
    rate = obs["job"][JOB["decay"]]
    floor = obs["job"][JOB["floor_time"]]
    assert floor == pytest.approx((job.utility.max_value + 48) / rate, rel=1e-5)
    # runtime on 2 processors by Amdahl (beta 0.2): work * (0.2 + 0.8 / 2) = 0.6 work
    assert obs["runtime"][1] == pytest.approx(0.6 * job.work, rel=1e-6)
    # profit if started now on 2: the utility at completion minus 2 x runtime x 3 florins
    runtime = 0.6 * job.work
    expected = job.utility(now + runtime) - 2 * runtime * 3.0
    assert obs["profit_now"][1] == pytest.approx(expected, rel=1e-5)
    # an empty provider: nothing queued or running, the whole pool free over the horizon
    assert obs["provider"][PROVIDER["capacity"]] == 10
    assert obs["provider"][PROVIDER["price"]] == 3
    assert obs["free"].tolist() == [10, 10, 10, 10]
    # admit on 5 processors: at the next offer they are busy (unless it already ended)
    obs, _, _, _, info = env.step(5)
    p = obs["provider"]
    if info["time"] < now + job.runtime(5):
        assert p[PROVIDER["busy"]] == 5 and p[PROVIDER["running"]] == 1
        assert obs["free"][0] == 5


def test_bad_arguments_are_one_line_errors():
    with pytest.raises(ScenarioError, match="no service provider 'nope'"):
        AdmissionEnv(default(10), provider="nope")
    with pytest.raises(ScenarioError, match="variant: no variant 'nope'"):
        AdmissionEnv("profit/default", variant="nope")
    with pytest.raises(ValueError, match="seed"):
        AdmissionEnv(default(10)).reset(seed=-1)
    with pytest.raises(RuntimeError, match="reset"):
        AdmissionEnv(default(10)).step(0)


def test_a_variant_runs_its_own_policies():
    env = AdmissionEnv("profit/default", variant="LJF")
    assert env.driver.spec.service_providers[0].scheduler.name == "ljf"


def test_external_admission_without_an_environment_is_a_one_line_error(tmp_path, capsys):
    path = tmp_path / "external.yaml"
    text = default(5).with_overrides({"service_providers.0.admission": "external"})
    path.write_text(text.model_dump_json())
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "admission 'external' is decided by an agent in a learning environment" in err
