"""The metric registry (market/results/metrics): every metric a run reports is registered, once,
with a header that fits a terminal column; and a metric registered once reaches every reader
(the run summary, the run table, the sweep's metric list, the report's axis titles, the
dashboard's monitors)."""

from __future__ import annotations

import pandas as pd
import pytest

from market.inputs.scenario import validate
from market.results.metrics import (
    FAMILIES,
    METRICS,
    Metric,
    Registry,
    label,
    site_metrics,
    summary_metrics,
    sweep_metrics,
)
from market.results.metrics.registry import TABLES, always
from market.results.outputs import SITE_LABELS, table_columns
from market.results.provider_metrics import provider_summary
from market.sim.model import GridMarket
from tests.conftest import DEFAULT_SCENARIO, synthetic_swf

LABELS = ("provider", "scheduler", "admission")


@pytest.fixture(scope="module")
def profit_run():
    from market.inputs.scenario import load

    scenario = load(DEFAULT_SCENARIO).with_overrides(
        {"variants": {}, "clients.0.workload.jobs": 30}
    )
    model = GridMarket(scenario, seed=1)
    return model, model.run()


def test_every_summary_column_is_a_registered_metric_in_registry_order(profit_run):
    _, result = profit_run
    columns = [c for c in result.summary if c not in LABELS]
    assert columns == [m.name for m in METRICS.of("providers") if m.compute is not None]
    numeric = [c for c in columns if pd.api.types.is_numeric_dtype(result.summary[c])]
    assert numeric == list(summary_metrics())
    for name, kind in summary_metrics().items():  # counts are stored as integers
        value = result.summary[name].iloc[0]
        assert kind is float or float(value).is_integer()


def test_the_families_register_in_their_order():
    families = [m.family for m in METRICS]
    assert sorted(families, key=FAMILIES.index) == families  # grouped, in FAMILIES order
    assert families[0] == "profit" and families[-1] == "varq"


def test_every_time_series_and_per_job_column_comes_from_a_family(profit_run):
    _, result = profit_run
    sampled = [m.name for m in METRICS.of("timeseries") if m.sample is not None]
    assert list(result.timeseries.columns) == ["time", "provider", *sampled]
    for family_column in ("oc_factor", "rollback_window", "pool", "price", "surplus"):
        assert family_column in result.jobs  # the DVQoPS and market families' own


def test_every_figure_of_a_site_row_is_registered(tmp_path):
    trace = synthetic_swf(tmp_path / "s.swf", n=200, procs=16, max_gap=900)
    spec = {
        "name": "site", "service_providers": [], "clients": [],
        "batch_sites": [{"name": "site", "trace": str(trace),
                         "varq": {"fraction": 0.3, "probability": 0.5}}],
    }  # fmt: skip
    result = GridMarket(validate(spec), seed=2).run()
    assert result.summary.empty and len(result.sites) == 1
    unregistered = set(result.sites) - set(SITE_LABELS) - set(site_metrics())
    assert not unregistered
    assert not {"profit", "revenue", "accepted_pct"} & set(result.sites)  # no NaN padding


def test_headers_fit_a_column_and_are_unique_within_a_table():
    for table in TABLES:
        headers = [m.header for m in METRICS.of(table)]
        assert len(headers) == len(set(headers)), table
    assert all(len(m.header) <= 14 for m in METRICS)
    with pytest.raises(ValueError, match="over 14 characters"):
        Metric("x", "test", "a header far too long", "x")
    registry = Registry()
    registry.register(Metric("x", "test", "x", "x"))
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(Metric("x", "test", "x", "x"))


def test_a_metric_registered_once_reaches_every_reader(monkeypatch, profit_run):
    from dashboards.views import monitor_columns

    model, _ = profit_run
    jobs_per_hour = Metric(
        "completed_per_hour", "test", "done/h", "jobs completed per hour", float, "jobs/h", 2,
        shown=always, compute=lambda run: run.completed / run.now, monitor=",.2f",
    )  # fmt: skip
    registered = dict(METRICS._metrics, completed_per_hour=jobs_per_hour)
    monkeypatch.setattr(METRICS, "_metrics", registered)

    sp = next(iter(model.service_providers.values()))
    row = provider_summary(model, sp)
    assert row["completed_per_hour"] == pytest.approx(row["completed"] / row["end_time"])
    assert table_columns(pd.DataFrame([row]))["completed_per_hour"] == "done/h"
    assert "completed_per_hour" in sweep_metrics()
    assert label("completed_per_hour") == "jobs completed per hour"
    monitors = monitor_columns([{"summary": row}])
    assert ("completed_per_hour", "done/h", ",.2f") in monitors
