"""The QoS family: deadlines admitted, missed and fulfilled (Islam et al., QoPS TR §5; Yeo &
Buyya, ICPP'06 §4).

``unadmitted_pct`` and ``unadmitted_work_pct`` are the share of the offered jobs, and of the
offered processor-hours of work, not admitted; ``deadlines_missed`` counts completed jobs that
ended after their deadline (0 when the guarantees hold); ``deadlines_fulfilled_pct`` and
``mean_slowdown_fulfilled`` are Yeo & Buyya's (:mod:`market.results.fulfilment`). The run table
shows them where jobs had deadlines.
"""

from __future__ import annotations

import numpy as np

from market.results.fulfilment import fulfilment
from market.results.metrics.provider_run import ProviderRun, fsum, pct
from market.results.metrics.registry import METRICS, Metric, RunKind

LATE = 1e-9  # hours: a completion this close after the deadline is on time (float noise)


def _qos(kind: RunKind) -> bool:
    return kind.qos


def _unadmitted_pct(run: ProviderRun) -> float:
    return pct(run.offered - run.accepted, run.offered)


def _unadmitted_work_pct(run: ProviderRun) -> float:
    work = run.cols["work"]
    return pct(fsum(work[~run.committed]), fsum(work))


def _missed(run: ProviderRun) -> int:
    end, deadline = run.cols["end"], run.cols["deadline"]
    return int(np.count_nonzero(run.done & (end > deadline + LATE)))  # (NaN: no deadline)


def _fulfilment(run: ProviderRun) -> tuple[float, float]:
    return fulfilment(run.records)


METRICS.register(
    Metric("unadmitted_pct", "qos", "unadm. %", "jobs not admitted (%)", float, "%", 1,
           ("providers",), _qos, 1, compute=_unadmitted_pct, monitor=",.1f"),
    Metric("unadmitted_work_pct", "qos", "unadm. work %",
           "work not admitted (% of processor-hours)", float, "%", 1, ("providers",), _qos, 2,
           compute=_unadmitted_work_pct),
    Metric("deadlines_missed", "qos", "missed", "deadlines missed (jobs)", int, "jobs", 0,
           ("providers",), _qos, 1, compute=_missed, monitor=",.0f"),
    Metric("deadlines_fulfilled_pct", "qos", "fulfilled %", "deadlines fulfilled (% of jobs)",
           float, "%", 1, ("providers",), _qos, 1, compute=lambda run: run.once(_fulfilment)[0],
           monitor=",.1f"),
    Metric("mean_slowdown_fulfilled", "qos", "sld. fulfilled", "mean slowdown of fulfilled jobs",
           float, "", 2, ("providers",), _qos, 2, compute=lambda run: run.once(_fulfilment)[1],
           monitor=",.2f"),
)  # fmt: skip
