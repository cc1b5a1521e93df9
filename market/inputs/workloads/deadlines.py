"""Deadlines for trace jobs, which carry none (Islam et al., QoPS, OSU-CISRC-4/03-TR21 §4.1-4.2;
Islam et al., VQoPS/DVQoPS, OSU-CISRC-3/07-TR17 §3).

- :func:`easy_response_times`: QoPS §4.1 sets deadlines from "the completion time of the jobs
  with the EASY back-fill schedule": the market's EASY, replayed without the market
  (:mod:`agents.replay`).
- :func:`stringency_deadlines` (QoPS §4.1): ``deadline = arrival + max(runtime, (1 - s) x EASY
  response time)``; ``s = 0`` gives the EASY completion times, larger ``s`` tighter deadlines.
- :func:`factor_deadlines` (VQoPS §3): ``deadline = arrival + k x estimate`` (k = 5 there).
- :func:`relaxed_deadlines` (QoPS §4.2): the artificial deadline of a job whose user set none,
  ``arrival + max(24 h, R x runtime)`` with the relaxation factor R (2, 5 or 10 in §5.3).

All times are in one unit (the workloads use hours).
"""

from __future__ import annotations

import numpy as np

from agents.policies.backfill import EASY
from agents.replay import replay_starts
from market.core.jobs import Job
from market.core.utility import UtilityFunction


def easy_response_times(
    arrival: np.ndarray,
    processors: np.ndarray,
    runtime: np.ndarray,
    estimate: np.ndarray,
    capacity: int,
    ticks_per_hour: float | None = None,
) -> np.ndarray:
    """Each job's response time (completion minus arrival) under EASY backfilling on a fixed
    pool of ``capacity`` processors (times in hours; rigid jobs; ``estimate`` is what EASY plans
    with): the market's own EASY (:class:`agents.policies.backfill.EASY`) replayed by
    :func:`agents.replay.replay_starts`, on the ``ticks_per_hour`` grid if given."""
    zero = UtilityFunction.constant(0.0)
    jobs = [
        Job.rigid(k, a, n * r, zero, n, n * e)
        for k, (a, n, r, e) in enumerate(
            zip(
                np.asarray(arrival, dtype=np.float64).tolist(),
                np.asarray(processors, dtype=np.int64).tolist(),
                np.asarray(runtime, dtype=np.float64).tolist(),
                np.asarray(estimate, dtype=np.float64).tolist(),
                strict=True,
            )
        )
    ]
    if jobs and max(job.max_shape for job in jobs) > capacity:
        raise ValueError(
            f"a job needs {max(j.max_shape for j in jobs)} processors; the pool has {capacity}"
        )
    start = np.array(replay_starts(jobs, capacity, EASY(), ticks_per_hour=ticks_per_hour))
    return start + np.asarray(runtime, dtype=np.float64) - np.asarray(arrival, dtype=np.float64)


def stringency_deadlines(
    arrival: np.ndarray, runtime: np.ndarray, response: np.ndarray, stringency: float
) -> np.ndarray:
    """QoPS §4.1: ``arrival + max(runtime, (1 - stringency) x response)``."""
    if not 0.0 <= stringency <= 1.0:
        raise ValueError(f"stringency must lie in [0, 1], got {stringency}")
    return np.asarray(arrival) + np.maximum(runtime, (1.0 - stringency) * np.asarray(response))


def factor_deadlines(arrival: np.ndarray, estimate: np.ndarray, factor: float) -> np.ndarray:
    """VQoPS §3: ``arrival + factor x estimate``."""
    return np.asarray(arrival) + factor * np.asarray(estimate)


def relaxed_deadlines(
    arrival: np.ndarray, runtime: np.ndarray, relaxation: float, floor: float = 24.0
) -> np.ndarray:
    """QoPS §4.2, for jobs without a user deadline: ``arrival + max(floor, R x runtime)``
    (``floor`` = 24 hours)."""
    return np.asarray(arrival) + np.maximum(floor, relaxation * np.asarray(runtime))


def urgency_factors(
    rng: np.random.Generator,
    n: int,
    urgent_share: float,
    urgent_factor: float,
    ratio: float,
    sd_ratio: float,
) -> np.ndarray:
    """Yeo & Buyya (ICPP'06) §4: deadline ÷ runtime per job. A share ``urgent_share`` (20 %) of
    the jobs is of the high-urgency class with mean ``urgent_factor`` (4); the others have
    ``ratio`` (the "deadline high:low ratio", 4) times that mean; factors are normal within each
    class (sd ``sd_ratio`` x the class mean: the paper gives none, 0.2 is our choice) and at
    least 1, so that a job can always meet its deadline ("always assigned a higher factored
    value based on the real runtime")."""
    urgent = rng.random(n) < urgent_share
    mean = np.where(urgent, urgent_factor, urgent_factor * ratio)
    return np.maximum(rng.normal(mean, sd_ratio * mean), 1.0)
