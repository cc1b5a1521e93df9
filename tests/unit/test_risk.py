"""Risk across replications (market/experiments/replication_risk.py): hand-made distributions."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from market.experiments.replication_risk import cvar, describe, outcomes, risk_table

# 10 replications of a point, sorted: -30, -10, 0, 5, 10, 20, 25, 40, 50, 100
PROFITS = [20.0, -10.0, 100.0, 0.0, 5.0, 40.0, -30.0, 25.0, 50.0, 10.0]


def test_ten_replications_by_hand():
    stats = describe(PROFITS)
    assert stats["n"] == 10
    assert stats["mean"] == pytest.approx(21.0)  # 210 / 10
    # 5 % quantile, type 7: position 0.05 x (10 - 1) = 0.45 between -30 and -10: -30 + 0.45 x 20
    assert stats["q05"] == pytest.approx(-21.0)
    # CVaR 5 %: the worst 0.5 of a run of 10 is half of the worst run: its value, -30
    assert stats["cvar05"] == pytest.approx(-30.0)
    # P(loss): -30 and -10 are losses; 0 breaks even
    assert stats["p_loss"] == pytest.approx(0.2)
    # ci95: squared deviations from 21: 2601 + 961 + 441 + 256 + 121 + 1 + 16 + 361 + 841 + 6241
    # = 11,840; sd = sqrt(11840 / 9) = 36.27; t(0.975, 9) = 2.2622; 2.2622 x 36.27 / sqrt(10)
    assert stats["ci95"] == pytest.approx(2.262157 * math.sqrt(11840 / 9) / math.sqrt(10), 1e-5)
    assert stats["cvar05"] <= stats["q05"] <= stats["mean"]


def test_cvar_counts_the_run_on_the_boundary_in_part():
    # alpha 0.25 of 10 runs is 2.5 runs: (-30 + -10 + 0.5 x 0) / 2.5
    assert cvar(PROFITS, 0.25) == pytest.approx(-16.0)
    # alpha 0.2 is exactly 2 runs: (-30 - 10) / 2
    assert cvar(PROFITS, 0.2) == pytest.approx(-20.0)
    assert cvar(PROFITS, 1.0) == pytest.approx(21.0)  # the whole distribution: the mean
    assert math.isnan(cvar([]))


def test_risk_table_per_point_and_policy_with_surplus_only_when_present():
    frame = pd.DataFrame(
        {
            "load": [1] * 10 + [2] * 10,
            "variant": ["A"] * 20,
            "profit": PROFITS + [p + 100 for p in PROFITS],
        }
    )
    assert outcomes(frame) == ["profit"]  # no surplus column: no surplus rows
    table = risk_table(frame, ["load", "variant"])
    assert list(table["load"]) == [1, 2] and set(table["outcome"]) == {"profit"}
    second = table.iloc[1]
    assert second["q05"] == pytest.approx(79.0) and second["p_loss"] == 0.0
    with_surplus = frame.assign(surplus=[-1.0] * 20)
    table = risk_table(with_surplus, ["load", "variant"])
    surplus = table[table["outcome"] == "surplus"]
    assert len(surplus) == 2 and (surplus["p_loss"] == 1.0).all()
    assert outcomes(frame.assign(surplus=math.nan)) == ["profit"]  # a column of NaN: absent
