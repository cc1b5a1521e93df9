"""Shared fixtures: small hand-made jobs and contexts for policy tests, and scenario helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.policies import PlanContext
from market.capacity import CapacityProfile
from market.jobs import Job
from market.scenario import Scenario, load
from market.utility import UtilityFunction

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SCENARIO = ROOT / "scenarios" / "profit" / "default.yaml"


def make_job(
    id: int,
    work: float,
    value: float,
    decay: float = 0.0,
    *,
    arrival: float = 0.0,
    shapes: tuple[int, ...] = (1,),
    serial_fraction: float = 0.0,
    bound: float | None = None,
) -> Job:
    """A job whose value decays from its arrival at ``decay`` per hour down to ``bound``
    (default: minus the value), as in the profit paper."""
    utility = UtilityFunction.linear_decay(
        value, arrival, decay, -value if bound is None else bound
    )
    return Job(id, arrival, work, utility, serial_fraction=serial_fraction, shapes=shapes)


def make_ctx(capacity: int, price: float, now: float = 0.0) -> PlanContext:
    """An empty pool of ``capacity`` processors at ``price`` per processor-hour."""
    return PlanContext(now, CapacityProfile(capacity, origin=now), price)


@pytest.fixture
def default_scenario() -> Scenario:
    """The profit paper's default scenario file, without its variants."""
    return load(DEFAULT_SCENARIO).model_copy(update={"variants": {}})
