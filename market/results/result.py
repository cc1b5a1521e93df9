"""RunResult: what a finished run hands back, as pandas frames.

``summary`` (one row per service provider, every metric of
:mod:`market.results.provider_metrics`), ``sites`` (per batch site, VARQ user and site broker;
empty without batch sites), ``timeseries`` (per service provider every ``sample_interval``
hours), ``jobs`` (one row per job and provider it was offered to: the admission decision, its
reason and prediction, what happened, and the market columns ``pool``, ``price`` (NaN: the job's
utility), ``promised_end``, ``quote_markup`` and ``surplus``), ``ledger`` (every transfer of
money) and ``market`` (per service provider, client, resource provider and the whole market:
:mod:`market.results.market_metrics`). See docs/architecture.md and docs/papers/market.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from market.results.job_columns import float_columns, job_column_names, job_columns
from market.results.market_metrics import market_table
from market.results.provider_metrics import provider_summary

if TYPE_CHECKING:
    from market.sim.model import GridMarket


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
    sites: pd.DataFrame = field(default_factory=pd.DataFrame)

    @classmethod
    def from_model(cls, model: GridMarket) -> RunResult:
        """Collect the result of ``model`` (finished or not)."""
        sps = list(model.service_providers.values())
        columns = [job_columns(sp) for sp in sps]  # read once for the summary and the table
        summary = pd.DataFrame(
            [provider_summary(model, sp, c) for sp, c in zip(sps, columns, strict=True)]
        )
        # batch sites, their VARQ users and brokers: the rows each site gives
        sites = [row for site in model.batch_sites.values() for row in site.summary_rows()]
        jobs = _jobs([c for sp, c in zip(sps, columns, strict=True) if sp.records])
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
            sites=pd.DataFrame(sites),
        )


def _timeseries(model: GridMarket) -> pd.DataFrame:
    collector = model.datacollector  # one agent type per kind of service provider
    frames = [collector.get_agenttype_vars_dataframe(k) for k in collector.agenttype_reporters]
    if not frames:  # no service provider (a market of batch sites only)
        return pd.DataFrame(columns=["time", "provider"])
    frame = pd.concat(frames) if len(frames) > 1 else frames[0]
    frame = frame.reset_index().rename(columns={"Step": "time"}).drop(columns="AgentID")
    return frame.sort_values(["time", "provider"], kind="stable").reset_index(drop=True)


def _jobs(parts: list[dict]) -> pd.DataFrame:
    """The per-job table of the providers' columns
    (:func:`market.results.job_columns.job_columns`)."""
    names, floating = job_column_names(), float_columns()
    if not parts:
        frame = pd.DataFrame(columns=names)
        floats = {c: "float64" for c in names if c in floating}
        return frame.astype({"swf_job": "Int64", **floats})
    columns = {}
    for name in names:
        if len(parts) == 1:
            values = parts[0][name]
        elif name in floating:
            values = np.concatenate([part[name] for part in parts])
        else:
            values = [v for part in parts for v in part[name]]
        columns[name] = pd.array(values, dtype="Int64") if name == "swf_job" else values
    return pd.DataFrame(columns, copy=False)  # (the columns are fresh: not copied again)
