"""The profit family: a provider's jobs, money and capacity (Popovici & Wilkes SC'05 §4-5).

``profit`` is revenue (payments less penalties) minus rent; ``profit_rate`` is profit per hour
of the run, from time 0 to the last completion. ``utilization`` is processor-hours rented over
processor-hours rentable during the arrival phase, "excluding the emptying phase" (§4, footnote
3: while rented, a processor counts as fully used); a time-shared deadline cluster counts the
processor time its jobs used instead (:mod:`market.results.fulfilment`). ``realised_pct`` is the
realised profit of completed jobs as a share of what their admission decisions predicted
(Figures 3d-6b). ``profit_rate_arrivals`` and ``utilization_run`` measure the other window of
each (:mod:`market.results.windows`).
"""

from __future__ import annotations

import math

from market.results.fulfilment import used_share
from market.results.metrics.provider_run import ProviderRun, capacity, fsum, pct
from market.results.metrics.registry import METRICS, Metric, RunKind, always
from market.results.windows import rented_hours, window_rate


def _money(kind: RunKind) -> bool:
    return kind.money


def _rent(kind: RunKind) -> bool:
    return kind.rent


def _not_qos(kind: RunKind) -> bool:
    return not kind.qos


def _utilization(run: ProviderRun) -> float:
    if run.sp.cluster is not None:  # time-shared nodes run several jobs at once
        return used_share(run.model, run.sp)
    return pct(run.rented, run.rentable)


def _profit_rate(run: ProviderRun) -> float:
    return run.sp.profit / run.now if run.now > 0 else math.nan


def _mean_processors(run: ProviderRun) -> float:
    done = run.cols["processors"][run.done]
    return fsum(done) / run.completed if run.completed else math.nan


def _realised_pct(run: ProviderRun) -> float:
    return pct(fsum(run.cols["profit"][run.done]), run.predicted)


def _rate_arrivals(run: ProviderRun) -> float:
    price = run.sp.resource_provider.price
    return window_rate(run.spans, price, run.lo, run.hi, run.now)


def _utilization_run(run: ProviderRun) -> float:
    return pct(rented_hours(run.spans, 0.0, run.now, run.now), run.capacity * run.now)


PROVIDERS_SITES = ("providers", "sites")

METRICS.register(
    Metric("offered", "profit", "offered", "jobs offered", int, "jobs", 0, PROVIDERS_SITES,
           compute=lambda run: run.offered),
    Metric("accepted", "profit", "accepted", "jobs accepted", int, "jobs", 0, PROVIDERS_SITES,
           compute=lambda run: run.accepted),
    Metric("accepted_pct", "profit", "acc. %", "jobs accepted (%)", float, "%", 1,
           (*PROVIDERS_SITES, "timeseries"), _not_qos, 1,
           compute=lambda run: pct(run.accepted, run.offered),
           sample=lambda sp: pct(sp.accepted, len(sp.records)), monitor=",.1f"),
    Metric("completed", "profit", "completed", "jobs completed", int, "jobs", 0, PROVIDERS_SITES,
           compute=lambda run: run.completed),
    Metric("mean_processors", "profit", "procs", "processors per job", float, "processors", 1,
           PROVIDERS_SITES, always, 3, compute=_mean_processors),
    Metric("utilization", "profit", "util %", "utilization (%)", float, "%", 1,
           (*PROVIDERS_SITES, "market", "timeseries"), always, 1, compute=_utilization,
           sample=lambda sp: sp.busy / capacity(sp), monitor="pct"),
    Metric("revenue", "profit", "revenue", "revenue (money)", float, "money", 0,
           (*PROVIDERS_SITES, "market", "timeseries"), _money, 1,
           compute=lambda run: run.sp.revenue, sample="revenue", monitor=",.0f"),
    Metric("rent", "profit", "rent", "rent (money)", float, "money", 0,
           (*PROVIDERS_SITES, "market", "timeseries"), _rent, 1,
           compute=lambda run: run.sp.rent_paid, sample="rent_paid", monitor=",.0f"),
    Metric("profit", "profit", "profit", "profit (money)", float, "money", 0,
           (*PROVIDERS_SITES, "market", "timeseries"), _rent, 1,
           compute=lambda run: run.sp.profit, sample="profit", monitor=",.0f"),
    Metric("profit_rate", "profit", "profit/h", "profit rate (money per hour)", float,
           "money/h", 1, (*PROVIDERS_SITES, "timeseries"), _rent, 1, compute=_profit_rate,
           sample=lambda sp: sp.profit / sp.model.time if sp.model.time > 0 else 0.0,
           monitor=",.1f"),
    Metric("predicted_profit", "profit", "predicted", "predicted profit (money)", float, "money",
           0, compute=lambda run: run.predicted),
    Metric("realised_pct", "profit", "real. %", "predicted profit realised (%)", float, "%", 1,
           shown=_rent, priority=3, compute=_realised_pct),
    Metric("end_time", "profit", "end h", "run length (h)", float, "h", 1,
           compute=lambda run: run.now),
    Metric("profit_rate_arrivals", "profit", "profit/h arr.",
           "profit rate over the arrivals (money per hour)", float, "money/h", 1,
           compute=_rate_arrivals),
    Metric("utilization_run", "profit", "util % run", "utilization over the run (%)", float,
           "%", 1, compute=_utilization_run),
)  # fmt: skip
