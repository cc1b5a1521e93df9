"""A service provider's summary row and time series, from the metric registry
(:mod:`market.results.metrics`): every registered metric of the ``providers`` table that has a
``compute`` function, in registry order, after the provider's labels; and every metric of the
``timeseries`` table that has a ``sample`` reporter, for the model's DataCollector.

The labels are the provider's ``scheduler`` and ``admission``; a deadline cluster
(:mod:`agents.cluster_provider`) is labelled by its policy and its cluster's admission. A provider
renting from several pools counts all of them in its utilization.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from market.results.metrics import METRICS, ProviderRun

if TYPE_CHECKING:
    from market.sim.model import GridMarket


def provider_timeseries_reporters() -> dict[str, Any]:
    """DataCollector reporters sampled for every service provider."""
    sampled = {m.name: m.sample for m in METRICS.of("timeseries") if m.sample is not None}
    return {"provider": "name", **sampled}


def provider_summary(
    model: GridMarket, sp: Any, columns: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The summary metrics of one service provider, now (final once the run has ended), from
    its records' ``columns`` (:func:`market.results.job_columns.job_columns`; the ones it reads are
    read here if not given)."""
    run = ProviderRun(model, sp, columns)
    policy = sp.policy  # a deadline cluster's (None: a planning provider)
    if policy is None:
        scheduler, admission = run.spec.scheduler.label(), run.spec.admission.label()
    else:
        scheduler, admission = policy.label(), run.spec.cluster.label()
    row: dict[str, Any] = {"provider": sp.name, "scheduler": scheduler, "admission": admission}
    for metric in METRICS.of("providers"):
        if metric.compute is not None:
            row[metric.name] = metric.compute(run)
    return row
