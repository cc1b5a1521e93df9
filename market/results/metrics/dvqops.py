"""The DVQoPS family: the value-aware admission's parameters as it decided (Islam et al.,
OSU-CISRC-3/07-TR17, §4): the OC-Factor (VQoPS's fixed one, DVQoPS's adapted one) and DVQoPS's
rollback window, per decision in the per-job table and sampled over time."""

from __future__ import annotations

from typing import Any

from market.results.job_columns import JobColumns, register_job_columns
from market.results.metrics.registry import METRICS, Metric
from market.results.value_metrics import admission_param

PARAMS = ("oc_factor", "rollback_window")


def _decided(sp: Any, records: list, decisions: list) -> dict[str, list]:
    params = [d.params for d in decisions]
    return {name: [p.get(name) if p else None for p in params] for name in PARAMS}


register_job_columns(JobColumns("dvqops", PARAMS, frozenset(PARAMS), _decided))

METRICS.register(
    Metric("oc_factor", "dvqops", "OC-Factor", "OC-Factor", float, "", 2, ("timeseries",),
           sample=lambda sp: admission_param(sp, "oc_factor")),
    Metric("rollback_window", "dvqops", "window", "rollback window (jobs)", float, "jobs", 0,
           ("timeseries",), sample=lambda sp: admission_param(sp, "rollback_window")),
)  # fmt: skip
