"""Libra, LibraRisk and EDF through the market model on synthetic SWF traces (Yeo & Buyya
ICPP'06 §3-4): every job accounted for once, exact estimates keeping every admitted deadline,
the fulfilment metrics, the §4 workload knobs, and one-line errors for bad input."""

from __future__ import annotations

import json

import pytest

from market import GridMarket
from market.cli.main import main
from market.inputs.scenario import ScenarioError, validate
from tests.conftest import synthetic_swf

POLICIES = {
    "libra": "libra",
    "libra_risk": "libra_risk",
    "edf": "edf",
    "edf_no_ac": {"name": "edf", "admission_control": False},
}


def scenario(trace, cluster, nodes=16, **workload):
    return validate(
        {
            "name": "libra-synthetic",
            "resource_providers": [{"name": "cluster", "capacity": nodes, "price": 0.0}],
            "service_providers": [{"name": "site", "cluster": cluster}],
            "clients": [
                {
                    "name": "users",
                    "workload": {
                        "kind": "swf",
                        "trace": str(trace),
                        "deadlines": "urgency",
                        **workload,
                    },
                }
            ],
        }
    )


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    return synthetic_swf(tmp_path_factory.mktemp("libra") / "t.swf", n=200, max_gap=900)


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("estimates", ["exact", "trace"])
def test_every_job_is_decided_once_and_admitted_ones_run_once(trace, policy, estimates):
    model = GridMarket(scenario(trace, POLICIES[policy], estimates=estimates), seed=2)
    result = model.run()
    assert result.finished
    jobs = result.jobs
    assert jobs.job.is_unique and len(jobs) == 199  # job 2 was cancelled in the trace
    admitted = jobs[jobs.committed]
    assert admitted.end.notna().all() and (admitted.end > admitted.start).all()
    assert jobs[~jobs.committed].start.isna().all(), "a rejected job ran"
    assert not model.service_providers["site"].running
    row = result.summary.iloc[0]
    assert row.completed == len(admitted)
    if policy != "edf_no_ac":
        assert 0 < row.accepted < len(jobs), "the cluster is loaded enough to reject some"


@pytest.mark.parametrize("policy", ["libra", "libra_risk", "edf"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_with_exact_estimates_every_admitted_job_meets_its_deadline(tmp_path, policy, seed):
    trace = synthetic_swf(tmp_path / "t.swf", n=150, max_gap=600, seed=seed)
    result = GridMarket(scenario(trace, policy, estimates="exact"), seed=seed).run()
    row = result.summary.iloc[0]
    assert row.deadlines_missed == 0
    assert row.deadlines_fulfilled_pct == pytest.approx(100.0 * row.completed / row.offered)


def test_fulfilment_metrics_count_every_submitted_job(trace):
    model = GridMarket(scenario(trace, POLICIES["edf_no_ac"], estimates="trace"), seed=1)
    result = model.run()
    jobs, row = result.jobs, result.summary.iloc[0]
    records = model.service_providers["site"].records.values()
    met = [r for r in records if r.end <= r.job.deadline + 1e-9]
    assert 0 < len(met) < len(records), "some deadlines missed without admission control"
    assert row.deadlines_fulfilled_pct == pytest.approx(100.0 * len(met) / len(jobs))
    slowdowns = [(r.end - r.job.arrival) / (r.job.work / r.processors) for r in met]
    assert row.mean_slowdown_fulfilled == pytest.approx(sum(slowdowns) / len(slowdowns))
    assert row.mean_slowdown_fulfilled >= 1.0


def test_the_summary_names_the_cluster_and_has_the_metrics_in_every_format(trace, tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(
        scenario(trace, POLICIES["edf_no_ac"]).model_dump_json(exclude={"sweep"}),
        encoding="utf-8",
    )
    assert main(["run", str(path), "--format", "json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["scheduler"] == "space_shared"
    assert record["admission"] == "edf(admission_control=False)"
    assert {"deadlines_fulfilled_pct", "mean_slowdown_fulfilled"} <= set(record)
    assert main(["run", str(path), "--format", "csv"]) == 0
    assert "deadlines_fulfilled_pct,mean_slowdown_fulfilled" in capsys.readouterr().out
    assert main(["run", str(path)]) == 0
    table = capsys.readouterr().out
    assert "fulfilled %" in table and "sld. fulfilled" in table


def test_zero_inaccuracy_gives_the_exact_jobs_and_the_delay_factor_scales_arrivals(trace):
    import numpy as np

    def prepared(**workload):
        wl = scenario(trace, "libra", **workload).clients[0].workload
        return wl.prepare(np.random.default_rng(5))

    exact, zero = prepared(estimates="exact"), prepared(estimates="trace", estimate_inaccuracy=0)
    assert np.array_equal(exact.estimate, zero.estimate)
    assert np.array_equal(exact.deadline, zero.deadline)
    full = prepared(estimates="trace")
    half = prepared(estimates="trace", estimate_inaccuracy=50)
    second = 1 / 3600  # scaled times are rounded to whole seconds (an exact replay)
    assert np.allclose(half.estimate, (full.estimate + exact.estimate) / 2, atol=second / 2)
    fast = prepared(arrival_delay_factor=0.1)
    assert np.allclose(fast.arrival, 0.1 * exact.arrival, atol=second / 2)
    # deadlines keep their factor x runtime after the arrival
    assert np.allclose(fast.deadline - fast.arrival, exact.deadline - exact.arrival)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cluster": "libra_rsik"}, "service_providers.0.cluster: unknown cluster policy"),
        ({"cluster": {"name": "libra", "unused_share": "x"}}, "unused_share: Input should be"),
        ({"workload": {"estimate_inaccuracy": 150}}, "estimate_inaccuracy: Input should be"),
        ({"workload": {"estimate_inaccuracy": 20}}, "estimate_inaccuracy needs estimates: trace"),
        ({"workload": {"arrival_delay_factor": 0}}, "arrival_delay_factor: Input should be"),
        ({"workload": {"urgent_share": 1.5}}, "urgent_share: Input should be"),
    ],
)
def test_bad_input_is_one_line_naming_the_field(trace, change, message):
    data = scenario(trace, "libra").model_dump(mode="python", exclude={"sweep"})
    if "cluster" in change:
        data["service_providers"][0]["cluster"] = change["cluster"]
    else:
        data["clients"][0]["workload"].update(change["workload"])
    with pytest.raises(ScenarioError, match=message) as err:
        validate(data, "s.yaml")
    assert "\n" not in str(err.value)


def test_a_job_wider_than_the_cluster_is_a_one_line_error(trace):
    with pytest.raises(ScenarioError, match="needs 16 processors, the cluster has 8") as err:
        GridMarket(scenario(trace, "libra_risk", nodes=8)).run()
    assert "\n" not in str(err.value)
