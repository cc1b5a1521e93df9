"""Benchmark: Admission-v0 steps per second on the profit paper's default scenario (Table 1,
200 jobs, so 200 steps an episode), and the cost of the hand-off between the model and the agent.

Goal: >= 2,000 steps/s with the PositiveOpportunity hint off, on a 2-core machine.
How fast an episode goes depends on the agent: the model plans the queue the agent builds, and an
agent that admits everything grows it without bound (the paper's overload). So:

- hint off, replaying PositiveOpportunity's actions (recorded once with the hint on): the
  paper's policy's trajectory, the queue a sensible agent keeps; the goal's figure;
- hint on, the PositiveOpportunity agent: the same trajectory plus its plans per offer;
- hint off, the random agent (admits 6 jobs in 7): the overloaded worst case;
- one hand-off round trip (model -> agent -> model) by greenlet, as the driver does, and by a
  worker thread and two queues, the alternative design (docs/papers/environments.md).

Each round is one episode; ``extra_info["steps_per_s"]`` is the figure (per CPU second). Run
with `make bench-suite`.
"""

from __future__ import annotations

import queue
import threading
import time

import pytest
from greenlet import greenlet

from envs.admission import AdmissionEnv
from envs.baselines import PositiveOpportunityAgent, RandomAgent, run_episode
from tests.conftest import DEFAULT_SCENARIO

SEEDS = range(1, 9)


@pytest.fixture(scope="module")
def po_actions():
    """PositiveOpportunity's actions on each seed, recorded with the hint on."""
    env, recorded = AdmissionEnv(DEFAULT_SCENARIO, hint=True), {}
    agent = PositiveOpportunityAgent()
    for seed in SEEDS:
        obs, info = env.reset(seed=seed)
        actions, done = [], False
        while not done:
            actions.append(agent(obs, info))
            obs, _, done, _, info = env.step(actions[-1])
        recorded[seed] = actions
    return recorded


def episodes(benchmark, env, agent_for):
    seeds, steps = iter(list(SEEDS) * 1000), []

    def one():
        seed = next(seeds)
        steps.append(run_episode(env, agent_for(seed), seed)[1])

    start, cpu = time.perf_counter(), time.process_time()
    benchmark.pedantic(one, rounds=len(SEEDS), iterations=1)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    benchmark.extra_info["steps_per_s"] = round(sum(steps) / cpu)  # CPU: others' load aside
    benchmark.extra_info["wall_steps_per_s"] = round(sum(steps) / elapsed)


class Replay:
    def __init__(self, actions):
        self.actions = iter(actions)

    def __call__(self, obs, info):
        return next(self.actions)


@pytest.mark.benchmark(group="admission-env")
def test_steps_hint_off_positive_opportunity_trajectory(benchmark, default_scenario, po_actions):
    env = AdmissionEnv(default_scenario, hint=False)
    episodes(benchmark, env, lambda seed: Replay(po_actions[seed]))


@pytest.mark.benchmark(group="admission-env")
def test_steps_hint_on_positive_opportunity_agent(benchmark, default_scenario):
    env = AdmissionEnv(default_scenario, hint=True)
    episodes(benchmark, env, lambda seed: PositiveOpportunityAgent())


@pytest.mark.benchmark(group="admission-env")
def test_steps_hint_off_random_agent(benchmark, default_scenario):
    env = AdmissionEnv(default_scenario, hint=False)
    episodes(benchmark, env, RandomAgent)


ROUND_TRIPS = 20_000


@pytest.mark.benchmark(group="hand-off")
def test_hand_off_greenlet(benchmark):
    def model(value):
        while True:
            value = main.switch(value)

    def trips():
        runner = greenlet(model)
        for i in range(ROUND_TRIPS):
            runner.switch(i)
        runner.throw()

    main = greenlet.getcurrent()
    benchmark.pedantic(trips, rounds=5, iterations=1)
    benchmark.extra_info["us_per_round_trip"] = benchmark.stats.stats.mean / ROUND_TRIPS * 1e6


@pytest.mark.benchmark(group="hand-off")
def test_hand_off_thread(benchmark):
    def trips():
        to_model, to_agent = queue.SimpleQueue(), queue.SimpleQueue()

        def model():
            while (value := to_model.get()) is not None:
                to_agent.put(value)

        worker = threading.Thread(target=model)
        worker.start()
        for i in range(ROUND_TRIPS):
            to_model.put(i)
            to_agent.get()
        to_model.put(None)
        worker.join()

    benchmark.pedantic(trips, rounds=5, iterations=1)
    benchmark.extra_info["us_per_round_trip"] = benchmark.stats.stats.mean / ROUND_TRIPS * 1e6
