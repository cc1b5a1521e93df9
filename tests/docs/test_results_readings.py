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


def means(name: str, by: str, metric: str, rows=("variant",)):
    """``metric``'s mean per ``rows`` and point of ``by`` (columns, in increasing order)."""
    frame = load_results(DATA / name)
    return frame.groupby([*rows, by])[metric].mean().unstack().sort_index(axis=1)


def test_each_reading_is_on_its_page():
    pages = ("profit.md", 2), ("market.md", 1), ("qops.md", 1), ("vqops.md", 1), ("libra.md", 1)
    for page, count in (*pages, ("varq.md", 1)):
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


def test_qops_readings():
    rows = ("clients.0.workload.stringency", "variant")
    load = "clients.0.workload.load_factor"
    schemes, references = ["QoPS", "MSB", "MRT"], ["EASY (all)", "Conservative (all)"]
    missed = means("qops-sdsc", load, "deadlines_missed", rows)
    unadmitted = means("qops-sdsc", load, "unadmitted_pct", rows)
    utilization = means("qops-sdsc", load, "utilization", rows)
    for s in (0.2, 0.5):
        assert (missed.loc[s].loc[schemes] == 0).all().all()
        assert (missed.loc[s].loc[references] > 0).all().all()
        heavy, light = unadmitted.loc[s].loc[schemes].iloc[:, -1], unadmitted.loc[s].iloc[:, 0]
        assert (light.loc[schemes] > 0).all() and (heavy >= light.loc[schemes]).all()
        best_scheme = utilization.loc[s].loc[schemes].max()
        assert (best_scheme < utilization.loc[s].loc[references].min()).all()


def test_vqops_readings():
    rows = ("clients.0.workload.urgent_cost", "variant")
    load = "clients.0.workload.load_factor"
    revenue = means("vqops-sdsc", load, "revenue", rows)
    urgent = means("vqops-sdsc", load, "urgent_accepted_pct", rows)
    normal = means("vqops-sdsc", load, "normal_accepted_pct", rows)
    vqops = [f"VQoPS {f}" for f in ("0", "0.05", "0.1", "0.2", "0.4")]
    high, original = revenue.columns[-1], revenue.columns[0]
    assert (revenue.loc[10].loc[vqops, high] > revenue.loc[(10, "QoPS"), high]).all()
    gain = revenue.loc[10].loc[vqops, original] / revenue.loc[(10, "QoPS"), original] - 1
    assert (gain.loc[["VQoPS 0", "VQoPS 0.05", "VQoPS 0.1"]].between(0, 0.01)).all()
    assert (gain.loc[["VQoPS 0.2", "VQoPS 0.4"]] < 0).all()
    assert (revenue.loc[(2, "VQoPS 0.4")] == 0).all()
    for cost in (2, 10):
        for variant in ("VQoPS 0.1", "VQoPS 0.2"):
            assert (urgent.loc[(cost, variant)] > normal.loc[(cost, variant)] + 20).all()
    assert (means("vqops-sdsc", load, "deadlines_missed") == 0).all().all()


def test_libra_readings():
    rows = ("clients.0.workload.estimates", "variant")
    factor = "clients.0.workload.arrival_delay_factor"  # 0.1: the heaviest load
    done = means("libra-fig1", factor, "deadlines_fulfilled_pct", rows)
    slowdown = means("libra-fig1", factor, "mean_slowdown_fulfilled", rows)
    exact, trace = done.loc["exact"], done.loc["trace"]
    assert ((exact.loc["Libra"] - exact.loc["LibraRisk"]).abs() <= 2).all()
    for variant in ("Libra", "LibraRisk"):
        assert exact.loc[variant].is_monotonic_increasing, variant
    assert [exact[f].idxmax() == "EDF" for f in exact.columns] == [True, False, False]
    for variant in ("Libra", "LibraRisk", "EDF"):
        assert (trace.loc[variant] < exact.loc[variant]).all(), variant
    assert (trace.loc["LibraRisk"] > trace.loc["Libra"]).all()
    assert (trace.idxmax() == "EDF (no admission control)").all()
    no_control = "EDF (no admission control)"
    assert (trace.loc[no_control] == exact.loc[no_control]).all()
    for estimates in ("exact", "trace"):
        table = slowdown.loc[estimates]
        for point in table.columns:
            assert set(table[point].nsmallest(2).index) == {"EDF", no_control}, point


def test_varq_readings():
    fraction = "batch_sites.0.varq.fraction"
    rows = ("batch_sites.0.varq.probability",)
    predicted = means("varq-table4", fraction, "varq_predicted_pct", rows)
    observed = means("varq-table4", fraction, "varq_success_pct", rows)
    made = means("varq-table4", fraction, "varq_jobs", rows)
    overhead = means("varq-table4", fraction, "overhead_ratio", rows)
    small, large = predicted.columns[0], predicted.columns[-1]
    assert ((observed[small] - predicted[small]).abs() <= 5).all()
    assert ((predicted[large] - observed[large]) > (predicted[small] - observed[small])).all()
    assert (made.iloc[-1] < made.iloc[0] / 4).all()  # few at a high p
    assert (overhead.iloc[-1] > overhead.iloc[0]).all()
