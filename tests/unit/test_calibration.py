"""The profit-workload calibration (market/experiments/calibration.py): the workload-only
statements and the
scoring of a sweep's results, on hand-made cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from market.cli.main import main
from market.experiments.calibration import INTERARRIVAL, STATEMENTS, score, workload_profile
from market.inputs.scenario import load
from market.inputs.workloads.synthetic import ProfitWorkload
from tests.conftest import DEFAULT_SCENARIO

# Every job alike: 1 h of work, worth 48 decaying 3.7/h, Amdahl beta 0.2, shapes 1 or 2.
ALIKE = {
    "jobs": 50,
    "work_distribution": "constant",
    "mean_work": 1.0,
    "shapes": (1, 2),
    "high_value_share": 0.0,
    "steep_decay_share": 0.0,
    "value_sd_ratio": 0.0,
    "decay_sd_ratio": 0.0,
}


def _span(workload: ProfitWorkload, seed: int) -> float:
    jobs = workload.generate(np.random.default_rng(seed))
    return jobs[-1].arrival - jobs[0].arrival


def test_profitable_load_counts_each_job_on_its_most_profitable_shape():
    # At 3/processor-hour: 1 processor (1 h) earns 48 - 3.7 - 3 = 41.3; 2 processors (0.6 h,
    # 1.2 processor-hours) earn 48 - 2.22 - 3.6 = 42.18, the best. All 50 jobs are profitable:
    # load = 50 x 1.2 processor-hours / span / 10 processors (and 50 x 1 on one processor).
    workload = ProfitWorkload(**ALIKE)
    profile = workload_profile(workload, price=3.0, capacity=10, seeds=[7])
    span = _span(workload, 7)
    assert profile["profitable_pct"] == 100.0
    assert profile["profitable_load"] == pytest.approx(50 * 1.2 / span / 10)
    assert profile["profitable_load_min"] == pytest.approx(50 * 1.0 / span / 10)


def test_no_job_is_profitable_when_rent_exceeds_its_value():
    # 1 processor: 48 - 3.7 - 50 < 0; 2: 48 - 2.22 - 60 < 0
    profile = workload_profile(ProfitWorkload(**ALIKE), price=50.0, capacity=10, seeds=[7])
    assert profile["profitable_pct"] == 0.0
    assert profile["profitable_load"] == 0.0


def test_gamma_sizes_keep_the_mean_and_their_spread():
    for cv in (0.5, 1.5):
        w = ProfitWorkload(jobs=4000, work_distribution="gamma", work_cv=cv)
        work = np.array([j.work for j in w.generate(np.random.default_rng(1))])
        assert work.mean() == pytest.approx(7.0, rel=0.06)
        assert work.std() / work.mean() == pytest.approx(cv, rel=0.08)


# A calibration sweep's results by hand: one workload point, two replications, each variant's
# (profit_rate, revenue, rent, processors per job, % accepted) at the default load, and
# FirstProfit's acceptance at light load. Price 3, so rented hours are rent / 3.
RUNS = {
    "LJF": [(80, 3000, 600, 1.0, 50), (90, 3000, 600, 1.0, 50)],
    "SJF": [(60, 2000, 900, 5.0, 40), (70, 2000, 900, 5.0, 40)],
    "FirstPrice": [(70, 2400, 900, 4.0, 60), (90, 2400, 900, 4.0, 60)],  # 2400 / 300 h = 8
    "FirstReward a=1": [(80, 2700, 900, 5.0, 40), (110, 2700, 900, 5.0, 40)],  # 9 per hour
    "FirstReward a=0.3": [(120, 3000, 450, 5.0, 30), (120, 3000, 450, 5.0, 30)],  # 20 per hour
    "FirstProfit": [(95, 3000, 500, 2.0, 50), (105, 3000, 500, 2.0, 50)],
    "FirstOpportunity": [(100, 3000, 500, 2.5, 50), (110, 3000, 500, 2.5, 50)],
    "FirstOpportunityRate": [(120, 3000, 500, 3.0, 45), (130, 3000, 500, 3.0, 45)],
}


def _frame() -> pd.DataFrame:
    rows = []
    for variant, runs in RUNS.items():
        for rep, (rate, revenue, rent, procs, accepted) in enumerate(runs):
            for ia, acc in ((0.15, accepted), (1.0, 70.0 if variant == "FirstProfit" else 80.0)):
                rows.append({
                    "variant": variant, "replication": rep, INTERARRIVAL: ia,
                    "clients.0.workload.work_cv": 1.0, "profit_rate": float(rate),
                    "profit": 0.0, "revenue": float(revenue), "rent": float(rent),
                    "mean_processors": procs, "accepted_pct": float(acc),
                })  # fmt: skip
    frame = pd.DataFrame(rows)
    frame.attrs["parameters"] = ["clients.0.workload.work_cv", INTERARRIVAL]
    return frame


def test_score_measures_each_statement_of_a_parameter_set():
    base = load(DEFAULT_SCENARIO).model_copy(update={"variants": {}})
    table = score(_frame(), base).set_index("first_reward")
    assert list(table.index) == ["a=1", "a=0.3"]  # the one that holds more statements first
    a1, a03 = table.loc["a=1"], table.loc["a=0.3"]
    assert a1.max_acceptance == 70.0
    assert a1.first_price_break_even == pytest.approx(8.0)  # 2400 / (900 / 3)
    assert a1.first_reward_break_even == pytest.approx(9.0)  # 2700 / 300
    assert a03.first_reward_break_even == pytest.approx(20.0)  # 3000 / 150
    assert a1.first_reward_close == pytest.approx(95 / 100)
    assert a1.first_price_close == pytest.approx(80 / 100)
    # sd of (80, 110) and (70, 90) over sd of (95, 105): min(21.2, 14.1) / 7.07 = 2
    assert a1.higher_variation == pytest.approx(2.0)
    # over the cost-oblivious mean (5 + 4 + 5) / 3: FirstProfit 2 (0.43) and FirstOpportunity
    # 2.5 (0.54); the one farther from a half is reported
    assert a1.half_processors == pytest.approx(2 / (14 / 3))
    # min(100, 105, 125) / max(85, 65, 80, 95) for a=1; FirstReward a=0.3 leads with 120
    assert a1.profit_aware_ahead == pytest.approx(100 / 95)
    assert a03.profit_aware_ahead == pytest.approx(100 / 120)
    assert a03.top_baseline == "FirstReward"
    # the default workload offers ~2.3 pools of profitable work (in the band): a=1 holds all;
    # a=0.3 breaks even too high, varies less (sd 0) and out-earns FirstProfit
    assert a1.holds == len(STATEMENTS) and a1.fails == ""
    assert a03.fails.split() == [
        "first_reward_break_even",
        "higher_variation",
        "profit_aware_ahead",
    ]
    assert a03.holds == len(STATEMENTS) - 3


def test_calibrate_without_results_is_a_one_line_error(tmp_path, capsys):
    assert main(["calibrate", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gridmarket: error:") and err.count("\n") == 1
