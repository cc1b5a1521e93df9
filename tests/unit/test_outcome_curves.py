"""The run summary's QoS metrics as curves over time (market/results/outcome_curves.py): hand-made
jobs
whose curves are worked out by hand. That the last points equal a real run's summary is tested
on the dashboards (tests/dashboards/test_qos_charts.py, test_paper_views.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from market.results.job_outcomes import JobOutcomes
from market.results.outcome_curves import (
    QOS_CURVES,
    admitted_pct,
    best_effort_slowdown,
    deadlines_missed,
    fulfilment,
    qos_curves,
    unadmitted_pct,
)

NAN = math.nan


def outcomes(arrival, kind, committed, deadline, end, runtime, start=None, best_effort=None):
    """Jobs as :func:`market.results.job_outcomes.job_outcomes` gives them (by default each started
    its
    runtime before its end, and is best-effort where it has no deadline)."""
    f = lambda v: np.array(v, dtype=float)  # noqa: E731
    start = f(end) - f(runtime) if start is None else f(start)
    best_effort = np.isnan(f(deadline)) if best_effort is None else np.array(best_effort)
    return JobOutcomes(
        "p", f(arrival), np.array(kind, object), np.array(committed), f(deadline), f(end),
        f(runtime), start, best_effort,
    )  # fmt: skip


def test_accepted_pct_counts_the_jobs_of_a_class_arrived_by_each_time():
    # offered in this order; the urgent ones by arrival: 0 admitted, 1 rejected, 3 admitted
    jobs = outcomes(
        [1, 0, 3, 1], ["normal", "urgent", "urgent", "urgent"], [True, True, True, False],
        [9] * 4, [NAN] * 4, [1] * 4,
    )  # fmt: skip
    urgent = admitted_pct(jobs, np.array([-1.0, 0, 1, 2, 3]), "urgent")
    # t=0: 1 of 1; t=1: 1 of 2; t=2: still 1 of 2; t=3: 2 of 3
    assert np.isnan(urgent[0])
    assert urgent[1:] == pytest.approx([100.0, 50.0, 50.0, 200.0 / 3])
    assert admitted_pct(jobs, np.array([0.5, 1.0]), "normal") == pytest.approx(
        [NAN, 100.0], nan_ok=True
    )
    # every class: t=1: 3 arrived (0, 1, 1), 2 admitted
    assert admitted_pct(jobs, np.array([1.0]))[0] == pytest.approx(200.0 / 3)


def test_fulfilment_counts_jobs_done_by_their_deadline_of_all_submitted():
    # job 0 meets its deadline at 3 (slowdown 3/1), job 1 misses (3 > 2), job 2 meets it at 2
    # (slowdown (2-1)/0.5 = 2), job 3 has no deadline: never fulfilled but submitted
    jobs = outcomes([0, 0, 1, 2], [""] * 4, [True] * 4, [5, 2, 4, NAN], [3, 3, 2, 4],
                    [1, 1, 0.5, 1])  # fmt: skip
    pct, slowdown = fulfilment(jobs, np.array([0.0, 1, 2, 3, 4]))
    assert pct == pytest.approx([0, 0, 25, 50, 50])  # of 2, 3, 4, 4, 4 submitted
    assert slowdown == pytest.approx([NAN, NAN, 2.0, 2.5, 2.5], nan_ok=True)
    none = outcomes([0], [""], [True], [NAN], [1], [1])
    assert np.isnan(fulfilment(none, np.array([2.0]))[0]).all()  # no deadlines: NaN


# j0: arrives 0, admitted, deadline 4, runs 0-2: met
# j1: arrives 1, refused (deadline 3), never runs
# j2: arrives 1, admitted, deadline 2, runs 1-3: missed at 3
# j3: arrives 2, admitted, best-effort, runs 3-5: slowdown (5 - 2) / 2 = 1.5
# j4: arrives 2, admitted, best-effort, runs 2-2.0001 (0.36 s < the 10 s bound):
#     (0.0001) / max(0.0001, 10 s) < 1, so 1
TIMES = np.array([0.0, 1, 2, 3, 5])
JOBS = outcomes(
    arrival=[0, 1, 1, 2, 2], kind=[""] * 5, committed=[True, False, True, True, True],
    deadline=[4, 3, 2, NAN, NAN], end=[2, NAN, 3, 5, 2.0001], runtime=[2, NAN, 2, 2, 0.0001],
)  # fmt: skip


def test_unadmitted_pct_is_the_share_of_the_jobs_arrived_so_far_not_admitted():
    # arrived by t: 1, 3, 5, 5, 5; refused: 0, 1, 1, 1, 1
    assert unadmitted_pct(JOBS, TIMES) == pytest.approx([0, 100 / 3, 20, 20, 20])
    assert np.isnan(unadmitted_pct(JOBS, [-1.0])).all()  # no job yet


def test_deadlines_missed_counts_late_completions_by_each_time():
    assert deadlines_missed(JOBS, TIMES).tolist() == [0, 0, 0, 1, 1]  # j2, late at 3
    on_time = outcomes([0], [""], [True], [2], [2 + 1e-12], [1])  # float noise: on time
    assert deadlines_missed(on_time, [5.0]).tolist() == [0]


def test_best_effort_slowdown_is_bounded_and_of_completed_jobs_only():
    # j4 ends at 2.0001 (slowdown 1), j3 at 5 (1.5); the deadline jobs do not count
    got = best_effort_slowdown(JOBS, TIMES)
    assert got == pytest.approx([NAN, NAN, NAN, 1.0, 1.25], nan_ok=True)
    # a job carrying a deadline the provider gave it is best-effort too (QoPS §4.2)
    given = outcomes([0], [""], [True], [9], [4], [2], best_effort=[True])
    assert best_effort_slowdown(given, [4.0]) == pytest.approx([2.0])  # (4 - 0) / 2


def test_qos_curves_has_every_curve_at_every_time():
    curves = qos_curves(JOBS, TIMES)
    assert tuple(curves) == QOS_CURVES
    assert all(len(values) == len(TIMES) for values in curves.values())
    # j0 met its deadline at 2 (slowdown 2/2 = 1): 1 of 5 submitted
    assert curves["deadlines_fulfilled_pct"][-1] == pytest.approx(20.0)
    assert curves["mean_slowdown_fulfilled"][-1] == pytest.approx(1.0)
