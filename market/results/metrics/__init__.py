"""One metric registry (:mod:`market.results.metrics.registry`), filled by one module per family.

Importing this package registers every family, in the order the tables show them: profit (jobs,
money, utilization), QoS (deadlines), batch scheduling (response, slowdowns, the queue), VQoPS
(job classes, revenue gain), DVQoPS (the admission's parameters), the market (shares, prices,
the market table) and VARQ (batch sites, VARQ users, site brokers). A new metric is one
:class:`Metric` entry with its function in its family's module (a new family: a module here,
imported below).
"""

from __future__ import annotations

# Each module registers its family, in the order the tables show them: not sorted.
# isort: off
from market.results.metrics import profit  # noqa: F401
from market.results.metrics import qos  # noqa: F401
from market.results.metrics import scheduling  # noqa: F401
from market.results.metrics import value  # noqa: F401
from market.results.metrics import dvqops  # noqa: F401
from market.results.metrics import market  # noqa: F401
from market.results.metrics import sites  # noqa: F401

# isort: on
from market.results.metrics.provider_run import ProviderRun
from market.results.metrics.registry import METRICS, Metric, Registry, RunKind

#: The families, in the order they register (and the tables show them).
FAMILIES = ("profit", "qos", "scheduling", "value", "dvqops", "market", "varq")

__all__ = [
    "FAMILIES",
    "METRICS",
    "Metric",
    "ProviderRun",
    "Registry",
    "RunKind",
    "label",
    "site_metrics",
    "summary_metrics",
    "sweep_metrics",
]


def summary_metrics() -> dict[str, type]:
    """The numeric metrics of a run summary's provider rows, ``{name: int or float}``."""
    return {
        m.name: m.type
        for m in METRICS.of("providers")
        if m.compute is not None and m.type is not str
    }


def site_metrics() -> dict[str, type]:
    """The numeric metrics of the site rows (``RunResult.sites``)."""
    return METRICS.numeric("sites")


def sweep_metrics() -> dict[str, type]:
    """What a sweep can keep: the summary's and the sites' numeric metrics."""
    return summary_metrics() | site_metrics()


def label(name: str) -> str:
    """The axis title of metric ``name`` (the name itself for a column not registered)."""
    metric = METRICS.get(name)
    return metric.label if metric is not None else name
