"""Measurement windows (market/results/windows.py): profit and rented hours inside a window, by
hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from market.core.rent import PriceSchedule
from market.results import windows
from market.results.windows import rented_hours, window_profit, window_rate

# (processors, start, end, paid): A ran 0-4 on 2 and was paid 10; B ran 3-8 on 1 and paid a
# penalty of 5; C never ran; D runs from 6 on 3 processors (now = 9).
JOBS = [(2, 0.0, 4.0, 10.0), (1, 3.0, 8.0, -5.0), (None, None, None, None), (3, 6.0, None, None)]
NOW = 9.0


def test_rented_hours_count_only_the_overlap_with_the_window():
    # [1, 5]: A 2 x 3 h, B 1 x 2 h, D not yet -> 8
    assert rented_hours(JOBS, 1.0, 5.0, NOW) == pytest.approx(8.0)
    # [0, 9]: A 8, B 5, D 3 x 3 (held until now) -> 22
    assert rented_hours(JOBS, 0.0, 9.0, NOW) == pytest.approx(22.0)


def test_window_profit_is_payments_inside_less_rent_of_the_hours_inside():
    price = PriceSchedule.constant(2.0)
    # [1, 5]: A paid 10 at 4; rent 2 x 8 h = 16 -> -6, per hour of the window -1.5
    assert window_profit(JOBS, price, 1.0, 5.0, NOW) == pytest.approx(-6.0)
    assert window_rate(JOBS, price, 1.0, 5.0, NOW) == pytest.approx(-1.5)
    # the whole run: 10 - 5 paid, rent 2 x 22 = 44 -> -39 (D's rent so far, no payment yet)
    assert window_profit(JOBS, price, 0.0, NOW, NOW) == pytest.approx(-39.0)


def test_window_rent_follows_the_price_of_each_instant():
    price = PriceSchedule.steps(1.0, [(2.0, 3.0)])  # 1 per processor-hour until 2, then 3
    # [1, 5]: A 2 procs: 1-2 at 1 (2) + 2-4 at 3 (12); B 1 proc 3-5 at 3 (6): rent 20, paid 10
    assert window_profit(JOBS, price, 1.0, 5.0, NOW) == pytest.approx(-10.0)


def test_an_empty_window_has_no_rate():
    assert math.isnan(window_rate(JOBS, PriceSchedule.constant(1.0), 3.0, 3.0, NOW))


def test_columns_and_any_chunk_size_give_the_same_exact_sums(monkeypatch):
    # Many jobs of awkward floats, some never started, some running: the windows measured a
    # chunk at a time (here 1, 3 and all at once) and from the columns equal the sums of the
    # tuples made by hand, to the last bit (math.fsum is exact whatever the order).
    rng = np.random.default_rng(7)
    n = 500
    start = rng.uniform(0.0, 50.0, n) / 3.0
    end = start + rng.uniform(0.0, 9.0, n) / 7.0
    start[::11], end[::11] = np.nan, np.nan  # never ran
    end[5::13] = np.nan  # still running
    processors = rng.integers(1, 64, n).astype(float)
    paid = np.where(np.isnan(end), np.nan, rng.normal(10.0, 5.0, n))
    jobs = [
        tuple(None if v != v else v for v in row)
        for row in zip(processors, start, end, paid, strict=True)
    ]
    lo, hi, now, price = 3.1, 17.3, 19.9, PriceSchedule.steps(0.7, [(9.1, 1.3)])
    held = [
        (p, max(s, lo), min(now if e is None else e, hi)) for p, s, e, _ in jobs if s is not None
    ]
    hours = math.fsum(p * max(0.0, b - a) for p, a, b in held)
    rent = math.fsum(price.cost(p, a, b) for p, a, b in held if b > a)
    paid_in = math.fsum(v for _, _, e, v in jobs if e is not None and lo <= e <= hi)
    for chunk in (1, 3, 10_000):
        monkeypatch.setattr(windows, "CHUNK", chunk)
        for given in (jobs, (processors, start, end, paid)):
            assert rented_hours(given, lo, hi, now) == hours
            assert window_profit(given, price, lo, hi, now) == paid_in - rent
