"""CapacityProfile changed: ``reserve``/``release`` (splitting and merging steps, refusing what
does not fit and leaving the profile as it was), ``reserve_earliest``, ``trim`` and ``copy``."""

from __future__ import annotations

import math

import pytest

from market.core.capacity import CapacityError, CapacityProfile
from tests.unit.profiles import gap_profile


# -- reserve / release -------------------------------------------------------------------------
def test_reserve_splits_and_release_merges_back() -> None:
    profile = CapacityProfile(4)
    profile.reserve(2.0, 3.0, 3)
    assert profile.steps() == [(0.0, 4), (2.0, 1), (5.0, 4)]
    assert profile.free_at(4.999) == 1
    profile.release(2.0, 3.0, 3)
    assert profile.steps() == [(0.0, 4)]


def test_reserve_at_origin_and_to_infinity() -> None:
    profile = CapacityProfile(4)
    profile.reserve(0.0, 3.0, 4)
    assert profile.steps() == [(0.0, 0), (3.0, 4)]
    profile.release(0.0, 3.0, 4)
    assert profile.steps() == [(0.0, 4)]
    profile.reserve(1.0, math.inf, 2)
    assert profile.free_at(0.5) == 4
    assert profile.free_at(1.0) == 2
    assert profile.free_at(1e12) == 2
    assert profile.earliest_start(3, 1.0, 0.0) == 0.0
    assert profile.earliest_start(3, 2.0, 0.0) == math.inf


def test_adjacent_equal_reservations_merge() -> None:
    profile = CapacityProfile(4)
    profile.reserve(2.0, 3.0, 2)
    profile.reserve(5.0, 3.0, 2)
    assert profile.steps() == [(0.0, 4), (2.0, 2), (8.0, 4)]
    profile.release(2.0, 3.0, 2)
    assert profile.steps() == [(0.0, 4), (5.0, 2), (8.0, 4)]
    profile.release(5.0, 3.0, 2)
    assert profile.steps() == [(0.0, 4)]


def test_reservation_filling_a_gap_merges_both_edges() -> None:
    profile = gap_profile()
    start = profile.earliest_start(4, 2.0, 0.0)
    assert start == 1.0
    profile.reserve(start, 2.0, 4)
    assert profile.steps() == [(0.0, 0), (6.0, 4)]
    profile.release(start, 2.0, 4)
    assert profile.steps() == gap_profile().steps()


def test_overlapping_reservations_stack() -> None:
    profile = CapacityProfile(10)
    profile.reserve(0.0, 4.0, 3)
    profile.reserve(2.0, 4.0, 5)
    assert profile.steps() == [(0.0, 7), (2.0, 2), (4.0, 5), (6.0, 10)]
    assert profile.earliest_start(3, 1.0, 0.0) == 0.0
    assert profile.earliest_start(3, 3.0, 0.0) == 4.0
    profile.release(0.0, 4.0, 3)
    assert profile.steps() == [(0.0, 10), (2.0, 5), (6.0, 10)]


def test_reserve_of_nothing_is_a_no_op() -> None:
    profile = gap_profile()
    profile.reserve(1.0, 0.0, 4)
    profile.reserve(1.0, 2.0, 0)
    profile.reserve(1.0, -1.0, 4)
    assert profile.steps() == gap_profile().steps()


def test_settled_is_the_last_step() -> None:
    assert gap_profile().settled == (6.0, 4)
    assert CapacityProfile(8, origin=2.5, free=3).settled == (2.5, 3)


def test_reserve_earliest_reserves_at_the_earliest_start_if_it_ends_in_time() -> None:
    profile = gap_profile()
    assert profile.reserve_earliest(2, 2.0, 0.0, latest_end=2.5) == 1.0  # would end at 3
    assert profile.steps() == gap_profile().steps()
    assert profile.reserve_earliest(2, 2.0, 0.0, latest_end=3.0) == 1.0
    assert profile.steps() == [(0.0, 0), (1.0, 2), (3.0, 0), (6.0, 4)]
    assert profile.reserve_earliest(3, 1.0, 0.0) == 6.0  # no latest end: always reserved
    assert profile.steps() == [(0.0, 0), (1.0, 2), (3.0, 0), (6.0, 1), (7.0, 4)]
    assert profile.reserve_earliest(5, 1.0, 0.0) == math.inf
    assert profile.reserve_earliest(2, 0.0, 0.0) == 1.0  # nothing to reserve
    assert profile.steps() == [(0.0, 0), (1.0, 2), (3.0, 0), (6.0, 1), (7.0, 4)]


