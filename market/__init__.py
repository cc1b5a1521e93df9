"""gridmarket: an agent-based simulation of compute markets on Mesa.

Model scripts start here::

    from market import GridMarket, load_scenario
    result = GridMarket(load_scenario("scenarios/profit/default.yaml"), seed=7).run()
    print(result.summary)

The names below are imported lazily, so that the domain modules (``market.jobs``,
``market.capacity``, ...) can be used by the policies without importing the Mesa model.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from market.model import GridMarket
    from market.result import RunResult
    from market.scenario import Scenario, ScenarioError
    from market.scenario import load as load_scenario

_EXPORTS = {
    "GridMarket": ("market.model", "GridMarket"),
    "RunResult": ("market.result", "RunResult"),
    "Scenario": ("market.scenario", "Scenario"),
    "ScenarioError": ("market.scenario", "ScenarioError"),
    "load_scenario": ("market.scenario", "load"),
}

__all__ = ["GridMarket", "RunResult", "Scenario", "ScenarioError", "load_scenario"]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'market' has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    return getattr(import_module(module), attribute)
