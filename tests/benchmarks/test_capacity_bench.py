"""Speed of the planning hot path: list scheduling on a CapacityProfile, and copying one.

Skipped by default (pyproject addopts has --benchmark-skip); run with
``pytest tests/benchmarks --benchmark-enable --benchmark-only`` (or ``make bench-suite``).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from market.core.capacity import CapacityProfile

CAPACITY = 128
N_JOBS = 2000


def random_rigid_jobs(seed: int = 42) -> list[tuple[float, int, float]]:
    """(arrival, processors, runtime) for N_JOBS rigid jobs: Poisson arrivals (mean gap 0.05 h),
    sizes 2^k or 2^(k+1) for k in 0..7, capped at 128, runtimes exponential with mean 2 hours."""
    rng = np.random.default_rng(seed)
    arrivals = np.cumsum(rng.exponential(0.05, N_JOBS))
    sizes = np.minimum(2 ** rng.integers(0, 8, N_JOBS) * rng.integers(1, 3, N_JOBS), CAPACITY)
    runtimes = rng.exponential(2.0, N_JOBS) + 0.01
    return [(float(a), int(n), float(r)) for a, n, r in zip(arrivals, sizes, runtimes, strict=True)]


def place_all(jobs: list[tuple[float, int, float]]) -> tuple[CapacityProfile, list[float]]:
    """Place every job at its earliest start after its arrival, as a plan does."""
    profile = CapacityProfile(CAPACITY)
    starts = []
    for arrival, processors, runtime in jobs:
        start = profile.earliest_start(processors, runtime, arrival)
        profile.reserve(start, runtime, processors)
        starts.append(start)
    return profile, starts


@pytest.mark.benchmark
def test_place_2000_rigid_jobs(benchmark) -> None:
    jobs = random_rigid_jobs()
    profile, starts = benchmark(place_all, jobs)
    steps = profile.steps()
    assert 1 < len(steps) <= 2 * N_JOBS + 1
    assert all(0 <= f <= CAPACITY for _, f in steps)
    assert all(t1 > t0 for (t0, _), (t1, _) in pairwise(steps))
    assert steps[-1][1] == CAPACITY  # everything ends eventually
    assert all(s >= a for s, (a, _, _) in zip(starts, jobs, strict=True))
    # Releasing every reservation restores the empty pool.
    for start, (_, processors, runtime) in zip(starts, jobs, strict=True):
        profile.release(start, runtime, processors)
    assert profile.steps() == [(0.0, CAPACITY)]


def profile_with_breakpoints(n: int) -> CapacityProfile:
    rng = np.random.default_rng(7)
    times = np.cumsum(rng.uniform(0.01, 1.0, n)).tolist()
    free = rng.integers(0, CAPACITY + 1, n).tolist()
    return CapacityProfile.from_steps(CAPACITY, times, free)


@pytest.mark.benchmark
def test_copy_500_breakpoint_profile(benchmark) -> None:
    base = profile_with_breakpoints(500)
    clone = benchmark(base.copy)
    assert len(base.steps()) == 500
    assert clone.steps() == base.steps()
    clone.trim(clone.steps()[250][0])
    assert len(base.steps()) == 500  # the copy is independent
