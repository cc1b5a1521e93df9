"""The environments are the model: agents taking a policy's actions reproduce that policy's run.

An agent that always takes PositiveOpportunity's action reproduces
`gridmarket run` of the same scenario and seed exactly (the same per-job outcomes, the same
profit), and accept-all through the environment equals the `accept_all` admission run.
"""

from __future__ import annotations

import pandas as pd
import pytest

from envs.admission import AdmissionEnv
from envs.baselines import AcceptAllAgent, PositiveOpportunityAgent, run_episode
from market import GridMarket
from tests.envs.conftest import default

#: What happened to each job: the decision and its consequences (a rejection by the agent
#: carries no prediction, PositiveOpportunity's does: predictions of rejected jobs differ).
OUTCOMES = ["job", "provider", "accepted", "committed", "processors", "start", "end", "paid"]
OUTCOMES += ["rent", "profit"]
#: The prediction an admitted job carries (the plan it was admitted on).
PREDICTIONS = ["planned_processors", "planned_start", "planned_end", "expected_value"]
PREDICTIONS += ["expected_profit"]


def assert_same_run(env_result, reference) -> None:
    pd.testing.assert_frame_equal(env_result.jobs[OUTCOMES], reference.jobs[OUTCOMES])
    admitted = reference.jobs["accepted"]
    pd.testing.assert_frame_equal(
        env_result.jobs.loc[admitted, PREDICTIONS], reference.jobs.loc[admitted, PREDICTIONS]
    )
    assert env_result.summary["profit"].tolist() == reference.summary["profit"].tolist()


@pytest.mark.parametrize(
    ("overrides", "seed"),
    [
        ({}, 1),  # the profit paper's default: FirstProfit + PositiveOpportunity, 200 jobs
        ({}, 7),
        ({"service_providers.0.scheduler": "ljf"}, 2),  # another reward metric and shape rule
        (  # uncertain capacity and a risk bound (§3.5): PositiveOpportunity's risk levels
            {
                "resource_providers.0.uncertainty": {"sigma": 2.0, "period": 1.0},
                "service_providers.0.risk": 0.1,
                "clients.0.workload.jobs": 80,
            },
            3,
        ),
    ],
)
def test_positive_opportunity_agent_reproduces_the_run(overrides, seed):
    scenario = default().with_overrides(overrides) if overrides else default()
    env = AdmissionEnv(scenario, hint=True)
    ret, steps = run_episode(env, PositiveOpportunityAgent(), seed)
    reference = GridMarket(scenario, seed=seed).run()
    assert steps == len(reference.jobs)  # one step per job offered
    assert_same_run(env.result(), reference)
    assert ret == pytest.approx(reference.summary["profit"][0], rel=1e-12, abs=1e-9)


def test_accept_all_agent_equals_the_accept_all_run():
    env = AdmissionEnv(default(), hint=False)
    ret, _ = run_episode(env, AcceptAllAgent(), 4)
    reference = GridMarket(
        default().with_overrides({"service_providers.0.admission": "accept_all"}), seed=4
    ).run()
    assert_same_run(env.result(), reference)
    assert ret == pytest.approx(reference.summary["profit"][0], rel=1e-12, abs=1e-9)
    assert reference.summary["profit"][0] < 0  # the paper's overload: accepting all loses money


def test_the_hint_is_positive_opportunitys_reasoning():
    """PositiveOpportunity admits on the shape of greatest gain when that gain is > 0 (§3.4):
    the hint's numbers say the same as its action, step by step."""
    env = AdmissionEnv(default(60), hint=True)
    obs, info = env.reset(seed=5)
    done, admitted, rejected = False, 0, 0
    while not done:
        action = info["positive_opportunity"]
        gain, valid = obs["hint_gain"], obs["hint_valid"] > 0
        assert (valid <= (obs["shapes"] > 0)).all()  # only the job's own shapes
        if action:
            admitted += 1
            assert valid[action - 1] and gain[action - 1] > 0
            assert gain[action - 1] == gain[valid].max()
        else:
            rejected += 1
            assert not valid.any() or gain[valid].max() <= 1e-3  # (float32)
        obs, _, done, _, info = env.step(action)
    assert admitted and rejected
