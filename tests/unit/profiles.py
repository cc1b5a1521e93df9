"""Hand-made capacity profiles shared by the CapacityProfile tests."""

from __future__ import annotations

from market.core.capacity import CapacityProfile


def gap_profile() -> CapacityProfile:
    """4 processors; busy until 1, a 2-hour gap [1, 3), busy until 6, then free forever."""
    return CapacityProfile.from_steps(4, [0.0, 1.0, 3.0, 6.0], [0, 4, 0, 4])
