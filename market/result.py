"""RunResult: what a finished run hands back, as pandas frames.

- ``summary``: one row per service provider with every metric of :mod:`market.metrics`.
- ``timeseries``: per service provider, sampled every ``sample_interval`` hours (profit, profit
  rate, utilization, queue length, ...).
- ``jobs``: one row per (job, provider it was offered to): the admission decision with its reason
  and prediction, and what happened (shape, start, end, price paid, rent, profit).
- ``ledger``: every transfer of money.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from market.metrics import provider_summary

if TYPE_CHECKING:
    from market.model import GridMarket

JOB_COLUMNS = [
    "provider", "job", "swf_job", "client", "kind", "arrival", "work", "max_processors", "accepted",
    "committed", "reason", "detail", "planned_processors", "planned_start", "planned_end",
    "expected_value", "expected_profit", "processors", "start", "end", "paid", "rent", "profit",
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

    @classmethod
    def from_model(cls, model: GridMarket) -> RunResult:
        """Collect the result of ``model`` (finished or not)."""
        sps = list(model.service_providers.values())
        summary = pd.DataFrame([provider_summary(model, sp) for sp in sps])
        return cls(
            scenario=model.spec.name,
            seed=model.seed,
            finished=not model.running,
            summary=summary,
            timeseries=_timeseries(model),
            jobs=_jobs(sps),
            ledger=model.ledger.to_frame(),
            balances=model.ledger.balances(),
        )


def _timeseries(model: GridMarket) -> pd.DataFrame:
    collector = model.datacollector  # one agent type per kind of service provider
    frames = [collector.get_agenttype_vars_dataframe(k) for k in collector.agenttype_reporters]
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
                r.rent, r.profit,
            ))  # fmt: skip
    frame = pd.DataFrame(rows, columns=JOB_COLUMNS)
    float_cols = [
        "planned_processors", "planned_start", "planned_end", "expected_value",
        "expected_profit", "processors", "start", "end", "paid", "rent", "profit",
    ]  # fmt: skip
    return frame.astype({"swf_job": "Int64", **{c: "float64" for c in float_cols}})
