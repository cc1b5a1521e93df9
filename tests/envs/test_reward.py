"""The reward where no money moves (a QoPS pool): the work finished by its deadline less the work
finished late; the profit reward there warns that it is always 0."""

from __future__ import annotations

import pytest

from envs.admission import AdmissionEnv
from envs.baselines import AcceptAllAgent, RejectAllAgent, run_episode
from envs.reward import money_moves
from market.inputs.scenario import Scenario, validate
from tests.conftest import synthetic_swf
from tests.envs.conftest import default


def qops_pool(tmp_path, stringency: float = 0.2) -> Scenario:
    """A free 16-processor pool under conservative backfilling and QoPS admission, offered the
    first 40 jobs of a synthetic trace, every one with a deadline (stringency ``stringency``)."""
    trace = synthetic_swf(tmp_path / "t.swf", n=60, max_gap=600)
    return validate(
        {
            "name": "qops-pool",
            "sample_interval": 24.0,
            "resource_providers": [{"name": "pool", "capacity": 16, "price": 0.0}],
            "service_providers": [{"name": "site", "scheduler": "conservative"}],
            "clients": [
                {
                    "name": "users",
                    "workload": {
                        "kind": "swf",
                        "trace": str(trace),
                        "first_jobs": 40,
                        "estimates": "exact",
                        "deadlines": "stringency",
                        "stringency": stringency,
                    },
                }
            ],
        },
        "qops-pool",
    )


def test_no_money_moves_on_a_free_pool_with_valueless_jobs(tmp_path):
    assert not money_moves(qops_pool(tmp_path))
    assert money_moves(default(5))  # Table 1: rent and valued jobs
    priced = qops_pool(tmp_path).with_overrides({"clients.0.workload.price_per_processor_hour": 1})
    assert money_moves(priced)


def test_the_default_reward_is_qos_where_no_money_moves(tmp_path):
    env = AdmissionEnv(qops_pool(tmp_path))
    assert env.reward_kind == "qos"
    assert AdmissionEnv(default(5)).reward_kind == "profit"


def test_rejecting_everything_earns_nothing_and_accepting_all_earns_the_work_on_time(tmp_path):
    env = AdmissionEnv(qops_pool(tmp_path))
    ret, steps = run_episode(env, RejectAllAgent(), 1)
    assert ret == 0 and steps == 40
    ret, _ = run_episode(env, AcceptAllAgent(), 1)
    records = [r for r in env.provider.records.values() if r.committed]
    assert len(records) == 40  # every job fits the pool: all admitted, all completed
    on_time = late = 0.0
    for r in records:
        work = r.processors * (r.end - r.start)
        if r.end <= r.job.deadline + 1e-9:
            on_time += work
        else:
            late += work
    assert late > 0  # accepting all under stringent deadlines misses some
    assert ret == pytest.approx(on_time - late, rel=1e-12)


def test_profit_where_no_money_moves_warns_and_an_unknown_kind_is_an_error(tmp_path):
    with pytest.warns(UserWarning, match="no money moves in this market"):
        env = AdmissionEnv(qops_pool(tmp_path), reward="profit")
    ret, _ = run_episode(env, AcceptAllAgent(), 1)
    assert ret == 0
    with pytest.raises(ValueError, match=r"reward: unknown kind 'money' \(kinds: profit, qos\)"):
        AdmissionEnv(default(5), reward="money")
