"""Metrics of a market run, per service provider (Popovici & Wilkes SC'05 §4-5).

- ``profit``: revenue (payments less penalties) minus rent; ``profit_rate``: profit per hour of
  the run, from time 0 to the last completion.
- ``accepted_pct``: jobs the provider took on, as a share of the jobs offered to it.
- ``utilization``: processor-hours rented over processor-hours rentable from its resource
  provider, during the arrival phase only (first to last arrival), "excluding the emptying phase"
  as the paper measures it (§4, footnote 3: while rented, a processor counts as fully used).
- ``profit_rate_arrivals`` and ``utilization_run``: the profit rate over the arrival phase and the
  utilization over the whole run, the other window of each (see :mod:`market.windows`).
- ``mean_processors``: the mean shape of the jobs it ran.
- ``realised_pct``: realised profit of completed jobs as a share of the profit their admission
  decision predicted (Figures 3d-6b).

For deadline schedulers (Islam et al., QoPS TR §5): ``unadmitted_pct`` and
``unadmitted_work_pct`` (the share of offered jobs, and of offered processor-hours of work, not
admitted); ``deadlines_missed`` (completed jobs that ended after their deadline: 0 when the
guarantees hold); ``mean_response`` (hours from arrival to completion) and ``mean_slowdown``
(bounded slowdown, response over max(runtime, 10 s), at least 1) of the completed jobs without a
user deadline (all jobs when the workload has no deadlines).

In a competing market (issue 18) every row also has the provider's place in it (``pricing``,
``market_share_pct``, ``win_rate_pct``, ``mean_price``, ``mean_markup``: see
:mod:`market.market_metrics`); a provider renting from several pools counts all of them in its
utilization.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from market.fulfilment import deadline_summary
from market.market_metrics import market_reporters, provider_market
from market.value_metrics import adaptive_reporters, class_acceptance
from market.windows import rented_hours, window_rate
from market.windows import spans as window_spans

if TYPE_CHECKING:
    from agents.service_provider import ServiceProviderAgent
    from market.model import GridMarket


SLOWDOWN_BOUND = 10.0 / 3600.0  # hours: runtimes shorter than 10 s count as 10 s


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def _pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole else math.nan


def provider_timeseries_reporters() -> dict[str, Any]:
    """DataCollector reporters sampled for every service provider."""
    return {
        "provider": "name",
        "profit": "profit",
        "revenue": "revenue",
        "rent": "rent_paid",
        "profit_rate": lambda sp: sp.profit / sp.model.time if sp.model.time > 0 else 0.0,
        "utilization": lambda sp: sp.busy / _capacity(sp),
        "queue_length": lambda sp: len(sp.queue),
        "running": "running",
        "accepted_pct": lambda sp: _pct(sp.accepted, len(sp.records)),
        **adaptive_reporters(),
        **market_reporters(),
    }


def _capacity(sp: Any) -> int:
    """Processors of every pool ``sp`` rents from."""
    pools = getattr(sp, "pools", None)
    return sum(p.capacity for p in pools) if pools else sp.resource_provider.capacity


def provider_summary(model: GridMarket, sp: ServiceProviderAgent) -> dict[str, Any]:
    """The summary metrics of one service provider, now (final once the run has ended)."""
    now = model.time if model.end_time is None else model.end_time
    records = sp.records.values()
    done = [r for r in records if r.end is not None]
    committed = sum(r.committed for r in records)

    lo, hi = model.first_arrival, model.last_arrival
    spans = window_spans([(r.processors, r.start, r.end, r.paid) for r in records])
    rented = rented_hours(spans, lo, hi, now)
    rentable = _capacity(sp) * (hi - lo) if hi > lo else 0.0

    offered_work = math.fsum(r.job.work for r in records)
    unadmitted_work = math.fsum(r.job.work for r in records if not r.committed)
    missed = sum(1 for r in done if r.job.deadline is not None and r.end > r.job.deadline + 1e-9)
    best_effort = [r for r in done if r.job.deadline is None or r.job.best_effort]
    responses = [r.end - r.job.arrival for r in best_effort]
    slowdowns = [
        max(1.0, (r.end - r.job.arrival) / max(r.end - r.start, SLOWDOWN_BOUND))
        for r in best_effort
    ]

    predicted = math.fsum(r.decision.expected_profit or 0.0 for r in done)
    realised = math.fsum(r.profit for r in done)
    spec = next(s for s in model.spec.service_providers if s.name == sp.name)
    profit = sp.profit
    return (
        {
            "provider": sp.name,
            "scheduler": spec.scheduler.label(),
            "admission": spec.admission.label(),
            "offered": len(sp.records),
            "accepted": committed,
            "accepted_pct": _pct(committed, len(sp.records)),
            "completed": len(done),
            "revenue": sp.revenue,
            "rent": sp.rent_paid,
            "profit": profit,
            "profit_rate": profit / now if now > 0 else math.nan,
            "utilization": _pct(rented, rentable),
            "mean_processors": (
                math.fsum(r.processors for r in done) / len(done) if done else math.nan
            ),
            "predicted_profit": predicted,
            "realised_pct": _pct(realised, predicted),
            "unadmitted_pct": _pct(len(sp.records) - committed, len(sp.records)),
            "unadmitted_work_pct": _pct(unadmitted_work, offered_work),
            "deadlines_missed": missed,
            "mean_response": _mean(responses),
            "mean_slowdown": _mean(slowdowns),
            "end_time": now,
            **_other_windows(sp, spans, now, lo, hi),
            **class_acceptance(records),
        }
        | deadline_summary(model, sp)
        | provider_market(model, sp)
    )


def _other_windows(sp, jobs, now: float, lo: float, hi: float) -> dict[str, float]:
    """``profit_rate_arrivals`` and ``utilization_run`` (market/windows.py) of the jobs'
    ``(processors, start, end, paid)``."""
    rp = sp.resource_provider
    return {
        "profit_rate_arrivals": window_rate(jobs, rp.price, lo, hi, now),
        "utilization_run": _pct(rented_hours(jobs, 0.0, now, now), _capacity(sp) * now),
    }
