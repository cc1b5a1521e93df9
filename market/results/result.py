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
    def from_model(cls, model: GridMarket, jobs: bool = True) -> RunResult:
        """Collect the result of ``model`` (finished or not); ``jobs=False`` leaves the per-job
        table empty (its columns only), for a caller that needs only the other tables."""
        sps = list(model.service_providers.values())
        columns = [job_columns(sp, table=jobs) for sp in sps]  # read once for both tables
        summary = pd.DataFrame(
            [provider_summary(model, sp, c) for sp, c in zip(sps, columns, strict=True)]
        )
        # batch sites, their VARQ users and brokers: the rows each site gives
        sites = [row for site in model.batch_sites.values() for row in site.summary_rows()]
        table = _jobs([c for sp, c in zip(sps, columns, strict=True) if sp.records and jobs])
        del columns  # (the table holds what it needs of them)
        return cls(
            scenario=model.spec.name,
            seed=model.seed,
            finished=not model.running,
            summary=summary,
            timeseries=_timeseries(model),
            jobs=table,
            ledger=model.ledger.to_frame(),
            balances=model.ledger.balances(),
            market=market_table(model),
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
        elif isinstance(parts[0][name], np.ndarray):  # numbers, ids, flags
            values = np.concatenate([part[name] for part in parts])
        else:
            values = [v for part in parts for v in part[name]]
        if name == "swf_job":
            values = pd.array(values, dtype="Int64")
        elif isinstance(values, list) and _strings(values):
            values = pd.array(values, dtype=TEXT)
        columns[name] = values
    return pd.DataFrame(columns, copy=False)  # (the columns are fresh: not copied again)


#: The per-job table's text columns: pandas' ``str``, holding the records' own strings (most
#: are the same few objects: a provider's name, an admission reason) instead of copying every
#: row's characters into an Arrow buffer.
TEXT = pd.StringDtype("python", na_value=np.nan)


def _strings(values: list) -> bool:
    """Whether ``values`` are strings, some of them None (missing) maybe."""
    kinds = set(map(type, values))
    return str in kinds and kinds <= {str, type(None)}
