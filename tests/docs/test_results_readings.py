"""What the results pages tell a reader to look for ("What to look for: ...") is what their
tables show: the tables are made by `gridmarket report --markdown` from the stored sweeps in
docs/results/data and checked by test_results_pages.py; the readings above them are typed, so
each is checked here against the same stored runs (means over replications per point)."""

from __future__ import annotations

import pytest

from market.experiments.batch import load_results
from tests.conftest import ROOT

DATA = ROOT / "docs" / "results" / "data"
LOAD = "clients.0.workload.mean_interarrival"
SIGMA = "resource_providers.0.uncertainty.sigma"
ADMITTING = ["LJF", "SJF", "FirstPrice", "FirstReward", "FirstProfit", "FirstOpportunity",
             "FirstOpportunityRate"]  # fmt: skip
RISK_AWARE = ["FirstProfit (5%)", "FirstProfit (10%)", "FirstProfit (20%)"]


def means(name: str, by: str, metric: str):
    """``metric``'s mean per variant (rows) and point (columns), points in increasing order."""
    frame = load_results(DATA / name)
    return frame.groupby(["variant", by])[metric].mean().unstack().sort_index(axis=1)


def test_each_reading_is_on_its_page():
    for page, count in (("profit.md", 2), ("market.md", 1)):
        text = (ROOT / "docs" / "results" / page).read_text(encoding="utf-8")
        assert text.count("What to look for") == count and "test_results_readings.py" in text


def test_figure_3_readings():
    accepted = means("profit-fig3", LOAD, "accepted_pct")
    for variant in ADMITTING:  # heavier load (shorter inter-arrival): fewer accepted
        assert accepted.loc[variant].is_monotonic_increasing, variant
    rate = means("profit-fig3", LOAD, "profit_rate")
    overload = rate.columns[rate.columns <= 0.15]
    assert (rate.loc["FirstProfit, accept all", overload] < 0).all()
    width = means("profit-fig3", LOAD, "mean_processors")
    oblivious = width.loc[["SJF", "FirstPrice", "FirstReward"]].min()
    for variant in ("FirstProfit", "FirstOpportunity"):
        assert ((width.loc[variant] / oblivious).between(0.35, 0.65)).all(), variant
    for load in overload:
        assert rate.loc[ADMITTING, load].idxmax() == "FirstOpportunityRate", load
    assert (rate.loc[ADMITTING].idxmin() == "FirstPrice").all()


def test_figure_7_readings():
    accepted = means("profit-fig7", SIGMA, "accepted_pct")
    for variant in RISK_AWARE:
        assert accepted.loc[variant].is_monotonic_decreasing, variant
        assert accepted.loc[variant].iloc[-1] < accepted.loc[variant].iloc[0], variant
    oblivious = accepted.loc["FirstProfit"]
    assert oblivious.max() - oblivious.min() <= 0.05 * oblivious.iloc[0]
    rate = means("profit-fig7", SIGMA, "profit_rate")
    for variant in RISK_AWARE:  # with no error, exactly FirstProfit
        assert rate.loc[variant].iloc[0] == pytest.approx(rate.loc["FirstProfit"].iloc[0])
    arrivals = means("profit-fig7", SIGMA, "profit_rate_arrivals")
    fall = arrivals.iloc[:, 0] - arrivals.iloc[:, -1]
    assert (fall > 0).all()
    assert set(fall.nlargest(2).index) == {"FirstProfit (5%)", "FirstProfit (10%)"}
    assert fall["FirstProfit (20%)"] == pytest.approx(fall["FirstProfit"], rel=0.25)


def test_price_war_readings():
    frame = load_results(DATA / "market-price-war")
    b_markup = "service_providers.1.pricing.params.markup"
    share = frame.groupby([b_markup, "provider"]).market_share_pct.mean().unstack()
    profit = frame.groupby([b_markup, "provider"]).profit.mean().unstack()
    assert share.loc[0.3, "a"] == pytest.approx(share.loc[0.3, "b"], abs=5)  # equal: even
    assert share.loc[0.0, "b"] > share.loc[0.0, "a"] and share.loc[1.0, "a"] > share.loc[1.0, "b"]
    assert profit.loc[0.0, "b"] < profit.loc[0.0, "a"]  # undercutting a wins share, not profit
    assert profit["b"].idxmax() == 0.3  # b earns the most at a's own markup
