"""CapacityProfile built and read: construction and its checks, ``free_at``, ``min_free`` and
``earliest_start`` on hand-made step functions."""

from __future__ import annotations

import math

import pytest

from market.core.capacity import CapacityError, CapacityProfile
from tests.unit.profiles import gap_profile


# -- construction ------------------------------------------------------------------------------
def test_new_profile_is_one_full_step_from_origin() -> None:
    profile = CapacityProfile(8, origin=2.5)
    assert profile.capacity == 8
    assert profile.origin == 2.5
    assert profile.steps() == [(2.5, 8)]


def test_new_profile_with_fewer_free_than_capacity() -> None:
    profile = CapacityProfile(8, free=3)
    assert profile.steps() == [(0.0, 3)]
    # Releasing up to the capacity is allowed, beyond it is not.
    profile.release(0.0, 1.0, 5)
    assert profile.steps() == [(0.0, 8), (1.0, 3)]


@pytest.mark.parametrize(("capacity", "free"), [(-1, None), (4, 5), (4, -1)])
def test_constructor_rejects_bad_counts(capacity: int, free: int | None) -> None:
    with pytest.raises(CapacityError):
        CapacityProfile(capacity, free=free)


@pytest.mark.parametrize(
    ("times", "free"),
    [
        ([], []),
        ([0.0, 1.0], [4]),
        ([0.0, 0.0], [4, 2]),
        ([1.0, 0.0], [4, 2]),
        ([0.0, 1.0], [4, 5]),
        ([0.0, 1.0], [-1, 4]),
    ],
)
def test_from_steps_rejects_bad_steps(times: list[float], free: list[int]) -> None:
    with pytest.raises(CapacityError):
        CapacityProfile.from_steps(4, times, free)


def test_capacity_error_is_a_value_error() -> None:
    assert issubclass(CapacityError, ValueError)


# -- free_at / min_free ------------------------------------------------------------------------
def test_free_at_is_right_continuous() -> None:
    profile = gap_profile()
    assert profile.free_at(-5.0) == 0  # before the origin reads as the origin
    assert profile.free_at(0.0) == 0
    assert profile.free_at(0.999) == 0
    assert profile.free_at(1.0) == 4
    assert profile.free_at(2.999) == 4
    assert profile.free_at(3.0) == 0
    assert profile.free_at(6.0) == 4
    assert profile.free_at(1e9) == 4


def test_free_at_before_a_later_origin() -> None:
    profile = CapacityProfile.from_steps(4, [10.0, 12.0], [1, 3])
    assert profile.free_at(0.0) == 1
    assert profile.free_at(11.0) == 1
    assert profile.free_at(12.0) == 3


def test_min_free_over_half_open_intervals() -> None:
    profile = CapacityProfile.from_steps(8, [0.0, 2.0, 5.0, 7.0], [8, 3, 6, 1])
    assert profile.min_free(0.0, 2.0) == 8  # the end is excluded
    assert profile.min_free(0.0, 2.01) == 3
    assert profile.min_free(2.0, 5.0) == 3
    assert profile.min_free(5.0, 7.0) == 6
    assert profile.min_free(4.99, 5.0) == 3
    assert profile.min_free(5.5, 6.5) == 6
    assert profile.min_free(-3.0, 1.0) == 8  # before the origin reads as the origin
    assert profile.min_free(6.0, 100.0) == 1
    assert profile.min_free(0.0, math.inf) == 1


# -- earliest_start ----------------------------------------------------------------------------
def test_earliest_start_skips_a_gap_that_is_too_short() -> None:
    assert gap_profile().earliest_start(2, 3.0, 0.0) == 6.0
    assert gap_profile().earliest_start(1, 2.5, 0.0) == 6.0


def test_earliest_start_uses_a_gap_that_fits_exactly() -> None:
    assert gap_profile().earliest_start(2, 2.0, 0.0) == 1.0
    assert gap_profile().earliest_start(4, 2.0, 0.0) == 1.0
    # Starting inside the gap, the rest of it fits exactly ...
    assert gap_profile().earliest_start(2, 1.5, 1.5) == 1.5
    # ... or is too short.
    assert gap_profile().earliest_start(2, 1.6, 1.5) == 6.0


def test_earliest_start_not_before_after() -> None:
    assert gap_profile().earliest_start(1, 1.0, 7.25) == 7.25
    assert gap_profile().earliest_start(1, 100.0, 50.0) == 50.0
    assert gap_profile().earliest_start(1, 1.0, 4.0) == 6.0


def test_earliest_start_not_before_the_origin() -> None:
    profile = CapacityProfile(4, origin=10.0)
    assert profile.earliest_start(1, 1.0, 0.0) == 10.0
    assert profile.earliest_start(4, 5.0, -3.0) == 10.0


def test_earliest_start_spans_several_steps_with_room() -> None:
    profile = CapacityProfile.from_steps(4, [0.0, 1.0, 2.0, 3.0], [1, 3, 2, 4])
    assert profile.earliest_start(2, 10.0, 0.0) == 1.0  # [1, 2) has 3, [2, 3) has 2, then 4
    assert profile.earliest_start(3, 2.0, 0.0) == 3.0  # [2, 3) has only 2: restart after it
    assert profile.earliest_start(3, 1.0, 0.0) == 1.0  # [1, 2) alone is enough
    assert profile.earliest_start(1, 5.0, 0.0) == 0.0


def test_earliest_start_after_the_last_step_too_small_within_the_run() -> None:
    # Steps [1, 2) and [3, 4) have 1 free: a run of 2.5 h on 2 starting at 0 or at 2 spans one
    # of them, so the earliest start is 4, after the later; the run is then reserved there.
    profile = CapacityProfile.from_steps(4, [0.0, 1.0, 2.0, 3.0, 4.0], [4, 1, 4, 1, 4])
    assert profile.earliest_start(2, 2.5, 0.0) == 4.0
    assert profile.earliest_start(2, 1.0, 0.0) == 0.0  # (ends at 1: the gap before is enough)
    assert profile.reserve_earliest(2, 2.5, 0.0) == 4.0
    assert profile.steps() == [(0.0, 4), (1.0, 1), (2.0, 4), (3.0, 1), (4.0, 2), (6.5, 4)]


def test_earliest_start_more_processors_than_capacity_is_inf() -> None:
    assert gap_profile().earliest_start(5, 1.0, 0.0) == math.inf
    assert CapacityProfile(0).earliest_start(1, 1.0, 0.0) == math.inf


def test_earliest_start_inf_when_last_step_is_too_small() -> None:
    profile = CapacityProfile.from_steps(4, [0.0, 2.0], [4, 1])
    assert profile.earliest_start(2, 1.0, 0.0) == 0.0
    assert profile.earliest_start(2, 2.0, 0.0) == 0.0
    assert profile.earliest_start(2, 2.5, 0.0) == math.inf
    assert profile.earliest_start(2, 1.0, 2.0) == math.inf