def test_over_reserve_raises_and_leaves_profile_unchanged() -> None:
    profile = CapacityProfile(4)
    profile.reserve(2.0, 3.0, 3)
    before = profile.steps()
    with pytest.raises(CapacityError):
        profile.reserve(0.0, 2.5, 2)  # [2, 2.5) has only 1 free
    with pytest.raises(CapacityError):
        profile.reserve(4.5, 10.0, 2)
    with pytest.raises(CapacityError):
        profile.reserve(0.0, 1.0, 5)
    assert profile.steps() == before
    profile.reserve(0.0, 2.0, 4)  # right up to the busy step is fine
    assert profile.steps() == [(0.0, 0), (2.0, 1), (5.0, 4)]


def test_over_release_raises_and_leaves_profile_unchanged() -> None:
    profile = CapacityProfile(4)
    with pytest.raises(CapacityError):
        profile.release(0.0, 1.0, 1)
    assert profile.steps() == [(0.0, 4)]
    profile.reserve(2.0, 3.0, 2)
    before = profile.steps()
    with pytest.raises(CapacityError):
        profile.release(4.0, 3.0, 2)  # [5, 7) is already at capacity
    with pytest.raises(CapacityError):
        profile.release(2.0, 3.0, 3)
    assert profile.steps() == before


def test_change_before_origin_raises() -> None:
    profile = CapacityProfile(4, origin=5.0)
    with pytest.raises(CapacityError):
        profile.reserve(4.0, 2.0, 1)
    assert profile.steps() == [(5.0, 4)]


# -- trim --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (-1.0, [(0.0, 4), (2.0, 2), (5.0, 4)]),
        (0.0, [(0.0, 4), (2.0, 2), (5.0, 4)]),
        (1.0, [(1.0, 4), (2.0, 2), (5.0, 4)]),
        (2.0, [(2.0, 2), (5.0, 4)]),
        (3.0, [(3.0, 2), (5.0, 4)]),
        (5.0, [(5.0, 4)]),
        (9.0, [(9.0, 4)]),
    ],
)
def test_trim(now: float, expected: list[tuple[float, int]]) -> None:
    profile = CapacityProfile(4)
    profile.reserve(2.0, 3.0, 2)
    profile.trim(now)
    assert profile.steps() == expected
    assert profile.origin == expected[0][0]


def test_trim_then_reserve_before_new_origin_raises() -> None:
    profile = CapacityProfile(4)
    profile.reserve(2.0, 3.0, 2)
    profile.trim(3.0)
    with pytest.raises(CapacityError):
        profile.reserve(2.5, 1.0, 1)
    assert profile.earliest_start(3, 1.0, 0.0) == 5.0


# -- copy --------------------------------------------------------------------------------------
def test_copy_is_independent() -> None:
    base = CapacityProfile(4)
    base.reserve(2.0, 3.0, 2)
    clone = base.copy()
    assert clone.steps() == base.steps()
    assert clone.capacity == base.capacity
    clone.reserve(0.0, 1.0, 4)
    clone.trim(0.5)
    assert base.steps() == [(0.0, 4), (2.0, 2), (5.0, 4)]
    base.release(2.0, 3.0, 2)
    assert base.steps() == [(0.0, 4)]
    assert clone.steps() == [(0.5, 0), (1.0, 4), (2.0, 2), (5.0, 4)]


def test_repr_shows_steps() -> None:
    profile = CapacityProfile(4)
    profile.reserve(2.0, 3.0, 2)
    assert repr(profile) == "CapacityProfile(capacity=4, [0:4, 2:2, 5:4])"


def test_a_release_at_its_float_start_undoes_the_reservation_beside_a_rounded_breakpoint() -> None:
    """The VQoPS TR Figure 11 crash: job B's slot says it starts at ``s``, but its processors were
    reserved from the breakpoint a neighbour's end put one rounding later (``s + 4e-13``).
    Releasing B at ``s`` must cover the steps B's reservation took, not the step before ``s``
    (127 free: that raised "releasing 8 processors ... exceeds the capacity 128")."""
    s = 1254.207222222222
    profile = CapacityProfile(128, origin=1250.0)
    profile.reserve(1250.0, s + 4e-13 - 1250.0, 1)  # the neighbour: 127 free until just after s
    before = profile.steps()
    profile.reserve(profile.steps()[1][0], 18.0, 8)  # B, from the neighbour's end
    profile.release(s, 18.0, 8)  # at the start its slot recorded
    assert profile.steps() == before
