"""VARQ's planner (agents/policies/varq.py) on a hand-made QBETS stub and on QBETS itself."""

from __future__ import annotations

import numpy as np
import pytest

from agents.policies import varq
from market.core.qbets import QBETS


class Stub:
    """A QBETS stand-in with two classes by padded wall time: <= 2 h waits little (P(start
    within w) = w / 2 h), longer waits long (w / 10 h). So bound(p) = p x 2 h or p x 10 h."""

    @staticmethod
    def scale(walltime: float) -> float:
        return 2.0 if walltime <= 2.0 + 1e-9 else 10.0

    def probability(self, nodes, walltime, wait):
        return min(1.0, wait / self.scale(walltime))

    def bounds(self, nodes, walltimes, quantile):
        return np.array([quantile * self.scale(w) for w in walltimes])


def test_latest_qualifying_point_and_padded_walltime():
    # 4 nodes x 1 h at deadline 6 h, asked at 0, trajectory every 0.5 h: t = 0, 0.5, ..., 5.5.
    # Submitting at t pads the wall time to 1 + (6 - t): over 2 h (the slow class) for t < 5.
    # t = 5.5: wait 0.5, fast class, P = 0.25; t = 5.0: wait 1, padded 2 h, fast, P = 0.5.
    plan = varq.plan(Stub(), 4, 1.0, 0.0, 6.0, 0.5, step=0.5)
    assert plan.submit_at == 5.0
    assert plan.walltime == 2.0  # 1 h + (6 - 5)
    assert plan.probability == 0.5
    assert plan.overhead == 4.0  # 4 nodes x 1 h of waiting, worst case
    # At p = 0.6 the fast class never qualifies (P <= 0.5); the slow class needs a wait of
    # 6 h (0.6 x 10): only t = 0, padded 7 h, worst-case overhead 4 x 6 = 24 node-hours.
    plan = varq.plan(Stub(), 4, 1.0, 0.0, 6.0, 0.6, step=0.5)
    assert (plan.submit_at, plan.walltime, plan.overhead) == (0.0, 7.0, 24.0)
    times, probs = varq.trajectory(Stub(), 4, 1.0, 0.0, 6.0, step=0.5)
    assert times.tolist() == [0.5 * i for i in range(12)]
    assert probs[10] == 0.5 and probs[0] == 0.6 and probs[9] == pytest.approx(0.15)


def test_no_reservation_possible():
    # p = 0.7: the fast class reaches 0.5 at most, the slow one 0.6 (a 6 h wait): none qualifies.
    assert varq.plan(Stub(), 4, 1.0, 0.0, 6.0, 0.7, step=0.5) is None


def test_the_plan_is_the_latest_trajectory_point_at_or_above_p_on_qbets():
    rng = np.random.default_rng(7)
    qbets = QBETS()
    for _ in range(3000):
        nodes, wall = int(rng.choice([1, 16, 64])), float(rng.choice([0.3, 2.0, 8.0]))
        qbets.observe(nodes, wall, float(rng.exponential(0.5 if wall < 1 else 3.0)))
    for nodes, wall, p in [(1, 0.5, 0.5), (16, 1.0, 0.75), (64, 3.0, 0.95), (1, 0.2, 0.9)]:
        plan = varq.plan(qbets, nodes, wall, 10.0, 16.0, p)
        times, probs = varq.trajectory(qbets, nodes, wall, 10.0, 16.0)
        ok = np.flatnonzero(probs >= p)
        if plan is None:
            assert len(ok) == 0
        else:
            assert plan.submit_at == times[ok[-1]] and plan.probability == probs[ok[-1]] >= p


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((4, 1.0, 6.0, 5.0, 0.5), "deadline"),  # deadline before now
        ((4, 1.0, 0.0, 6.0, 1.2), "probability"),
        ((0, 1.0, 0.0, 6.0, 0.5), "nodes"),
        ((4, 0.0, 0.0, 6.0, 0.5), "walltime"),
    ],
)
def test_bad_requests_name_the_field(args, field):
    nodes, wall, now, deadline, p = args
    with pytest.raises(varq.VarqError, match=f"^{field}: "):
        varq.plan(Stub(), nodes, wall, now, deadline, p)
