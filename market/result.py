"""RunResult: what a finished run hands back, as pandas frames.

- ``summary``: one row per service provider with every metric of :mod:`market.metrics`.
- ``timeseries``: per service provider, sampled every ``sample_interval`` hours (profit, profit
  rate, utilization, queue length, ...).
- ``jobs``: one row per (job, provider it was offered to): the admission decision with its reason
  and prediction, and what happened (shape, start, end, price paid, rent, profit).
- ``ledger``: every transfer of money.
- ``market``: one row per service provider, client and resource provider and one for the whole
  market: shares, surplus, declined jobs, rent revenue, utilization and total welfare
  (:mod:`market.market_metrics`).

The per-job table's market columns: ``pool`` (the resource provider the job was planned on),
``price`` (the quoted price; NaN: the job's utility), ``promised_end``, ``quote_markup`` and
``surplus`` (the client's utility at completion minus what it paid).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from agents.site_builder import site_rows
from market.market_metrics import market_table
from market.metrics import provider_summary

if TYPE_CHECKING:
    from market.model import GridMarket

JOB_COLUMNS = [
    "provider", "job", "swf_job", "client", "kind", "arrival", "work", "max_processors", "accepted",
    "committed", "reason", "detail", "planned_processors", "planned_start", "planned_end",
    "expected_value", "expected_profit", "processors", "start", "end", "paid", "rent", "profit",
    "oc_factor", "rollback_window", "pool", "price", "promised_end", "quote_markup", "surplus",
]  # fmt: skip


@dataclass
class RunResult:
    """Summary metrics, time series, per-job table and ledger of one run."""

    scenario: str
    seed: int
    finished: bool
    summary: pd.DataFrame
    timeseries: pd.DataFrame
    jobs: pd.DataFrame
    ledger: pd.DataFrame
    balances: dict[str, float]
    market: pd.DataFrame | None = None

    @classmethod
    def from_model(cls, model: GridMarket) -> RunResult:
        """Collect the result of ``model`` (finished or not)."""
        sps = list(model.service_providers.values())
        summary = pd.DataFrame([provider_summary(model, sp) for sp in sps])
        sites = site_rows(model)  # batch sites and VARQ users (agents/site_builder.py)
        if sites:
            summary = pd.concat([summary, pd.DataFrame(sites)], ignore_index=True)
        return cls(
            scenario=model.spec.name,
            seed=model.seed,
            finished=not model.running,
            summary=summary,
            timeseries=_timeseries(model),
            jobs=_jobs(sps),
            ledger=model.ledger.to_frame(),
            balances=model.ledger.balances(),
            market=market_table(model),
        )


def _timeseries(model: GridMarket) -> pd.DataFrame:
    collector = model.datacollector  # one agent type per kind of service provider
    frames = [collector.get_agenttype_vars_dataframe(k) for k in collector.agenttype_reporters]
    if not frames:  # no service provider (a market of batch sites only)
        return pd.DataFrame(columns=["time", "provider"])
    frame = pd.concat(frames) if len(frames) > 1 else frames[0]
    frame = frame.reset_index().rename(columns={"Step": "time"}).drop(columns="AgentID")
    return frame.sort_values(["time", "provider"], kind="stable").reset_index(drop=True)


def _jobs(sps) -> pd.DataFrame:
    rows = []
    for sp in sps:
        for r in sp.records.values():
            job, d = r.job, r.decision
            rows.append((
                sp.name, job.id, job.swf_job, job.client, job.kind, job.arrival, job.work,
                job.max_shape, d.accepted, r.committed, d.reason, d.detail, d.processors, d.start,
                d.end, d.expected_value, d.expected_profit, r.processors, r.start, r.end, r.paid,
                r.rent, r.profit, *_params(d), *_market(sp, r),
            ))  # fmt: skip
    frame = pd.DataFrame(rows, columns=JOB_COLUMNS)
    float_cols = [
        "planned_processors", "planned_start", "planned_end", "expected_value",
        "expected_profit", "processors", "start", "end", "paid", "rent", "profit", "oc_factor",
        "rollback_window", "price", "promised_end", "quote_markup", "surplus",
    ]  # fmt: skip
    return frame.astype({"swf_job": "Int64", **{c: "float64" for c in float_cols}})


def _params(decision) -> tuple[float | None, float | None]:
    """The OC-Factor and rollback window a value-aware policy decided with (VQoPS, DVQoPS)."""
    params = decision.params or {}
    return params.get("oc_factor"), params.get("rollback_window")


def _market(sp, record) -> tuple:
    """The pool, quoted price, promised end, markup and client surplus of a job record."""
    pools = getattr(sp, "pools", None) or [sp.resource_provider]
    quote = getattr(record, "quote", None)
    pool = pools[getattr(record, "pool", 0)].name
    if quote is None:
        return pool, None, None, None, record.surplus
    return pool, quote.price, quote.promised, quote.markup, record.surplus
