"""Table 4's findings (VARQ TR 2007-09 §4.5) and Table 3's on a CI-sized run: the first 3,000
SDSC-SP2 jobs on the batch site (skipped without the trace; about 3 s). The full table is in
docs/papers/varq.md."""

from __future__ import annotations

import pytest

from market import GridMarket
from market.inputs.scenario import load
from tests.conftest import ROOT, require_trace


@pytest.fixture(scope="module")
def table4():
    require_trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    base = load(ROOT / "scenarios" / "varq" / "table4.yaml").expand()[0][1]  # SDSC-SP2
    rows = {}
    for f, p in [(0.1, 0.5), (0.1, 0.75), (0.1, 0.95), (0.95, 0.75)]:
        scenario = base.with_overrides(
            {
                "batch_sites.0.first_jobs": 3000,
                "batch_sites.0.varq.fraction": f,
                "batch_sites.0.varq.probability": p,
            }
        )
        rows[f, p] = GridMarket(scenario).run().sites.iloc[0]
    return rows


def test_varq_only_accepts_points_at_the_required_probability(table4):
    for (_, p), row in table4.items():
        assert row.varq_jobs > 0 and row.varq_predicted_pct >= 100 * p


def test_few_varq_jobs_get_about_what_was_predicted(table4):
    # §4.5: at f = 0.10 the observed success is close to the predicted (0.66 vs 0.54, 0.72 vs
    # 0.77 in the paper); within 8 points at p = 0.5 and 0.75 here.
    for p in (0.5, 0.75):
        row = table4[0.1, p]
        assert row.varq_success_pct >= row.varq_predicted_pct - 8.0


def test_success_falls_as_p_and_f_rise(table4):
    short = {p: table4[0.1, p].varq_predicted_pct - table4[0.1, p].varq_success_pct
             for p in (0.5, 0.95)}  # fmt: skip
    assert short[0.95] > short[0.5]  # the shortfall grows with p (paper: -0.12, +0.06)
    many, few = table4[0.95, 0.75], table4[0.1, 0.75]
    # the breakdown at f = 0.95, p = 0.75: well below both the prediction and f = 0.10
    assert many.varq_success_pct <= few.varq_success_pct - 5.0
    assert many.varq_success_pct <= many.varq_predicted_pct - 8.0


def test_certainty_costs_allocation(table4):
    # Table 3: "greater certainty ... implies a greater allocation cost"
    ratios = [table4[0.1, p].overhead_ratio for p in (0.5, 0.75, 0.95)]
    assert 1.0 <= ratios[0] < ratios[1] < ratios[2]
