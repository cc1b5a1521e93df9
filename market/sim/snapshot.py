"""What a running market looks like now: a plain, read-only picture for the dashboard and the CLI.

:func:`snapshot` is the one place outside the agents that reads their state; viewers (the
dashboard's session, scripts) read a :class:`MarketSnapshot` instead of agent internals. For
plots of outcomes over time, :func:`job_outcomes` gives every job's arrival, class, admission,
deadline and end as arrays, and :func:`cluster_shares` the jobs' shares on each node of a
time-shared cluster. Money is computed by the same code as the run's: rent by the resource
provider's :class:`~market.core.rent.PriceSchedule`, values by the job's utility function.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from market.results.market_metrics import market_figures
from market.results.provider_metrics import provider_timeseries_reporters

if TYPE_CHECKING:
    from market.sim.model import GridMarket


@dataclass(frozen=True, slots=True)
class JobView:
    """A running or planned job: its shape, start, (predicted) end and expected profit (value at
    that end minus the rent for its processors until then)."""

    job: int
    processors: int
    start: float
    end: float
    status: str  # "running" or "planned"
    expected_profit: float


@dataclass(frozen=True, slots=True)
class DecisionView:
    """One admission decision (see :class:`agents.policies.base.Decision`)."""

    time: float
    job: int
    accepted: bool
    committed: bool
    reason: str
    detail: str
    processors: int | None
    expected_profit: float | None


@dataclass(frozen=True, slots=True)
class ProviderView:
    """One service provider now: its time-series metrics, jobs and latest decisions."""

    name: str
    metrics: dict[str, float]
    running: list[JobView]
    planned: list[JobView]
    decisions: list[DecisionView]  # newest first


@dataclass(frozen=True, slots=True)
class MarketSnapshot:
    """The market at ``time``: ``running`` until it has finished, ``stalled`` (a one-line
    reason) if it cannot progress."""

    time: float
    running: bool
    providers: list[ProviderView]
    stalled: str | None = None
    #: the market as a whole (:func:`market.results.market_metrics.market_figures`): each resource
    #: provider's rent revenue, the clients' surplus and declined jobs, welfare
    market: dict[str, float] | None = None


def _finite(value: Any) -> float:
    value = float(value)
    return value if math.isfinite(value) else math.nan


def snapshot(
    model: GridMarket, decisions: int = 15, planned: int = 40, jobs: bool = True
) -> MarketSnapshot:
    """The market now, with up to ``decisions`` latest decisions and ``planned`` planned jobs
    per service provider; only the metrics unless ``jobs``."""
    now = model.time
    reporters = provider_timeseries_reporters()
    views = []
    for sp in model.service_providers.values():
        metrics = {
            # (a reporter is an attribute's name or a function, as Mesa's DataCollector takes it)
            name: _finite(getattr(sp, r) if isinstance(r, str) else r(sp))
            for name, r in reporters.items()
            if name != "provider"
        }
        if not jobs:
            views.append(ProviderView(sp.name, metrics, [], [], []))
            continue
        views.append(
            ProviderView(
                sp.name,
                metrics,
                _running(sp, now),
                _planned(sp, now, planned),
                _decisions(sp, decisions),
            )
        )
    return MarketSnapshot(now, model.running, views, model.stalled, market_figures(model))


def cluster_shares(model: GridMarket, provider: str) -> list[dict[int, float]] | None:
    """The jobs on each node of ``provider``'s time-shared cluster now, ``{job id: share}`` per
    node (Yeo & Buyya ICPP'06 Eq. 1, fixed at admission: :mod:`market.core.timeshare`); None for a
    provider that does not time-share (EDF, the planning providers)."""
    cluster = model.service_providers[provider].cluster
    if cluster is None:
        return None
    return [{job_id: job.share for job_id, job in node.items()} for node in cluster.on_node]


def _running(sp, now: float) -> list[JobView]:
    rp = sp.resource_provider
    rows = []
    for lease in rp.leases.values():
        if lease.tenant != sp.name or lease.job is None:
            continue
        job = sp.records[lease.job].job
        end = max(lease.until, now)
        rent = rp.price.cost(lease.processors, lease.start, end)
        rows.append(
            JobView(job.id, lease.processors, lease.start, end, "running", job.utility(end) - rent)
        )
    return rows


def _planned(sp, now: float, limit: int) -> list[JobView]:
    plan = sp.last_plan  # (None: a provider that does not plan)
    if plan is None or not sp.queue:
        return []
    queued = {job.id for job in sp.queue}
    placements = sorted((p for p in plan.placements if p.job.id in queued), key=lambda p: p.start)
    return [
        JobView(p.job.id, p.processors, max(p.start, now), max(p.end, now), "planned", p.profit)
        for p in placements[:limit]
    ]


def _decisions(sp, limit: int) -> list[DecisionView]:
    rows = []
    for record in islice(reversed(sp.records.values()), limit):
        d = record.decision
        rows.append(
            DecisionView(
                record.job.arrival,
                record.job.id,
                d.accepted,
                record.committed,
                d.reason,
                d.detail,
                d.processors,
                d.expected_profit,
            )
        )
    return rows
