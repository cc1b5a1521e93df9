"""The small swept market the sweep tests share: the default scenario with few jobs, two
policies as variants and a sweep over the clients' mean interarrival time."""

from __future__ import annotations

from pathlib import Path

import yaml

from market.inputs.scenario import Scenario, load
from tests.conftest import DEFAULT_SCENARIO

LOAD = "clients.0.workload.mean_interarrival"
PRICE = "resource_providers.0.price"
POLICIES = {
    "FirstProfit + PositiveOpportunity": {},
    "FirstProfit + accept all": {"service_providers.0.admission": "accept_all"},
}
VARIANTS = list(POLICIES)


def small(jobs: int = 20, **sweep) -> Scenario:
    """The default market with few jobs, two policies and the given sweep."""
    spec = {"parameters": {LOAD: [0.1, 0.3]}, "replications": 2, **sweep}
    return load(DEFAULT_SCENARIO).with_overrides(
        {"clients.0.workload.jobs": jobs, "variants": POLICIES, "sweep": spec}
    )


def write(scenario, path: Path) -> Path:
    path.write_text(yaml.safe_dump(scenario.model_dump(mode="json"), sort_keys=False))
    return path
