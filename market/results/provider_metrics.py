"""Metrics of a market run, per service provider (Popovici & Wilkes SC'05 §4-5).

- ``profit``: revenue (payments less penalties) minus rent; ``profit_rate``: profit per hour of
  the run, from time 0 to the last completion.
- ``accepted_pct``: jobs the provider took on, as a share of the jobs offered to it.
- ``utilization``: processor-hours rented over processor-hours rentable from its resource
  provider, during the arrival phase only (first to last arrival), "excluding the emptying phase"
  as the paper measures it (§4, footnote 3: while rented, a processor counts as fully used).
- ``profit_rate_arrivals`` and ``utilization_run``: the profit rate over the arrival phase and the
  utilization over the whole run, the other window of each (see :mod:`market.results.windows`).
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
:mod:`market.results.market_metrics`); a provider renting from several pools counts all of them in its
utilization.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from market.results.fulfilment import deadline_summary
from market.results.job_columns import job_columns
from market.results.market_metrics import market_reporters, provider_market
from market.results.value_metrics import adaptive_reporters, class_acceptance
from market.results.windows import rented_hours, window_rate

if TYPE_CHECKING:
    from agents.service_provider import ServiceProviderAgent
    from market.sim.model import GridMarket


SLOWDOWN_BOUND = 10.0 / 3600.0  # hours: runtimes shorter than 10 s count as 10 s


def _fsum(values: np.ndarray) -> float:
    """The correctly rounded sum (``math.fsum``: the same whatever the order)."""
    return math.fsum(values.tolist())


def _mean(values: np.ndarray) -> float:
    return _fsum(values) / len(values) if len(values) else math.nan


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


def provider_summary(
    model: GridMarket, sp: ServiceProviderAgent, columns: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The summary metrics of one service provider, now (final once the run has ended), from
    its records' ``columns`` (:func:`market.results.job_columns.job_columns`; the ones it reads are
    read here if not given)."""
    now = model.time if model.end_time is None else model.end_time
    cols = columns if columns is not None else job_columns(sp, table=False)
    offered = len(sp.records)
    committed = np.array(cols["committed"], dtype=bool)
    accepted = int(np.count_nonzero(committed))
    end, start, arrival = cols["end"], cols["start"], cols["arrival"]
    processors, work, deadline = cols["processors"], cols["work"], cols["deadline"]
    done = ~np.isnan(end)
    completed = int(np.count_nonzero(done))

    lo, hi = model.first_arrival, model.last_arrival
    spans = np.column_stack((processors, start, end, cols["paid"]))
    rented = rented_hours(spans, lo, hi, now)
    rentable = _capacity(sp) * (hi - lo) if hi > lo else 0.0

    offered_work = _fsum(work)
    unadmitted_work = _fsum(work[~committed])
    missed = int(np.count_nonzero(done & (end > deadline + 1e-9)))  # (NaN: no deadline)
    best_effort = done & (np.isnan(deadline) | np.array(cols["best_effort"], dtype=bool))
    responses = end[best_effort] - arrival[best_effort]
    runtimes = np.maximum(end[best_effort] - start[best_effort], SLOWDOWN_BOUND)
    slowdowns = np.maximum(1.0, responses / runtimes)

    expected = cols["expected_profit"][done]
    predicted = _fsum(np.where(np.isnan(expected), 0.0, expected))  # (None counts 0)
    realised = _fsum(cols["profit"][done])
    spec = next(s for s in model.spec.service_providers if s.name == sp.name)
    profit = sp.profit
    records = sp.records.values()
    return (
        {
            "provider": sp.name,
            "scheduler": spec.scheduler.label(),
            "admission": spec.admission.label(),
            "offered": offered,
            "accepted": accepted,
            "accepted_pct": _pct(accepted, offered),
            "completed": completed,
            "revenue": sp.revenue,
            "rent": sp.rent_paid,
            "profit": profit,
            "profit_rate": profit / now if now > 0 else math.nan,
            "utilization": _pct(rented, rentable),
            "mean_processors": _fsum(processors[done]) / completed if completed else math.nan,
            "predicted_profit": predicted,
            "realised_pct": _pct(realised, predicted),
            "unadmitted_pct": _pct(offered - accepted, offered),
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
    """``profit_rate_arrivals`` and ``utilization_run`` (market/results/windows.py) of the jobs'
    ``(processors, start, end, paid)``."""
    rp = sp.resource_provider
    return {
        "profit_rate_arrivals": window_rate(jobs, rp.price, lo, hi, now),
        "utilization_run": _pct(rented_hours(jobs, 0.0, now, now), _capacity(sp) * now),
    }
