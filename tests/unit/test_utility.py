"""UtilityFunction: the value of a job as a function of its completion time.

Every expected number is computed by hand in the comment next to it.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from market.core.utility import UtilityFunction

# -- linear_decay (profit paper §4: value, decay from submission, penalty bound) ---------------


@pytest.fixture
def low_value() -> UtilityFunction:
    """Value 48, decaying from t=1 at 4/h to the bound -48: the floor is reached at
    1 + (48 - (-48)) / 4 = 25."""
    return UtilityFunction.linear_decay(48.0, 1.0, 4.0, -48.0)


def test_linear_decay_breakpoints(low_value: UtilityFunction) -> None:
    assert low_value.times == (1.0, 25.0)
    assert low_value.values == (48.0, -48.0)
    assert low_value.max_value == 48.0
    assert low_value.penalty_bound == -48.0
    assert low_value.floor_time == 25.0


@pytest.mark.parametrize(
    ("t", "expected"),
    [
        (-10.0, 48.0),  # before the decay: the full value
        (0.0, 48.0),
        (1.0, 48.0),  # completing exactly at the decay start still earns the value
        (3.0, 40.0),  # 48 - 4 * (3 - 1)
        (7.5, 22.0),  # 48 - 4 * 6.5
        (13.0, 0.0),  # 48 - 4 * 12: the value crosses zero
        (19.0, -24.0),  # 48 - 4 * 18
        (24.0, -44.0),  # 48 - 4 * 23
        (25.0, -48.0),  # the penalty bound, reached at the floor time
        (25.5, -48.0),
        (100.0, -48.0),  # flat at the bound after it
    ],
)
def test_linear_decay_values(low_value: UtilityFunction, t: float, expected: float) -> None:
    assert low_value(t) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("t", "expected"),
    [
        (0.0, 0.0),  # before the decay starts
        (0.999, 0.0),
        (1.0, 4.0),  # value is lost from just after the decay start
        (3.0, 4.0),
        (24.999, 4.0),
        (25.0, 0.0),  # at and after the floor nothing more is lost
        (60.0, 0.0),
    ],
)
def test_linear_decay_rate(low_value: UtilityFunction, t: float, expected: float) -> None:
    assert low_value.decay_rate(t) == expected


def test_linear_decay_high_value_steep_job() -> None:
    # Submitted at 2.5 with value 144 (3 x 48), steep decay 16/h, bound -48:
    # floor at 2.5 + (144 + 48) / 16 = 14.5.
    u = UtilityFunction.linear_decay(144.0, 2.5, 16.0, -48.0)
    assert u.times == (2.5, 14.5)
    assert u(2.5) == 144.0
    assert u(6.5) == pytest.approx(80.0)  # 144 - 16 * 4
    assert u(11.5) == pytest.approx(0.0, abs=1e-12)  # 144 - 16 * 9
    assert u(14.5) == -48.0
    assert u(20.0) == -48.0
    assert u.decay_rate(10.0) == pytest.approx(16.0)


def test_linear_decay_with_positive_bound() -> None:
    # Value 10 from t=0, 2/h down to 4: floor at (10 - 4) / 2 = 3.
    u = UtilityFunction.linear_decay(10.0, 0.0, 2.0, 4.0)
    assert u.times == (0.0, 3.0)
    assert u(1.5) == pytest.approx(7.0)  # 10 - 2 * 1.5
    assert u(3.0) == 4.0
    assert u(50.0) == 4.0


@pytest.mark.parametrize(("rate", "bound"), [(0.0, -48.0), (4.0, 48.0), (0.0, 48.0)])
def test_linear_decay_without_decay_is_constant(rate: float, bound: float) -> None:
    # Either no decay, or a bound equal to the value: the value never changes.
    u = UtilityFunction.linear_decay(48.0, 1.0, rate, bound)
    assert u.times == (1.0,)
    assert u.values == (48.0,)
    assert u(0.0) == u(1.0) == u(1000.0) == 48.0
    assert u.decay_rate(1.0) == 0.0
    assert u.decay_rate(5.0) == 0.0


def test_linear_decay_rejects_negative_rate() -> None:
    with pytest.raises(ValueError, match="decay_rate"):
        UtilityFunction.linear_decay(48.0, 1.0, -4.0, -48.0)


def test_linear_decay_rejects_penalty_above_value() -> None:
    with pytest.raises(ValueError, match="penalty_bound"):
        UtilityFunction.linear_decay(48.0, 1.0, 4.0, 48.5)


def test_linear_decay_rejects_nan_rate() -> None:
    with pytest.raises(ValueError):
        UtilityFunction.linear_decay(48.0, 1.0, math.nan, -48.0)


# -- to_deadline (opportunity-cost paper §4: linear to zero at the deadline) -------------------


def test_to_deadline_decays_to_zero_at_the_deadline() -> None:
    # Value 30, decay from 2 to the deadline 8: 30 / 6 = 5 lost per hour.
    u = UtilityFunction.to_deadline(30.0, 2.0, 8.0)
    assert u.times == (2.0, 8.0)
    assert u.values == (30.0, 0.0)
    assert u(0.0) == 30.0
    assert u(2.0) == 30.0
    assert u(3.0) == pytest.approx(25.0)  # 30 - 5 * 1
    assert u(5.0) == pytest.approx(15.0)  # 30 - 5 * 3
    assert u(7.0) == pytest.approx(5.0)  # 30 - 5 * 5
    assert u(8.0) == 0.0
    assert u(9.0) == 0.0
    assert u.decay_rate(1.9) == 0.0
    assert u.decay_rate(2.0) == pytest.approx(5.0)
    assert u.decay_rate(7.99) == pytest.approx(5.0)
    assert u.decay_rate(8.0) == 0.0


def test_to_deadline_with_negative_floor() -> None:
    # Value 30 at 2, -6 at 8: 36 / 6 = 6 lost per hour.
    u = UtilityFunction.to_deadline(30.0, 2.0, 8.0, floor=-6.0)
    assert u(5.0) == pytest.approx(12.0)  # 30 - 6 * 3
    assert u(8.0) == -6.0
    assert u(80.0) == -6.0
    assert u.decay_rate(4.0) == pytest.approx(6.0)


def test_to_deadline_at_decay_start_is_a_step() -> None:
    u = UtilityFunction.to_deadline(20.0, 5.0, 5.0)
    assert u.times == (5.0, 5.0)
    assert u(4.0) == 20.0
    assert u(5.0) == 20.0  # completing exactly at the deadline earns the value
    assert u(5.0 + 1e-9) == 0.0
    assert u(6.0) == 0.0
    assert u.decay_rate(4.0) == 0.0  # a step has no slope on either side
    assert u.decay_rate(5.0) == 0.0


def test_to_deadline_before_decay_start_is_a_step_at_the_deadline() -> None:
    u = UtilityFunction.to_deadline(20.0, 6.0, 5.0)
    assert u.times == (5.0, 5.0)
    assert u(5.0) == 20.0
    assert u(5.5) == 0.0  # past the deadline, although before the requested decay start


def test_to_deadline_rejects_floor_above_value() -> None:
    with pytest.raises(ValueError, match="floor"):
        UtilityFunction.to_deadline(20.0, 1.0, 5.0, floor=21.0)


# -- constant ----------------------------------------------------------------------------------


def test_constant() -> None:
    u = UtilityFunction.constant(7)
    assert u.values == (7.0,)
    assert isinstance(u.values[0], float)
    assert u.max_value == u.penalty_bound == 7.0
    for t in (-5.0, 0.0, 1.0, 1e6):
        assert u(t) == 7.0
        assert u.decay_rate(t) == 0.0


def test_constant_negative_value() -> None:
    assert UtilityFunction.constant(-3.5)(10.0) == -3.5


# -- general piecewise-linear functions --------------------------------------------------------


def test_several_segments_with_a_step() -> None:
    # 10 -> 6 over [0, 2] (2/h), step down to 4 at 2, then 4 -> 0 over [2, 6] (1/h).
    u = UtilityFunction((0.0, 2.0, 2.0, 6.0), (10.0, 6.0, 4.0, 0.0))
    assert u(1.0) == pytest.approx(8.0)  # 10 - 2 * 1
    assert u(2.0) == pytest.approx(6.0)  # at the step: the higher value
    assert u(2.0 + 1e-9) == pytest.approx(4.0)
    assert u(4.0) == pytest.approx(2.0)  # 4 - 1 * 2
    assert u(6.0) == 0.0
    assert u.decay_rate(1.0) == pytest.approx(2.0)
    assert u.decay_rate(2.0) == pytest.approx(1.0)  # the slope just after 2
    assert u.decay_rate(5.9) == pytest.approx(1.0)
    assert u.floor_time == 6.0


def test_decay_ending_in_a_hard_deadline() -> None:
    # 10 -> 6 over [0, 4] (1/h), then a hard deadline at 4 dropping to -2.
    u = UtilityFunction((0.0, 4.0, 4.0), (10.0, 6.0, -2.0))
    assert u(3.0) == pytest.approx(7.0)  # 10 - 1 * 3
    assert u(4.0) == pytest.approx(6.0)  # completing exactly at the deadline: the higher value
    assert u(4.0 + 1e-9) == -2.0
    assert u.decay_rate(3.99) == pytest.approx(1.0)
    assert u.decay_rate(4.0) == 0.0


def test_flat_middle_segment() -> None:
    # 10 -> 5 over [0, 1], flat at 5 over [1, 3], 5 -> 1 over [3, 5].
    u = UtilityFunction((0.0, 1.0, 3.0, 5.0), (10.0, 5.0, 5.0, 1.0))
    assert u(0.5) == pytest.approx(7.5)
    assert u(2.0) == 5.0
    assert u(4.0) == pytest.approx(3.0)
    assert u.decay_rate(2.0) == 0.0
    assert u.decay_rate(3.5) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("times", "values", "message"),
    [
        ((0.0, 1.0), (1.0, 2.0), "increase"),  # increasing values
        ((0.0, 2.0, 3.0), (5.0, 4.0, 4.5), "increase"),
        ((2.0, 1.0), (2.0, 1.0), "decrease"),  # decreasing times
        ((), (), "at least 1"),
        ((0.0, 1.0), (1.0,), "as many"),
        ((0.0,), (math.nan,), "finite"),
        ((0.0, math.inf), (1.0, 0.0), "finite"),
        ((0.0, 1.0), (1.0, -math.inf), "finite"),
    ],
)
def test_invalid_functions_rejected(
    times: tuple[float, ...], values: tuple[float, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        UtilityFunction(times, values)


def test_utility_is_frozen_and_comparable() -> None:
    u = UtilityFunction.linear_decay(48.0, 1.0, 4.0, -48.0)
    assert u == UtilityFunction((1.0, 25.0), (48.0, -48.0))
    assert hash(u) == hash(UtilityFunction((1.0, 25.0), (48.0, -48.0)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        u.times = (0.0, 1.0)  # type: ignore[misc]


# -- properties --------------------------------------------------------------------------------

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(
    value=finite,
    start=finite,
    rate=st.one_of(st.just(0.0), st.floats(1e-3, 100.0)),  # tiny rates overflow floor_time
    drop=st.floats(0.0, 1e3),
    t1=finite,
    t2=finite,
)
def test_linear_decay_is_bounded_and_non_increasing(
    value: float, start: float, rate: float, drop: float, t1: float, t2: float
) -> None:
    u = UtilityFunction.linear_decay(value, start, rate, value - drop)
    lo, hi = sorted((t1, t2))
    tol = 1e-9 * (1.0 + abs(value) + drop)
    assert u(lo) >= u(hi) - tol
    assert u.penalty_bound - tol <= u(lo) <= u.max_value + tol
    assert u(min(start, lo)) == value
    assert u.decay_rate(lo) >= 0.0
    if lo < start or lo >= u.floor_time:
        assert u.decay_rate(lo) == 0.0
