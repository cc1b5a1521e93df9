"""Which metrics a run's outputs show: the kind of market, decided from the run itself.

The summary of a run (:mod:`market.metrics`) has every metric for every provider; the table of
``gridmarket run`` and the dashboard's monitors show those that mean something for this run:

- **money** only where money moves: revenue where some provider was paid; rent, profit, profit/h
  and realised % where some provider paid rent (without rent, profit is the revenue). A free pool
  serving jobs without payments (the QoPS paper's runs) has no money column; the VQoPS paper's
  priced jobs on a free pool have revenue only;
- **QoS** (unadmitted % of jobs and of work, deadlines missed, fulfilled %, slowdown of the
  fulfilled jobs, QoPS TR §5 and Yeo & Buyya §4; slowdown of the jobs without a deadline where
  there are such) where jobs had deadlines: some provider has a fulfilled % (it is NaN when no
  job offered to it had a deadline) or missed one. Then "unadmitted %" replaces "accepted %";
- **job classes** (urgent and normal jobs admitted, revenue gain over QoPS: the VQoPS paper's
  metrics) where the workload has the classes;
- **market** columns (share of the jobs placed, mean markup, win rate) where the run has them and
  more than one service provider competes.

**Realised %** is the realised profit of completed jobs as a share of the profit their admission
decisions predicted (profit paper, Figures 3d-6b). It is shown only where that share means
something: the prediction is positive (a share of a loss or of nothing is not a share) and the
admission policy acted on it. ``accept_all`` admits whatever the prediction, so its jobs'
predictions can sum to almost zero and the share explodes (-4,224.7 % in one run); its cell is
``-``, as are cells where the prediction is <= 0. The data (``--format csv/json``, sweeps) keep
the raw value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

BASE = {
    "variant": "variant",
    "provider": "provider",
    "scheduler": "scheduler",
    "admission": "admission",
}
ACCEPTED = {"accepted_pct": "accepted %"}
SHAPE = {"mean_processors": "procs/job", "utilization": "util %"}
REVENUE = {"revenue": "revenue"}
RENT = {"rent": "rent", "profit": "profit", "profit_rate": "profit/h"}
REALISED = {"realised_pct": "realised %"}
QOS = {
    "unadmitted_pct": "unadm. %",
    "unadmitted_work_pct": "unadm. work %",
    "deadlines_missed": "missed",
    "deadlines_fulfilled_pct": "fulfilled %",
    "mean_slowdown_fulfilled": "slowdown (fulfilled)",
    "mean_slowdown": "best-effort slowdown",
}
CLASSES = {
    "urgent_accepted_pct": "urgent %",
    "normal_accepted_pct": "normal %",
    "revenue_gain_pct": "gain %",
}
MARKET = {"market_share_pct": "share %", "mean_markup": "markup", "win_rate": "win rate"}
#: Admission policies that admit whatever their prediction says (no realised %).
PREDICTION_BLIND = ("accept_all",)


@dataclass(frozen=True)
class RunKind:
    """What a run's outputs show (see the module docstring)."""

    money: bool  # some provider was paid or paid rent
    rent: bool  # some provider paid rent (else profit is revenue)
    qos: bool
    classes: bool
    market: bool


def _any(frame: pd.DataFrame, column: str, test=lambda s: s.notna()) -> bool:
    if column not in frame:
        return False
    values = pd.to_numeric(frame[column], errors="coerce")
    return bool(test(values).any())


def run_kind(summary: pd.DataFrame) -> RunKind:
    """The kind of the run whose summary (one row per provider) is ``summary``."""
    moved = lambda s: s.fillna(0.0).abs() > 0  # noqa: E731
    providers = summary["provider"].nunique() if "provider" in summary else len(summary)
    return RunKind(
        money=_any(summary, "revenue", moved) or _any(summary, "rent", moved),
        rent=_any(summary, "rent", moved),
        qos=_any(summary, "deadlines_fulfilled_pct")
        or _any(summary, "deadlines_missed", lambda s: s.fillna(0) > 0),
        classes=_any(summary, "urgent_accepted_pct") or _any(summary, "normal_accepted_pct"),
        market=providers > 1 and any(_any(summary, c) for c in MARKET),
    )


def realised_shown(summary: pd.DataFrame) -> pd.Series:
    """Per row, whether its realised % means something: a positive predicted profit, from an
    admission policy that acts on it."""
    if "realised_pct" not in summary or "predicted_profit" not in summary:
        return pd.Series(False, index=summary.index)
    predicted = pd.to_numeric(summary["predicted_profit"], errors="coerce")
    admission = summary.get("admission", pd.Series("", index=summary.index)).astype(str)
    blind = admission.str.match(rf"^({'|'.join(PREDICTION_BLIND)})(\(|$)")
    realised = pd.to_numeric(summary["realised_pct"], errors="coerce")
    return (predicted > 0) & ~blind & realised.map(lambda v: math.isfinite(v))


def table_columns(summary: pd.DataFrame) -> dict[str, str]:
    """The columns of the run table for this run, ``{column: header}``, in order."""
    kind = run_kind(summary)
    columns = dict(BASE)
    if not kind.qos:
        columns |= ACCEPTED
    columns |= SHAPE
    if kind.money:
        columns |= REVENUE
    if kind.rent:
        columns |= RENT
        if realised_shown(summary).any():
            columns |= REALISED
    if kind.qos:
        columns |= {c: h for c, h in QOS.items() if _any(summary, c)}
    if kind.classes:
        columns |= {c: h for c, h in CLASSES.items() if _any(summary, c)}
    if kind.market:
        columns |= {c: h for c, h in MARKET.items() if _any(summary, c)}
    return {c: h for c, h in columns.items() if c in summary}


def for_display(summary: pd.DataFrame) -> pd.DataFrame:
    """``summary`` as the table shows it: realised % NaN (``-``) where it means nothing."""
    if "realised_pct" not in summary:
        return summary
    shown = realised_shown(summary)
    return summary.assign(realised_pct=summary["realised_pct"].where(shown))
