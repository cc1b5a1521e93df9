"""CapacityProfile against a brute-force grid: random reserve/release/trim sequences (hypothesis)
must read the same free counts, earliest starts and minima as a slot-by-slot reference."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from market.core.capacity import CapacityError, CapacityProfile


def assert_merged(profile: CapacityProfile) -> None:
    """Breakpoints strictly increase and no two neighbouring steps have the same value."""
    steps = profile.steps()
    for (t0, f0), (t1, f1) in pairwise(steps):
        assert t1 > t0
        assert f1 != f0, f"unmerged neighbours in {profile!r}"


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
