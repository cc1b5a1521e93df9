"""gridmarket: an agent-based simulation of compute markets on Mesa.

Model scripts start here::

    from market import GridMarket, load_scenario
    result = GridMarket(load_scenario("scenarios/profit/default.yaml"), seed=7).run()
    print(result.summary)

The names below are imported lazily, so that the domain modules (``market.core.jobs``,
``market.core.capacity``, ...) can be used by the policies without importing the Mesa model.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from market.inputs.scenario import Scenario, ScenarioError
    from market.inputs.scenario import load as load_scenario
    from market.results.result import RunResult
    from market.sim.model import GridMarket

_EXPORTS = {
    "GridMarket": ("market.sim.model", "GridMarket"),
    "RunResult": ("market.results.result", "RunResult"),
    "Scenario": ("market.inputs.scenario", "Scenario"),
    "ScenarioError": ("market.inputs.scenario", "ScenarioError"),
    "load_scenario": ("market.inputs.scenario", "load"),
}

__all__ = ["GridMarket", "RunResult", "Scenario", "ScenarioError", "load_scenario"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'market' has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    return getattr(import_module(module), attribute)  # (lazy module: imports on first use)
