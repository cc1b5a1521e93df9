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
from operator import attrgetter
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
        jobs = _jobs(sps)
        return cls(
            scenario=model.spec.name,
            seed=model.seed,
            finished=not model.running,
            summary=summary,
            timeseries=_timeseries(model),
            jobs=jobs,
            ledger=model.ledger.to_frame(),
            balances=model.ledger.balances(),
            market=market_table(model, jobs),
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
    """The per-job table, built column by column: attributes read by C-level getters, a float
    column straight into numpy (None as NaN)."""
    parts = [_columns(sp) for sp in sps if sp.records]
    if not parts:
        frame = pd.DataFrame(columns=JOB_COLUMNS)
        return frame.astype({"swf_job": "Int64", **{c: "float64" for c in _FLOAT_COLUMNS}})
    columns = {}
    for name in JOB_COLUMNS:
        values = [v for part in parts for v in part[name]] if len(parts) > 1 else parts[0][name]
        if name in _FLOAT_COLUMNS:
            columns[name] = _floats(values)
        elif name == "swf_job":
            columns[name] = pd.array(values, dtype="Int64")
        else:
            columns[name] = values
    return pd.DataFrame(columns)


def _floats(values: list) -> np.ndarray:
    """``values`` (numbers, None where missing) as float64, NaN for None. Without numpy's
    per-item type discovery where it can: a column of numbers item by item (``fromiter``), a
    column of None only (e.g. a policy parameter no decision had) at once."""
    n = len(values)
    if values and values[0] is None:
        if values.count(None) == n:
            return np.full(n, np.nan)
    else:
        try:
            return np.fromiter(values, np.float64, n)
        except (TypeError, ValueError):  # a None further on
            pass
    return np.array(values, dtype=np.float64)


def _get(items: list, attribute: str) -> list:
    return list(map(attrgetter(attribute), items))


def _columns(sp) -> dict[str, list]:
    """The per-job columns of one service provider's records: the job, its decision (with the
    OC-Factor and rollback window a value-aware policy decided with), what happened, and its
    market terms."""
    records = list(sp.records.values())
    jobs, decisions = _get(records, "job"), _get(records, "decision")
    n = len(records)
    cols = {"provider": [sp.name] * n}
    for name, attribute in [("job", "id"), ("swf_job", "swf_job"), ("client", "client"),
                            ("kind", "kind"), ("arrival", "arrival"), ("work", "work"),
                            ("max_processors", "max_shape")]:  # fmt: skip
        cols[name] = _get(jobs, attribute)
    for name, attribute in [("accepted", "accepted"), ("reason", "reason"),
                            ("detail", "detail"), ("planned_processors", "processors"),
                            ("planned_start", "start"), ("planned_end", "end"),
                            ("expected_value", "expected_value"),
                            ("expected_profit", "expected_profit")]:  # fmt: skip
        cols[name] = _get(decisions, attribute)
    for name in ["committed", "processors", "start", "end", "paid", "rent", "profit", "surplus"]:
        cols[name] = _get(records, name)
    params = _get(decisions, "params")
    for name in ("oc_factor", "rollback_window"):
        cols[name] = [p.get(name) if p else None for p in params]
    pools = [pool.name for pool in getattr(sp, "pools", None) or [sp.resource_provider]]
    cols["pool"] = [pools[i] for i in _get(records, "pool")]
    quotes = _get(records, "quote")
    for name, attribute in [("price", "price"), ("promised_end", "promised"),
                            ("quote_markup", "markup")]:  # fmt: skip
        cols[name] = [getattr(q, attribute) if q is not None else None for q in quotes]
    return cols
