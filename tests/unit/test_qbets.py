"""QBETS (market/core/qbets.py): the binomial bound, its inverse, change points, classes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from market.core.qbets import (
    QBETS,
    DelayHistory,
    JobClasses,
    QbetsError,
    change_points,
    min_history,
    order_statistic,
    probability,
    upper_bound,
)

TWENTY = [float(d) for d in range(1, 21)]  # 20 delays, 1..20


def test_twenty_delays_are_too_few_for_the_95th_percentile_at_95_percent():
    # x_(k) bounds x_.95 with confidence P(Bin(20, .95) <= k-1). Even the largest, k = 20,
    # only reaches 1 - .95**20 = 0.6415 < 0.95: no bound from 20 delays.
    assert order_statistic(20, 0.95, 0.95) is None
    assert upper_bound(TWENTY, 0.95, 0.95) == math.inf
    # 1 - .95**58 = 0.9490 < .95 <= 1 - .95**59 = 0.9515: 59 delays are the fewest, and then
    # the bound is their maximum.
    assert min_history(0.95, 0.95) == 59
    assert order_statistic(58, 0.95, 0.95) is None
    assert order_statistic(59, 0.95, 0.95) == 59


def test_twenty_delays_bound_the_median_by_their_15th_smallest():
    # P(Bin(20, .5) <= 13) = 0.9423 < 0.95 <= P(Bin(20, .5) <= 14) = 0.9793: k - 1 = 14, so the
    # smallest order statistic that bounds the median with 95 % confidence is x_(15) = 15.
    assert order_statistic(20, 0.5, 0.95) == 15
    assert upper_bound(TWENTY, 0.5, 0.95) == 15.0
    assert upper_bound(list(reversed(TWENTY)), 0.5, 0.95) != 15.0  # it needs them sorted


def test_probability_is_the_inverse_of_the_bound():
    # 15 of the 20 delays are <= 15: the largest q whose bound is <= 15 is the Clopper-Pearson
    # lower limit beta.ppf(.05, 15, 6) = 0.5444; and 0 when no delay is that short.
    assert probability(TWENTY, 15.0, 0.95) == pytest.approx(0.5444176, abs=1e-6)
    assert probability(TWENTY, 0.5, 0.95) == 0.0
    rng = np.random.default_rng(1)
    delays = sorted(rng.exponential(3.0, 200).tolist())
    for wait in (0.1, 1.0, 3.0, 8.0, 20.0):
        p = probability(delays, wait, 0.95)
        for q in (0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99):
            assert (upper_bound(delays, q, 0.95) <= wait) == (p >= q), (wait, q)


def test_an_obvious_shift_is_a_change_point():
    # 100 delays of 10 then 1000s. Watching the median: each 1000 is a miss; with no finished
    # run yet P(miss | miss) = 1/2, so a run of r is a change point when
    # (1 - .5) * .5**(r-1) <= .01: r = 1 + ceil(log(.02)/log(.5)) = 7, the 7th 1000 (index 106).
    delays = [10.0] * 100 + [1000.0] * 20
    assert change_points(delays, quantile=0.5) == [106]
    history = DelayHistory(0.5, 0.95)
    for d in delays[:107]:
        history.add(d)
    assert list(history.ordered) == [1000.0] * 7  # trimmed to max(7, min_history = 5)
    assert history.bound() == 1000.0
    assert change_points([10.0] * 120, quantile=0.5) == []  # no shift, no change point


def test_classes_grid_and_unknown_request():
    classes = JobClasses((8, 32), (1.0, 4.0))
    assert len(classes) == 9
    assert classes.of(8, 1.0) == 0  # nodes <= 8, time <= 1 h
    assert classes.of(9, 1.5) == 4  # 9-32 nodes, 1-4 h
    assert classes.of(64, 10.0) == 8
    assert classes.of(1, math.nan) == 2  # unknown request: the longest
    assert classes.label(4) == "nodes 9-32, time 1-4 h"
    assert len(JobClasses.single()) == 1


def test_a_class_with_too_little_history_borrows_every_job_s():
    qbets = QBETS(0.95, 0.95)
    for i in range(100):  # big long jobs waited 100 h; no small job seen yet
        qbets.observe(64, 10.0, 100.0 + i * 0.01)
    assert qbets.bound(1, 0.5) == pytest.approx(100.99)  # the pooled bound
    for _ in range(59):
        qbets.observe(1, 0.5, 0.25)
    assert qbets.bound(1, 0.5) == 0.25  # now its own
    assert qbets.probability(1, 0.5, 0.25) == pytest.approx(0.05 ** (1 / 59))  # m = n = 59


@pytest.mark.parametrize(
    ("kwargs", "field"), [({"quantile": 1.5}, "quantile"), ({"confidence": 0.0}, "confidence")]
)
def test_bad_quantile_or_confidence_names_the_field(kwargs, field):
    with pytest.raises(QbetsError, match=f"^{field}: must lie strictly between 0 and 1"):
        QBETS(**kwargs)


def test_clustering_separates_cells_by_their_delays():
    from market.core.qbets_cluster import ClusteredQBETS

    # Small short jobs wait about 0.01 h, big long ones about 10 h; medium ones like the big.
    qbets = ClusteredQBETS(k=2, refit_every=300, min_cell=20)
    rng = np.random.default_rng(2)
    assert qbets.class_of(1, 0.2) == qbets.class_of(128, 10.0)  # one class before a fit
    for _ in range(100):
        qbets.observe(1, 0.2, float(rng.uniform(0.005, 0.015)))
        qbets.observe(128, 10.0, float(rng.uniform(9.0, 11.0)))
        qbets.observe(32, 3.0, float(rng.uniform(8.0, 12.0)))
    assert qbets.refits == 1
    small, big, medium = qbets.class_of(1, 0.2), qbets.class_of(128, 10.0), qbets.class_of(32, 3)
    assert small == 0 and big == medium == 1  # classes ranked by delay
    assert qbets.bound(1, 0.2) < 0.02 and qbets.bound(32, 3.0) > 9.0
