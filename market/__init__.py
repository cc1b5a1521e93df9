"""gridmarket: an agent-based simulation of compute markets on Mesa.

Model scripts start here::

    from market import GridMarket, load_scenario
    result = GridMarket(load_scenario("scenarios/profit/default.yaml"), seed=7).run()
    print(result.summary)
"""

from market.model import GridMarket
from market.result import RunResult
from market.scenario import Scenario, ScenarioError
from market.scenario import load as load_scenario

__all__ = ["GridMarket", "RunResult", "Scenario", "ScenarioError", "load_scenario"]
