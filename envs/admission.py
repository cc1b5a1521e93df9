"""``gridmarket/Admission-v0``: one service provider's admission decisions as a Gymnasium env.

Each step is one job offered to the provider (Popovici & Wilkes SC'05 §3.4): the observation
describes the job and the provider (:mod:`envs.observation`), the action rejects it or admits it
on a shape, and the model (the same :class:`~market.sim.model.GridMarket`, the same policies, driven
by :mod:`envs.driver`) runs on to the next offer. The reward (:mod:`envs.reward`) is the change in
the provider's realised profit since the last step, so an episode's return is the run's profit;
where no money moves (QoPS, Libra) it is the work finished by its deadline less the work finished
late. The episode is one run of the scenario and ends when every job is done (``terminated``;
never truncated).

``reset(seed=s)`` runs the scenario on seed ``s``, the job stream of ``gridmarket run --seed s``;
``reset()`` without a seed draws the next run's seed from the environment's ``np_random`` (so a
vector env seeded once gives every sub-env its own sequence of runs). The action mask is
``info["action_mask"]`` and :meth:`AdmissionEnv.action_masks` (sb3-contrib's MaskablePPO).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from envs.actions import check_action, decide
from envs.driver import MarketDriver, Offer, planning_providers, pool_capacities
from envs.observation import Observer, action_mask, action_space
from envs.reward import Reward, reward_kind
from market.inputs.limits import MAX_SEED
from market.inputs.scenario import Scenario, ScenarioError, load
from market.results.result import RunResult

DEFAULT_SCENARIO = "profit/default"


def load_market(scenario: str | Path | Scenario, variant: str | None = None) -> Scenario:
    """A scenario (a path, a name, or a :class:`Scenario`), or one of its variants by label
    (default: the scenario without its variants); a one-line :class:`ScenarioError`."""
    spec = scenario if isinstance(scenario, Scenario) else load(scenario)
    source = str(scenario) if not isinstance(scenario, Scenario) else spec.name
    if variant is None:
        return spec.model_copy(update={"variants": {}})
    variants = dict(spec.expand(source))
    if variant not in variants:
        known = ", ".join(variants)
        raise ScenarioError(f"{source}: variant: no variant {variant!r} (variants: {known})")
    return variants[variant]


class AdmissionEnv(gym.Env):
    """One provider's admission control as a Gymnasium environment.

    Args:
        scenario: a scenario file (path or name, e.g. ``"profit/default"``) or a
            :class:`~market.inputs.scenario.Scenario`.
        provider: the service provider whose admission the agent decides (default: the first
            that plans); the others keep their scenario's policies.
        variant: run this variant of the scenario (default: the scenario without variants).
        hint: add PositiveOpportunity's per-shape computation to the observation and its action
            to ``info["positive_opportunity"]`` (:mod:`envs.hint`; costs its plans).
        horizon, points: the capacity outlook ``obs["free"]`` (see :class:`Observer`).
        fast: the model's speed switch (:mod:`market.sim.clock`); it changes no decision.
        reward: ``"profit"`` or ``"qos"`` (:mod:`envs.reward`); default: profit where money
            moves, else qos (``self.reward_kind`` says which).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(
        self,
        scenario: str | Path | Scenario = DEFAULT_SCENARIO,
        provider: str | None = None,
        variant: str | None = None,
        hint: bool = False,
        horizon: float = 24.0,
        points: int = 12,
        fast: bool = True,
        reward: str | None = None,
    ) -> None:
        spec = load_market(scenario, variant)
        self.provider_name = provider if provider is not None else planning_providers(spec)[0]
        self.driver = MarketDriver(spec, [self.provider_name], decide, fast)
        self.reward_kind = reward_kind(spec, reward)
        self._reward = Reward(self.reward_kind)
        pool = pool_capacities(spec)[self.provider_name]
        self.observer = Observer(pool, hint, horizon, points)
        self.observation_space = self.observer.space()
        self.action_space = action_space(pool)
        self.capacity = pool
        self._mask = action_mask(None, None, pool)
        self._job = None

    # -- the Gymnasium API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None and not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed: {seed} is out of range (from 0 to {MAX_SEED})")
        super().reset(seed=seed)
        run_seed = seed if seed is not None else int(self.np_random.integers(MAX_SEED))
        offer = self.driver.start(run_seed)
        self._reward.reset()
        obs, info = self._observe(offer)
        info["seed"] = run_seed
        return obs, info

    def step(self, action):
        if self.driver.model is None:
            raise RuntimeError("call reset() before step()")
        if self.driver.finished:
            raise RuntimeError("the episode has ended: call reset()")
        a = check_action(action, self._mask, self._job, self.provider_name)
        decided = self._job.id
        offer = self.driver.resume({self.provider_name: a})
        obs, info = self._observe(offer)
        reward = self._reward.step(self.provider, decided)
        return obs, reward, offer is None, False, info

    def action_masks(self) -> np.ndarray:
        """The current action mask as booleans (for sb3-contrib's MaskablePPO)."""
        return self._mask.astype(bool)

    def close(self) -> None:
        self.driver.stop()

    # -- what the agent sees -------------------------------------------------------------------
    @property
    def provider(self):
        """The controlled service provider agent of the current run."""
        return self.driver.model.service_providers[self.provider_name]

    @property
    def model(self):
        """The current run's :class:`~market.sim.model.GridMarket`."""
        return self.driver.model

    def result(self) -> RunResult:
        """The current run's result (its summary, per-job table and ledger), as ``run()``'s."""
        return self.driver.model.result()

    def _observe(self, offer: Offer | None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        model = self.driver.model
        provider = self.provider
        job = offer.job if offer is not None else None
        obs, po_action = self.observer.observe(provider, job, model.time)
        self._job = job
        self._mask = action_mask(job, provider.planner, self.capacity)
        self.action_space.allowed = self._mask
        info: dict[str, Any] = {
            "action_mask": self._mask,
            "job": job.id if job is not None else -1,
            "time": model.time,
            "profit": provider.profit,
        }
        if self.observer.hint:
            info["positive_opportunity"] = po_action if po_action is not None else 0
        return obs, info
