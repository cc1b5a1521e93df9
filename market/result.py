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

import numpy as np
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


_FLOAT_COLUMNS = frozenset({
    "arrival", "work", "planned_processors", "planned_start", "planned_end", "expected_value",
    "expected_profit", "processors", "start", "end", "paid", "rent", "profit", "oc_factor",
    "rollback_window", "price", "promised_end", "quote_markup", "surplus",
})  # fmt: skip


def _jobs(sps) -> pd.DataFrame:
    """The per-job table, built column by column (a float column straight into numpy, None as
    NaN: a tenth of the time pandas takes to infer the types of rows)."""
    rows = []
    for sp in sps:
        name, pools = sp.name, _pool_names(sp)
        rows += [_row(name, pools, r) for r in sp.records.values()]
    if not rows:
        frame = pd.DataFrame(columns=JOB_COLUMNS)
        return frame.astype({"swf_job": "Int64", **{c: "float64" for c in _FLOAT_COLUMNS}})
    columns = {}
    for name, values in zip(JOB_COLUMNS, zip(*rows, strict=True), strict=True):
        if name in _FLOAT_COLUMNS:
            columns[name] = np.array(values, dtype=np.float64)
        elif name == "swf_job":
            columns[name] = pd.array(values, dtype="Int64")
        else:
            columns[name] = list(values)
    return pd.DataFrame(columns)


def _pool_names(sp) -> list[str]:
    pools = getattr(sp, "pools", None) or [sp.resource_provider]
    return [pool.name for pool in pools]


def _row(provider: str, pools: list[str], r) -> tuple:
    """One row of the per-job table: the job, its decision (with the OC-Factor and rollback
    window a value-aware policy decided with), what happened, and its market terms."""
    job, d = r.job, r.decision
    params = d.params or {}
    quote = getattr(r, "quote", None)
    price = promised = markup = None
    if quote is not None:
        price, promised, markup = quote.price, quote.promised, quote.markup
    profit = r.paid - r.rent if r.paid is not None and r.rent is not None else None
    return (
        provider, job.id, job.swf_job, job.client, job.kind, job.arrival, job.work, job.max_shape,
        d.accepted, r.committed, d.reason, d.detail, d.processors, d.start, d.end,
        d.expected_value, d.expected_profit, r.processors, r.start, r.end, r.paid, r.rent, profit,
        params.get("oc_factor"), params.get("rollback_window"), pools[getattr(r, "pool", 0)],
        price, promised, markup, r.surplus,
    )  # fmt: skip
