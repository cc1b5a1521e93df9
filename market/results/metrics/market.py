"""The market family: a provider's place in a competing market, and the market table's flows of
money (:mod:`market.results.market_metrics`).

Per service provider: ``pricing`` (its rule), ``market_share_pct`` (its jobs placed over all jobs
placed with any provider), ``win_rate_pct`` (its accepting quotes the clients took),
``mean_price`` (expected price of the quotes won) and ``mean_markup`` (the markup its rule applied
to the quotes won; NaN under ``utility``). The per-job table gains the market terms of each job:
``pool``, ``price``, ``promised_end``, ``quote_markup`` and ``surplus``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from market.results.job_columns import JobColumns, register_job_columns
from market.results.market_metrics import mean_price, placed_jobs
from market.results.metrics.provider_run import ProviderRun, pct
from market.results.metrics.registry import METRICS, Metric, RunKind

if TYPE_CHECKING:
    from agents.provider import Provider

TERMS = ("pool", "price", "promised_end", "quote_markup", "surplus")


def _terms(sp: Any, records: list, decisions: list) -> dict[str, list]:
    quotes = [r.quote for r in records]
    names = [pool.name for pool in sp.pools]
    return {
        "pool": [names[r.pool] for r in records],
        "price": [q.price if q is not None else None for q in quotes],
        "promised_end": [q.promised if q is not None else None for q in quotes],
        "quote_markup": [q.markup if q is not None else None for q in quotes],
        "surplus": [r.surplus for r in records],
    }


register_job_columns(JobColumns("market", TERMS, frozenset(TERMS) - {"pool"}, _terms))


def _market(kind: RunKind) -> bool:
    return kind.market


def _pricing(run: ProviderRun) -> str:
    sales = run.sp.sales  # None: a provider that quotes no prices charges the job's utility
    return sales.pricing.name if sales is not None else "utility"


def _win_rate(run: ProviderRun) -> float:
    sales = run.sp.sales
    return pct(run.sp.accepted, sales.quoted if sales is not None else math.nan)


def _mean_markup(run: ProviderRun) -> float:
    sales = run.sp.sales
    markups = sales.won_markups if sales is not None else 0
    return sales.won_markup / markups if markups else math.nan


def _markup_now(sp: Provider) -> float:
    """The markup of the provider's pricing rule now (0 under ``utility``, which applies none;
    NaN for a provider that quotes no prices)."""
    return sp.sales.pricing.markup if sp.sales is not None else math.nan


MARKET = ("providers", "market")

METRICS.register(
    Metric("pricing", "market", "pricing", "pricing rule", str, compute=_pricing),
    Metric("market_share_pct", "market", "share %", "share of the jobs placed (%)", float, "%", 1,
           (*MARKET, "timeseries"), _market, 1,
           compute=lambda run: pct(run.sp.accepted, placed_jobs(run.model)),
           sample=lambda sp: pct(sp.accepted, placed_jobs(sp.model))),
    Metric("win_rate_pct", "market", "win %", "accepting quotes won (%)", float, "%", 1,
           ("providers",), _market, 2, compute=_win_rate),
    Metric("mean_price", "market", "price", "mean price of the quotes won (money)", float,
           "money", 1, ("providers", "timeseries"), compute=lambda run: mean_price(run.sp),
           sample=mean_price),
    Metric("mean_markup", "market", "markup", "mean markup of the quotes won", float, "", 2,
           ("providers",), _market, 2, compute=_mean_markup),
    Metric("markup", "market", "markup now", "markup of the pricing rule", float, "", 2,
           ("timeseries",), sample=_markup_now),
    # the market table's own figures (a row per agent and one for the market)
    Metric("submitted", "market", "submitted", "jobs submitted", int, "jobs", 0, ("market",),
           priority=3),
    Metric("placed", "market", "placed", "jobs placed", int, "jobs", 0, ("market",)),
    Metric("declined", "market", "declined", "jobs declined (no quote with a surplus)", int,
           "jobs", 0, ("market",)),
    Metric("rejected", "market", "rejected", "jobs rejected (no provider accepted)", int, "jobs",
           0, ("market",)),
    Metric("paid", "market", "paid", "paid by the clients (money)", float, "money", 0,
           ("market",), priority=3),
    Metric("surplus", "market", "surplus", "clients' surplus (money)", float, "money", 0,
           ("market",), priority=1),
    Metric("welfare", "market", "welfare", "total welfare (money)", float, "money", 0,
           ("market",), priority=1),
    Metric("surplus_share_pct", "market", "surplus %", "clients' share of the welfare (%)",
           float, "%", 1, ("market",), priority=1),
    Metric("profit_share_pct", "market", "profit %", "providers' share of the welfare (%)",
           float, "%", 1, ("market",), priority=1),
    Metric("rent_share_pct", "market", "rent %", "resource providers' share of the welfare (%)",
           float, "%", 1, ("market",), priority=1),
)  # fmt: skip
