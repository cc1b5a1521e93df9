"""Scenarios for the environment tests: the profit paper's default, small, and as a market of
two competing providers."""

from __future__ import annotations

import pytest

from market.inputs.scenario import Scenario, load, validate
from tests.conftest import DEFAULT_SCENARIO


def default(jobs: int | None = None) -> Scenario:
    """The default scenario without its variants (``jobs`` jobs if given)."""
    scenario = load(DEFAULT_SCENARIO).model_copy(update={"variants": {}})
    if jobs is not None:
        scenario = scenario.with_overrides({"clients.0.workload.jobs": jobs})
    return scenario


def two_providers(jobs: int = 40, offer_rule: str = "best_quote", shared: bool = False) -> Scenario:
    """Two FirstProfit + PositiveOpportunity providers competing for one client's jobs, each
    renting its own 6-processor pool at a different price (or one 10-processor pool,
    ``shared``)."""
    data = default(jobs).model_dump(mode="python")
    data["resource_providers"] = (
        [{"name": "rp", "capacity": 10, "price": 3.0}]
        if shared
        else [
            {"name": "rp_a", "capacity": 6, "price": 3.0},
            {"name": "rp_b", "capacity": 6, "price": 2.0},
        ]
    )
    sp = data["service_providers"][0]
    data["service_providers"] = [
        {**sp, "name": "sp_a", "resource_provider": "rp" if shared else "rp_a"},
        {**sp, "name": "sp_b", "resource_provider": "rp" if shared else "rp_b"},
    ]
    data["clients"][0]["offer_rule"] = offer_rule
    data["name"] = "two-providers"
    return validate(data, "two-providers")


@pytest.fixture
def small() -> Scenario:
    return default(jobs=30)
