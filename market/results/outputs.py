"""Which columns a run's tables show: the kind of market, decided from the run itself
(:class:`RunKind`), and the registry's entries (:mod:`market.results.metrics`) that kind shows.

The summary has every metric; the run table and the dashboard's monitors show those whose
``shown`` predicate holds for the run's kind and that have a value in some row: money only where
money moves (revenue where a provider was paid; rent, profit and realised % where rent was paid),
QoS where jobs had deadlines, the VQoPS job classes where the workload has them, market columns
where providers compete. Our choice: realised % is ``-`` where the prediction is <= 0 and for
``accept_all`` (a share of nothing is not a share; the data keep the raw value). The site table
shows every ``sites`` figure some row has; the market table follows where some run has several
agents of a kind or a provider prices other than by ``utility``, with the columns that have a
non-zero number (docs/guide/command-line.md).
"""

from __future__ import annotations

import math

import pandas as pd

from market.results.metrics import METRICS, RunKind

#: The label columns of each table, ``{column: header}``.
PROVIDER_LABELS = {
    "variant": "variant", "provider": "provider", "scheduler": "scheduler",
    "admission": "admission",
}  # fmt: skip
SITE_LABELS = {
    "variant": "variant", "site": "site", "provider": "user", "scheduler": "scheduler",
    "admission": "admission",
}  # fmt: skip
MARKET_LABELS = {"variant": "variant", "kind": "kind", "name": "name"}
#: Admission policies that admit whatever their prediction says (no realised %).
PREDICTION_BLIND = ("accept_all",)

__all__ = ["RunKind", "market_columns", "run_kind", "site_columns", "table_columns"]


def _any(frame: pd.DataFrame, column: str, test=lambda s: s.notna()) -> bool:
    if column not in frame:
        return False
    values = pd.to_numeric(frame[column], errors="coerce")
    return bool(test(values).any())


def run_kind(summary: pd.DataFrame) -> RunKind:
    """The kind of the run whose summary (one row per provider) is ``summary``."""
    moved = lambda s: s.fillna(0.0).abs() > 0  # noqa: E731
    providers = summary["provider"].nunique() if "provider" in summary else len(summary)
    market = [m.name for m in METRICS.of("providers") if m.family == "market" and m.type is float]
    return RunKind(
        money=_any(summary, "revenue", moved) or _any(summary, "rent", moved),
        rent=_any(summary, "rent", moved),
        qos=_any(summary, "deadlines_fulfilled_pct")
        or _any(summary, "deadlines_missed", lambda s: s.fillna(0) > 0),
        classes=_any(summary, "urgent_accepted_pct") or _any(summary, "normal_accepted_pct"),
        market=providers > 1 and any(_any(summary, c) for c in market),
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


def for_display(summary: pd.DataFrame) -> pd.DataFrame:
    """``summary`` as the table shows it: realised % NaN (``-``) where it means nothing."""
    if "realised_pct" not in summary:
        return summary
    shown = realised_shown(summary)
    return summary.assign(realised_pct=summary["realised_pct"].where(shown))


def table_columns(summary: pd.DataFrame) -> dict[str, str]:
    """The columns of the run table for this run, ``{column: header}``, in order."""
    kind = run_kind(summary)
    shown = for_display(summary)
    columns = {c: h for c, h in PROVIDER_LABELS.items() if c in summary}
    for metric in METRICS.of("providers"):
        if metric.type is not str and metric.shown(kind) and _any(shown, metric.name):
            columns[metric.name] = metric.header
    return columns


def site_columns(sites: pd.DataFrame) -> dict[str, str]:
    """The columns of the site table, ``{column: header}``: its labels and every registered
    site figure that some row has."""
    columns = {c: h for c, h in SITE_LABELS.items() if c in sites}
    for metric in METRICS.of("sites"):
        if metric.type is not str and _any(sites, metric.name):
            columns[metric.name] = metric.header
    return columns


def sites_for_display(sites: pd.DataFrame) -> pd.DataFrame:
    """``sites`` as the table shows it: the user blank on a site's own row."""
    if "provider" not in sites or "site" not in sites:
        return sites
    return sites.assign(provider=sites["provider"].where(sites["provider"] != sites["site"], ""))


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
    columns |= {"kind": "kind", "name": "name"}
    nonzero = lambda s: s.fillna(0.0) != 0  # noqa: E731
    for metric in METRICS.of("market"):
        if _any(market, metric.name, nonzero):
            columns[metric.name] = metric.header
    return columns


#: The market table's kinds of row, as it shows them (a resource provider is a pool, as in
#: the per-job table's ``pool`` column).
KINDS = {"service_provider": "provider", "resource_provider": "pool"}


def market_for_display(market: pd.DataFrame) -> pd.DataFrame:
    """``market`` as the table shows it: kinds in a word, the market row named ``all``, and
    the rent the resource providers received (their ``revenue``) in the rent column."""
    received = market["kind"].isin(["resource_provider", "market"])
    return market.assign(
        kind=market["kind"].replace(KINDS),
        name=market["name"].where(market["kind"] != "market", "all"),
        rent=market["rent"].where(~received, market["revenue"]),
        revenue=market["revenue"].where(~received),
    )
