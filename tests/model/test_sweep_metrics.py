"""What a sweep keeps of the metric registry (market/results/metrics): the bounded slowdown in
a sweep's Parquet and its report, and the site table's rows stored and drawn beside the
providers', with the registry's axis titles."""

from __future__ import annotations

import math

from market.experiments.batch import InProcess, load_results, run_sweep
from market.experiments.report import make_report
from market.experiments.sweep import SweepPlan
from market.inputs.scenario import load, validate
from market.sim.model import GridMarket
from tests.conftest import DEFAULT_SCENARIO, synthetic_swf

LOAD = "clients.0.workload.mean_interarrival"


def test_the_bounded_slowdown_is_in_the_parquet_and_the_report(tmp_path):
    scenario = load(DEFAULT_SCENARIO).with_overrides({
        "clients.0.workload.jobs": 20, "variants": {},
        "sweep": {"parameters": {LOAD: [0.1, 0.3]}, "replications": 2},
    })  # fmt: skip
    plan = SweepPlan.from_scenario(scenario)
    run_sweep(plan, tmp_path / "out", executor=InProcess())
    frame = load_results(tmp_path / "out")
    assert set(frame["table"]) == {"providers"}
    run = plan.runs[1]
    direct = GridMarket(run.scenario, seed=run.seed).run().summary.iloc[0]
    stored = frame.set_index("run_id").loc[run.run_id, "bounded_slowdown_10s"]
    assert stored == direct["bounded_slowdown_10s"] >= 1.0
    report = make_report(tmp_path / "out", metrics=["bounded_slowdown_10s"], png=False)
    (figure,) = report.figures
    assert figure.name == "bounded_slowdown_10s-vs-mean_interarrival.html"
    assert "mean bounded slowdown (10 s threshold)" in figure.read_text(encoding="utf-8")


def test_site_rows_are_stored_and_reported_beside_the_providers(tmp_path):
    trace = synthetic_swf(tmp_path / "s.swf", n=200, procs=16, max_gap=900)
    scenario = validate({
        "name": "sites", "service_providers": [], "clients": [],
        "batch_sites": [{"name": "site", "trace": str(trace),
                         "varq": {"fraction": 0.3, "probability": 0.5}}],
        "sweep": {"parameters": {"batch_sites.0.varq.probability": [0.5, 0.9]},
                  "metrics": ["varq_jobs", "varq_success_pct", "utilization",
                              "qbets_correct_pct"]},
    })  # fmt: skip
    plan = SweepPlan.from_scenario(scenario)
    run_sweep(plan, tmp_path / "out", executor=InProcess())
    frame = load_results(tmp_path / "out")
    assert list(frame["table"]) == ["sites", "sites"]
    assert list(frame["provider"]) == ["site/varq", "site/varq"]
    run = plan.runs[1]
    direct = GridMarket(run.scenario, seed=run.seed).run().sites.iloc[0]
    stored = frame.set_index("run_id").loc[run.run_id]
    for metric in ("varq_jobs", "varq_success_pct", "utilization", "qbets_correct_pct"):
        assert stored[metric] == direct[metric]
    assert frame["varq_jobs"].dtype.kind == "i"  # a count stays an integer
    report = make_report(tmp_path / "out", metrics=["qbets_correct_pct"], png=False)
    html = report.figures[0].read_text(encoding="utf-8")
    assert "QBETS bounds correct (% of jobs)" in html


def test_a_provider_next_to_a_site_broker_keeps_its_rows_apart(tmp_path):
    trace = synthetic_swf(tmp_path / "s.swf", n=150, procs=32, max_gap=900)
    workload = {"kind": "profit", "jobs": 30, "mean_interarrival": 0.2}
    scenario = validate({
        "name": "broker",
        "resource_providers": [{"name": "rp", "capacity": 10, "price": 3.0}],
        "service_providers": [{"name": "sp", "scheduler": "first_profit",
                               "admission": "positive_opportunity", "resource_provider": "rp"}],
        "clients": [{"name": "clients", "workload": workload}],
        "batch_sites": [{"name": "site", "trace": str(trace), "brokers": [
            {"name": "b", "same_jobs_as": 0, "workload": workload, "probability": 0.9,
             "price": 3.0}]}],
        "sweep": {"parameters": {"resource_providers.0.price": [2.0, 3.0]}},
    })  # fmt: skip
    run_sweep(SweepPlan.from_scenario(scenario), tmp_path / "out", executor=InProcess())
    frame = load_results(tmp_path / "out")
    providers, sites = frame[frame["table"] == "providers"], frame[frame["table"] == "sites"]
    assert list(providers["provider"]) == ["sp", "sp"] and list(sites["provider"]) == ["site/b"] * 2
    assert all(math.isnan(v) for v in providers["promises_kept_pct"])  # a site broker's figure
    assert sites["offered"].eq(30).all() and sites["profit"].notna().all()
