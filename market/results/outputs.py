"""Which metrics a run's outputs show: the kind of market, decided from the run itself.

The summary of a run (:mod:`market.results.provider_metrics`) has every metric for every provider; the table of
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

The **market table** (``RunResult.market``, :mod:`market.results.market_metrics`) follows the run table
where its rows say more than the provider rows: some run has more than one agent of a kind
(service providers, clients or resource providers) or a service provider prices other than by
``utility``. One service provider, client and pool with the papers' contract (the client pays
its utility) leave it nothing new: no surplus, the pool's revenue is the provider's rent. Its
columns are those with a non-zero number in some row, one flow of money each: ``revenue`` what
clients paid the service providers, ``rent`` what these paid the resource providers (a resource
provider's ``revenue`` in the data, shown as the rent it received), so the market row reads
welfare = surplus + profit + rent with each share beside it.
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
MARKET_TABLE = {
    "kind": "kind", "name": "name", "revenue": "revenue", "rent": "rent", "profit": "profit",
    "market_share_pct": "share %", "submitted": "submitted", "placed": "placed",
    "declined": "declined", "rejected": "rejected", "paid": "paid", "surplus": "surplus",
    "utilization": "util %", "welfare": "welfare", "surplus_share_pct": "surplus %",
    "profit_share_pct": "profit %", "rent_share_pct": "rent %",
}  # fmt: skip
#: Market table columns that count jobs (printed without decimals).
MARKET_COUNTS = ("submitted", "placed", "declined", "rejected")
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


def market_shown(summary: pd.DataFrame, market: pd.DataFrame | None) -> bool:
    """Whether the market table follows the run table (see the module docstring); ``market``
    holds the market rows of every variant (a ``variant`` column where there are several)."""
    if market is None or market.empty:
        return False
    runs = market.groupby("variant", sort=False) if "variant" in market else [(None, market)]
    several = any(rows["kind"].value_counts().gt(1).any() for _, rows in runs)
    priced = "pricing" in summary and summary["pricing"].dropna().ne("utility").any()
    return bool(several or priced)


def market_columns(market: pd.DataFrame) -> dict[str, str]:
    """The columns of the market table, ``{column: header}``: the variant where there are
    several, kind and name, and every figure that is a non-zero number in some row."""
    several = "variant" in market and market["variant"].nunique() > 1
    columns = {"variant": "variant"} if several else {}
    nonzero = lambda s: s.fillna(0.0) != 0  # noqa: E731
    for column, header in MARKET_TABLE.items():
        if column in ("kind", "name") or _any(market, column, nonzero):
            columns[column] = header
    return columns


def market_for_display(market: pd.DataFrame) -> pd.DataFrame:
    """``market`` as the table shows it: kinds in words, the market row named ``all``, and the
    rent the resource providers received (their ``revenue``) in the rent column."""
    received = market["kind"].isin(["resource_provider", "market"])
    return market.assign(
        kind=market["kind"].str.replace("_", " "),
        name=market["name"].where(market["kind"] != "market", "all"),
        rent=market["rent"].where(~received, market["revenue"]),
        revenue=market["revenue"].where(~received),
    )
