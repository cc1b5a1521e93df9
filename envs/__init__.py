"""Learning environments over the market model.

- ``gridmarket/Admission-v0`` (:class:`envs.admission.AdmissionEnv`, registered with Gymnasium
  when this package is imported): one service provider's admission decisions;
- :class:`envs.market.MarketEnv` (``Market-v0``, a PettingZoo ``ParallelEnv``): every service
  provider of a market is an agent deciding admission.

Both drive the same :class:`~market.sim.model.GridMarket` with the same policies (see
:mod:`envs.driver`); ``envs.baselines`` holds the heuristic and random agents. This package sits
above the model (beside the CLI and the dashboards): nothing in ``market`` or ``agents`` imports
it.
"""

from gymnasium.envs.registration import register, registry

from envs.admission import AdmissionEnv
from envs.market import MarketEnv, parallel_env

ADMISSION_ID = "gridmarket/Admission-v0"

if ADMISSION_ID not in registry:
    register(id=ADMISSION_ID, entry_point="envs.admission:AdmissionEnv")

__all__ = ["ADMISSION_ID", "AdmissionEnv", "MarketEnv", "parallel_env"]
