"""Which columns a run's table shows (market/results/outputs.py): the kind of market, from the
run."""

from __future__ import annotations

import math

import pandas as pd

from market.results.outputs import for_display, realised_shown, run_kind, table_columns

NAN = math.nan


def summary(**columns) -> pd.DataFrame:
    """A two-provider summary: the identity columns plus ``columns`` (lists of two values)."""
    base = {
        "variant": ["a", "b"], "provider": ["sp", "sp"], "scheduler": ["x", "x"],
        "admission": ["positive_opportunity", "accept_all"], "accepted_pct": [50.0, 100.0],
        "mean_processors": [2.0, 2.0], "utilization": [90.0, 95.0], "revenue": [0.0, 0.0],
        "rent": [0.0, 0.0], "profit": [0.0, 0.0], "profit_rate": [0.0, 0.0],
        "predicted_profit": [0.0, 0.0], "realised_pct": [NAN, NAN], "unadmitted_pct": [50.0, 0.0],
        "unadmitted_work_pct": [40.0, 0.0], "deadlines_missed": [0, 0],
        "mean_slowdown": [NAN, NAN], "deadlines_fulfilled_pct": [NAN, NAN],
        "mean_slowdown_fulfilled": [NAN, NAN], "urgent_accepted_pct": [NAN, NAN],
        "normal_accepted_pct": [NAN, NAN],
    }  # fmt: skip
    base.update(columns)
    return pd.DataFrame(base)


def test_a_free_pool_with_deadlines_shows_qos_and_no_money():
    # the QoPS paper's runs: price 0, no payments, every job with a deadline
    frame = summary(deadlines_fulfilled_pct=[92.7, 64.3], mean_slowdown_fulfilled=[5.8, 4.0],
                    deadlines_missed=[0, 107])  # fmt: skip
    kind = run_kind(frame)
    assert kind.qos and not kind.money and not kind.rent
    columns = table_columns(frame)
    assert list(columns) == [
        "variant",
        "provider",
        "scheduler",
        "admission",
        "mean_processors",
        "utilization",
        "unadmitted_pct",
        "unadmitted_work_pct",
        "deadlines_missed",
        "deadlines_fulfilled_pct",
        "mean_slowdown_fulfilled",
    ]  # fmt: skip  (no best-effort slowdown: every job had a deadline; no accepted %)


def test_a_profit_market_shows_money_and_no_qos():
    frame = summary(revenue=[8000.0, 2400.0], rent=[1000.0, 4400.0], profit=[7000.0, -2000.0],
                    predicted_profit=[7500.0, 46.0], realised_pct=[93.3, -4224.7])  # fmt: skip
    kind = run_kind(frame)
    assert kind.money and kind.rent and not kind.qos and not kind.classes
    columns = table_columns(frame)
    for column in ("accepted_pct", "revenue", "rent", "profit", "profit_rate", "realised_pct"):
        assert column in columns
    assert "unadmitted_pct" not in columns and "deadlines_missed" not in columns


def test_revenue_without_rent_shows_revenue_only():
    # VQoPS: priced jobs on a free pool; profit would repeat revenue
    frame = summary(
        revenue=[100.0, 120.0],
        profit=[100.0, 120.0],
        urgent_accepted_pct=[80.0, 70.0],
        normal_accepted_pct=[88.0, 60.0],
        deadlines_fulfilled_pct=[90.0, 80.0],
    )
    columns = table_columns(frame)
    assert "revenue" in columns and "urgent_accepted_pct" in columns
    assert not {"rent", "profit", "profit_rate", "realised_pct"} & set(columns)


def test_realised_pct_only_where_the_admission_acted_on_a_positive_prediction():
    rows = pd.DataFrame({
        "admission": ["positive_opportunity", "accept_all", "positive_opportunity",
                      "accept_all(x=1)", "risk"],
        "predicted_profit": [7500.0, 46.0, -10.0, 10.0, 5.0],
        "realised_pct": [93.3, -4224.7, 150.0, 80.0, NAN],
    })  # fmt: skip
    assert realised_shown(rows).tolist() == [True, False, False, False, False]
    shown = for_display(rows)["realised_pct"]
    assert shown.iloc[0] == 93.3 and shown.iloc[1:].isna().all()
    assert rows["realised_pct"].iloc[1] == -4224.7  # the data keep the raw value
    # no row meaningful: no column at all
    only_accept_all = summary(
        admission=["accept_all", "accept_all"],
        rent=[5.0, 5.0],
        predicted_profit=[46.0, 3.0],
        realised_pct=[-4224.7, 10.0],
    )
    assert "realised_pct" not in table_columns(only_accept_all)
