"""The batch-scheduling family: response times, slowdowns and the queue (Feitelson, Rudolph,
Schwiegelshohn, Sevcik & Wong, "Theory and practice in parallel job scheduling", JSSPP 1997).

The **bounded slowdown** of a job is ``max(1, (wait + run) / max(run, 10 s))``: its response
time over its runtime, with runtimes shorter than 10 s counted as 10 s so that very short jobs do
not dominate the mean. ``bounded_slowdown_10s`` is its mean over every completed job;
``mean_wait`` (hours from arrival to start) is over every completed job too; ``mean_slowdown``
and ``mean_response`` (hours from arrival to completion) are over the completed jobs without a
deadline of their own (all of them when the workload has no deadlines), the QoS papers'
best-effort jobs. The run table shows the wait and the bounded slowdown where no money moves
(trace replays, QoPS, Libra).
"""

from __future__ import annotations

import numpy as np

from market.results.metrics.provider_run import ProviderRun
from market.results.metrics.registry import METRICS, Metric, RunKind, always

THRESHOLD = 10.0 / 3600.0  # hours: runtimes shorter than 10 s count as 10 s


def bounded_slowdowns(
    arrival: np.ndarray, start: np.ndarray, end: np.ndarray, threshold: float = THRESHOLD
) -> np.ndarray:
    """Per job, ``max(1, (end - arrival) / max(end - start, threshold))`` (times in hours)."""
    return np.maximum(1.0, (end - arrival) / np.maximum(end - start, threshold))


def _mean_slowdown(run: ProviderRun, jobs: np.ndarray) -> float:
    """The mean bounded slowdown of the jobs ``jobs`` selects."""
    return run.mean_over(jobs, bounded_slowdowns, "arrival", "start", "end")


def _mean_response(run: ProviderRun) -> float:
    return run.mean_over(run.best_effort, np.subtract, "end", "arrival")


def _mean_wait(run: ProviderRun) -> float:
    return run.mean_over(run.done, np.subtract, "start", "arrival")


def _bounded_slowdown_10s(run: ProviderRun) -> float:
    """The mean bounded slowdown of every completed job."""
    return _mean_slowdown(run, run.done)


def _no_money(kind: RunKind) -> bool:
    return not kind.money


def _qos(kind: RunKind) -> bool:
    return kind.qos


METRICS.register(
    Metric("mean_response", "scheduling", "response h", "mean response time (h)", float, "h", 2,
           compute=_mean_response),
    Metric("mean_slowdown", "scheduling", "sld. best-eff.",
           "mean bounded slowdown of the jobs without a deadline", float, "", 2, ("providers",),
           _qos, 3, compute=lambda run: _mean_slowdown(run, run.best_effort)),
    Metric("mean_wait", "scheduling", "wait h", "mean wait from arrival to start (h)", float, "h",
           2, ("providers",), _no_money, 2, compute=_mean_wait, monitor=",.2f"),
    Metric("bounded_slowdown_10s", "scheduling", "BSLD", "mean bounded slowdown (10 s threshold)",
           float, "", 2, ("providers",), _no_money, 2, compute=_bounded_slowdown_10s,
           monitor=",.2f"),
    Metric("queue_length", "scheduling", "queue", "jobs waiting", int, "jobs", 0,
           ("timeseries",), always, sample=lambda sp: len(sp.queue), monitor=",.0f"),
    Metric("running", "scheduling", "running", "jobs running", int, "jobs", 0, ("timeseries",),
           always, sample="running", monitor=",.0f"),
)  # fmt: skip
