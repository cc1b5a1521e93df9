"""The trace pipeline's steps (market/inputs/workloads/trace_steps.py) on hand-made streams."""

from __future__ import annotations

import math

import numpy as np

from market.inputs.workloads import trace_steps as steps


def stream(n: int = 4) -> steps.Stream:
    return steps.Stream(
        arrival=np.arange(n, dtype=float),  # 0, 1, 2, 3 h
        runtime=np.full(n, 2.0),
        estimate=np.full(n, 3.0),
        processors=np.arange(1, n + 1),
        source=np.arange(10, 10 + n),
        copy=np.zeros(n, dtype=np.int64),
        marks=np.array([True, False] * (n // 2)),
        urgency=np.full(n, 4.0),
    )


def test_subset_takes_the_first_the_last_or_a_window():
    submit = np.array([0.0, 1800.0, 3600.0, 7200.0])
    assert steps.subset(submit, 2, None, None) == slice(0, 2)
    assert steps.subset(submit, None, 3, None) == slice(1, None)
    assert steps.subset(submit, None, 9, None) == slice(0, None)
    # [0.5 h, 1 h): only the job submitted at 1800 s
    assert steps.subset(submit, None, None, (0.5, 1.0)) == slice(1, 2)


def test_estimates_are_raised_to_the_runtime_and_moved_by_the_inaccuracy():
    runtime = np.array([1.0, 2.0, 3.0])
    requested = np.array([2.0, np.nan, 1.0])  # fine, missing, short
    estimate, raised = steps.planned_estimates(runtime, requested, None)
    assert estimate.tolist() == [2.0, 2.0, 3.0] and raised == 2
    half, _ = steps.planned_estimates(runtime, requested, 50.0)
    assert half.tolist() == [1.5, 2.0, 3.0]
    exact, raised = steps.planned_estimates(runtime, None, None)
    assert exact.tolist() == runtime.tolist() and raised == 0


def test_duplicates_arrive_with_their_originals_in_the_fixed_order():
    # 1.5 x 4 jobs: two copies, of jobs 2 and 0 (the order's first two), after their originals
    scaled = steps.scale_load(stream(), 1.5, "duplicate", np.array([2, 0, 3, 1]), None)
    assert scaled.source.tolist() == [10, 10, 11, 12, 12, 13]
    assert scaled.copy.tolist() == [0, 1, 0, 0, 1, 0]
    assert scaled.arrival.tolist() == [0.0, 0.0, 1.0, 2.0, 2.0, 3.0]
    assert scaled.marks.tolist() == [True, True, False, True, True, False]  # the original's draw


def test_random_duplicates_arrive_at_the_given_times():
    scaled = steps.scale_load(
        stream(), 1.5, "duplicate", np.array([2, 0, 3, 1]), np.array([0.5, 2.5])
    )
    assert list(zip(scaled.arrival.tolist(), scaled.copy.tolist(), strict=True)) == [
        (0.0, 0), (0.5, 1), (1.0, 0), (2.0, 0), (2.5, 1), (3.0, 0)
    ]  # fmt: skip


def test_expansion_lengthens_jobs_and_compression_submits_faster():
    longer = steps.scale_load(stream(), 2.0, "expand", np.arange(4), None)
    assert longer.runtime.tolist() == [4.0] * 4 and longer.estimate.tolist() == [6.0] * 4
    assert longer.arrival.tolist() == [0.0, 1.0, 2.0, 3.0]
    faster = steps.scale_load(stream(), 2.0, "compress", np.arange(4), None)
    assert faster.arrival.tolist() == [0.0, 0.5, 1.0, 1.5] and len(faster.copy) == 4


def test_times_go_on_the_second_grid_after_the_delay():
    jobs = steps.Stream(**{**_fields(stream()), "arrival": np.array([0.0, 1.0001, 2.0, 3.0])})
    grid = steps.on_second_grid(jobs, 0.5)
    assert grid.arrival.tolist() == [0.0, round(0.50005 * 3600) / 3600, 1.0, 1.5]


def test_marked_jobs_get_the_rule_and_the_others_the_relaxed_deadline():
    deadline, user = steps.deadlines(
        stream(), "factor", 8, stringency=0.2, deadline_factor=5.0, relaxation=2.0,
        relaxed_floor=24.0,
    )  # fmt: skip
    # marked: arrival + 5 x 3 h; unmarked: arrival + max(24 h, 2 x 3 h)
    assert deadline.tolist() == [15.0, 25.0, 17.0, 27.0] and user.tolist() == [1, 0, 1, 0]
    urgent, _ = steps.deadlines(
        stream(), "urgency", 8, stringency=0.2, deadline_factor=5.0, relaxation=None,
        relaxed_floor=24.0,
    )  # fmt: skip
    assert urgent[0] == 8.0 and math.isnan(urgent[1])  # 0 + 4 x 2 h; no relaxed deadline
    none, marks = steps.deadlines(
        stream(), "none", 8, stringency=0.2, deadline_factor=5.0, relaxation=2.0,
        relaxed_floor=24.0,
    )  # fmt: skip
    assert np.isnan(none).all() and not marks.any()


def _fields(jobs: steps.Stream) -> dict:
    return {f: getattr(jobs, f) for f in jobs.__slots__}
