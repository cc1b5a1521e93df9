"""The VQoPS/DVQoPS paper's findings (Islam, Balaji, Sabin & Sadayappan, OSU-CISRC-3/07-TR17,
Table 1 and §5) on a small SDSC-SP2 subset (the first 800 jobs; full size: docs/results/vqops.md).
Each row runs QoPS, VQoPS at the five OC-Factors and DVQoPS on one job stream
through the market model. Skips where the trace is absent."""

from __future__ import annotations

import pandas as pd
import pytest

from market import GridMarket
from market.inputs.scenario import load
from market.inputs.traces import TraceNotFoundError, resolve_trace
from market.results.value_metrics import with_revenue_gain
from tests.conftest import ROOT

SCENARIO = ROOT / "scenarios" / "vqops" / "sdsc.yaml"
JOBS = 800
# (urgent cost C, urgent share U, load, estimates)
ROWS = {
    "10X high": (10.0, 0.8, 1.4, "exact"),
    "2X": (2.0, 0.8, 1.0, "exact"),
    "10X 20 % urgent": (10.0, 0.2, 1.0, "exact"),
    "10X high, trace estimates": (10.0, 0.8, 1.4, "trace"),
}
STATIC = ["VQoPS 0", "VQoPS 0.05", "VQoPS 0.1", "VQoPS 0.2", "VQoPS 0.4"]


@pytest.fixture(scope="module")
def runs() -> dict[str, pd.DataFrame]:
    try:
        resolve_trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    except TraceNotFoundError as exc:
        pytest.skip(f"needs the SDSC-SP2 trace: {exc}")
    out = {}
    variants = load(SCENARIO).expand()
    for row, (cost, share, load_factor, estimates) in ROWS.items():
        sets = {
            "clients.0.workload.first_jobs": JOBS,
            "clients.0.workload.urgent_cost": cost,
            "clients.0.workload.urgent_fraction": share,
            "clients.0.workload.load_factor": load_factor,
            "clients.0.workload.estimates": estimates,
        }
        frames = [
            GridMarket(v.with_overrides(sets), seed=1).run().summary.assign(variant=label)
            for label, v in variants
        ]
        out[row] = with_revenue_gain(pd.concat(frames, ignore_index=True)).set_index("variant")
    return out


def test_no_admitted_deadline_is_missed_with_exact_estimates(runs):
    for row, frame in runs.items():
        if "trace" not in row:
            assert (frame.deadlines_missed == 0).all(), row


def test_vqops_earns_more_than_qops_at_high_load_with_10x_urgent_cost(runs):
    gains = runs["10X high"].revenue_gain_pct
    assert (gains[STATIC] > 0).all()
    assert gains["DVQoPS"] > 0


def test_high_oc_factors_earn_less_than_qops_when_urgent_jobs_pay_2x(runs):
    gains = runs["2X"].revenue_gain_pct
    assert gains["VQoPS 0.2"] < 0 and gains["VQoPS 0.4"] < 0


def test_no_single_oc_factor_is_best_on_every_row(runs):
    best = {row: frame.loc[STATIC, "revenue"].idxmax() for row, frame in runs.items()}
    assert len(set(best.values())) > 1, best


def test_dvqops_is_within_5_percent_of_the_best_static_oc_factor(runs):
    for row, frame in runs.items():
        assert frame.loc["DVQoPS", "revenue"] >= 0.95 * frame.loc[STATIC, "revenue"].max(), row


def test_revenue_gains_fall_with_trace_estimates(runs):
    exact = runs["10X high"].loc[STATIC, "revenue_gain_pct"].max()
    inexact = runs["10X high, trace estimates"].loc[STATIC, "revenue_gain_pct"].max()
    assert inexact < exact


def test_vqops_differentiates_urgent_from_normal_jobs(runs):
    # Figure 5(b): QoPS accepts both classes alike; a high OC-Factor takes urgent jobs only.
    frame = runs["10X high"]
    assert (
        abs(frame.loc["QoPS", "urgent_accepted_pct"] - frame.loc["QoPS", "normal_accepted_pct"])
        < 10
    )
    assert frame.loc["VQoPS 0.4", "normal_accepted_pct"] < 5
    assert frame.loc["VQoPS 0.4", "urgent_accepted_pct"] > 30
