"""CapacityProfile: hand-made step functions, and a property test against a brute-force grid."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from market.core.capacity import CapacityError, CapacityProfile


def gap_profile() -> CapacityProfile:
    """4 processors; busy until 1, a 2-hour gap [1, 3), busy until 6, then free forever."""
    return CapacityProfile.from_steps(4, [0.0, 1.0, 3.0, 6.0], [0, 4, 0, 4])


def assert_merged(profile: CapacityProfile) -> None:
    """Breakpoints strictly increase and no two neighbouring steps have the same value."""
    steps = profile.steps()
    for (t0, f0), (t1, f1) in pairwise(steps):
        assert t1 > t0
        assert f1 != f0, f"unmerged neighbours in {profile!r}"


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


def test_earliest_start_more_processors_than_capacity_is_inf() -> None:
    assert gap_profile().earliest_start(5, 1.0, 0.0) == math.inf
    assert CapacityProfile(0).earliest_start(1, 1.0, 0.0) == math.inf


def test_earliest_start_inf_when_last_step_is_too_small() -> None:
    profile = CapacityProfile.from_steps(4, [0.0, 2.0], [4, 1])
    assert profile.earliest_start(2, 1.0, 0.0) == 0.0
    assert profile.earliest_start(2, 2.0, 0.0) == 0.0
    assert profile.earliest_start(2, 2.5, 0.0) == math.inf
    assert profile.earliest_start(2, 1.0, 2.0) == math.inf


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


# -- property test against a brute-force grid --------------------------------------------------
H = 40  # slots 0..H; slot t is [t, t + 1), and slot H stands for [H, inf)


def brute_earliest(ref: list[int], processors: int, duration: int, after: int) -> float:
    """Earliest integer s >= after with ref[x] >= processors for x in s..s+duration-1, slots
    beyond H reading as slot H (the profile is constant after its last breakpoint)."""
    for s in range(after, max(after, H) + 1):
        if all(ref[min(x, H)] >= processors for x in range(s, s + duration)):
            return float(s)
    return math.inf  # from max(after, H) on everything reads ref[H]: no later start can fit


def brute_min_free(ref: list[int], start: int, end: int) -> int:
    return min(ref[min(x, H)] for x in range(start, end))


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[int, list[tuple]]:
    """A capacity and a list of operations: ("place", n, d, after) reserves at the earliest
    start; ("fit", n, d, after, latest) does so with :meth:`reserve_earliest` if the job ends by
    ``latest``; ("release", k) gives back the k-th held reservation (mod their number);
    ("force", s, d, n) and ("give", s, d, n) try to reserve / release at a fixed place, which
    must fail exactly when the grid says so; ("try", s, d, n) does so with :meth:`reserve_at`,
    which says whether it did."""
    capacity = draw(st.integers(1, 8))
    ops: list[tuple] = []
    for _ in range(draw(st.integers(1, 40))):
        kind = draw(st.sampled_from(["place", "place", "fit", "release", "force", "give", "try"]))
        if kind in ("place", "fit"):
            n = draw(st.integers(1, capacity + 1))  # capacity + 1 never fits
            ops.append((kind, n, draw(st.integers(1, 12)), draw(st.integers(0, H + 3))))
            if kind == "fit":
                ops[-1] += (draw(st.sampled_from([math.inf, *range(H - 10, H + 1)])),)
        elif kind == "release":
            ops.append((kind, draw(st.integers(0, 1000))))
        else:
            d = draw(st.integers(1, 12))
            s = draw(st.integers(0, H - d))
            ops.append((kind, s, d, draw(st.integers(1, capacity))))
    return capacity, ops


@settings(max_examples=200, deadline=None)
@given(scenarios())
def test_profile_matches_brute_force_grid(scenario: tuple[int, list[tuple]]) -> None:
    capacity, ops = scenario
    profile = CapacityProfile(capacity)
    ref = [capacity] * (H + 1)
    held: list[tuple[int, int, int]] = []  # (start, duration, processors)

    def take(s: int, d: int, n: int) -> None:
        for x in range(s, s + d):
            ref[x] -= n

    for op in ops:
        if op[0] == "place":
            _, n, d, after = op
            expected = brute_earliest(ref, n, d, after)
            start = profile.earliest_start(n, float(d), float(after))
            assert start == expected, (op, profile)
            if math.isinf(start) or start + d > H:
                continue  # keep every reservation inside the grid
            profile.reserve(start, float(d), n)
            take(int(start), d, n)
            held.append((int(start), d, n))
        elif op[0] == "fit":
            _, n, d, after, latest = op
            expected = brute_earliest(ref, n, d, after)
            if expected + d <= H:  # keep every reservation inside the grid
                before = profile.steps()
                assert profile.reserve_earliest(n, float(d), float(after), latest) == expected
                if expected + d <= latest:
                    take(int(expected), d, n)
                    held.append((int(expected), d, n))
                else:
                    assert profile.steps() == before
        elif op[0] == "release":
            if held:
                s, d, n = held.pop(op[1] % len(held))
                profile.release(float(s), float(d), n)
                take(s, d, -n)
        elif op[0] == "try":
            _, s, d, n = op
            before = profile.steps()
            fits = min(ref[s : s + d]) >= n
            assert profile.reserve_at(float(s), float(d), n) == fits, (op, before)
            if fits:
                take(s, d, n)
                held.append((s, d, n))
            else:
                assert profile.steps() == before
        elif op[0] == "force":
            _, s, d, n = op
            if min(ref[s : s + d]) >= n:
                profile.reserve(float(s), float(d), n)
                take(s, d, n)
                held.append((s, d, n))
            else:
                before = profile.steps()
                with pytest.raises(CapacityError):
                    profile.reserve(float(s), float(d), n)
                assert profile.steps() == before
        else:  # "give": release what was never reserved, then take it back
            _, s, d, n = op
            if max(ref[s : s + d]) + n <= capacity:
                profile.release(float(s), float(d), n)
                assert profile.min_free(float(s), float(s + d)) == min(ref[s : s + d]) + n
                profile.reserve(float(s), float(d), n)
            else:
                before = profile.steps()
                with pytest.raises(CapacityError):
                    profile.release(float(s), float(d), n)
                assert profile.steps() == before

        for t in range(H + 1):
            assert profile.free_at(t + 0.5) == ref[t], (t, profile)
            assert 0 <= ref[t] <= capacity
        assert profile.free_at(H + 100.5) == ref[H]
        assert all(0 <= f <= capacity for _, f in profile.steps())
        assert_merged(profile)
        for a, b in ((0, H + 5), (3, 9), (17, 18), (H - 2, H + 2)):
            assert profile.min_free(float(a), float(b)) == brute_min_free(ref, a, b)

    # Releasing everything still held brings back the single full step.
    for s, d, n in held:
        profile.release(float(s), float(d), n)
    assert profile.steps() == [(0.0, capacity)]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 4), st.integers(1, 6), st.integers(0, 20)), min_size=1, max_size=15
    ),
    st.integers(0, 30),
)
def test_trim_keeps_the_profile_from_now_on(jobs: list[tuple[int, int, int]], now: int) -> None:
    profile = CapacityProfile(4)
    for n, d, after in jobs:
        start = profile.earliest_start(n, float(d), float(after))
        profile.reserve(start, float(d), n)
    before = [profile.free_at(t + 0.5) for t in range(40)]
    profile.trim(float(now))
    assert profile.origin == now
    assert [profile.free_at(t + 0.5) for t in range(now, 40)] == before[now:]
    assert_merged(profile)


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
