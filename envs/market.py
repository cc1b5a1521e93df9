"""``Market-v0``: the competing service providers of a market as a PettingZoo ``ParallelEnv``.

Every service provider that plans (not a deadline cluster) is an agent deciding admission
(Popovici & Wilkes SC'05 §3.4) for the jobs its clients offer it. One step is one job offered:
every agent observes (:mod:`envs.observation`, as ``{"observation": ..., "action_mask": ...}``);
those it is offered to (``observation["job"][0] == 1``) decide it, the others may only reject and
are ignored; the client's offer rule says whose action counts (:mod:`envs.driver`). Each agent's
reward is the change in its own realised profit (:mod:`envs.reward`); all terminate together
when every job is done. The action is a ``Dict``, ``{"admit": Discrete(C + 2)}``, so that a
``price`` entry can come later; a plain integer is taken as ``{"admit": it}``
(docs/papers/environments.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from envs.actions import InvalidAction, check_action, decide
from envs.admission import DEFAULT_SCENARIO, load_market
from envs.driver import MarketDriver, Offer, planning_providers, pool_capacities
from envs.observation import Observer, action_mask, action_space
from envs.reward import Reward, reward_kind
from market.inputs.limits import MAX_SEED
from market.inputs.scenario import Scenario
from market.results.result import RunResult


class MarketEnv(ParallelEnv):
    """Competing providers' admission as a PettingZoo parallel environment.

    Args:
        scenario: a scenario file (path or name) or a :class:`~market.inputs.scenario.Scenario`.
        providers: the service providers that are agents (default: every one that plans);
            the others keep their scenario's policies.
        variant, hint, horizon, points, fast, reward: as for
            :class:`envs.admission.AdmissionEnv`.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "gridmarket_market_v0",
        "render_modes": [],
        "is_parallelizable": True,
    }

    def __init__(
        self,
        scenario: str | Path | Scenario = DEFAULT_SCENARIO,
        providers: list[str] | None = None,
        variant: str | None = None,
        hint: bool = False,
        horizon: float = 24.0,
        points: int = 12,
        fast: bool = True,
        reward: str | None = None,
    ) -> None:
        spec = load_market(scenario, variant)
        names = list(providers) if providers is not None else planning_providers(spec)
        self.driver = MarketDriver(spec, names, decide, fast)
        self.reward_kind = reward_kind(spec, reward)
        self._rewards = {name: Reward(self.reward_kind) for name in names}
        self.possible_agents = names
        self.agents: list[str] = []
        pools = pool_capacities(spec)
        self.capacity = {name: pools[name] for name in names}
        self.observers = {a: Observer(self.capacity[a], hint, horizon, points) for a in names}
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": self.observers[a].space(),
                    "action_mask": spaces.Dict(
                        {"admit": spaces.Box(0, 1, (self.capacity[a] + 2,), np.int8)}
                    ),
                }
            )
            for a in names
        }
        self._action_spaces = {
            a: spaces.Dict({"admit": action_space(self.capacity[a])}) for a in names
        }
        self._masks: dict[str, np.ndarray] = {}
        self._jobs: dict[str, Any] = {}
        self._rng: np.random.Generator | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        """``{"observation": the fields of envs.observation, "action_mask": {"admit": mask}}``
        (the same object every time, as PettingZoo asks)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Dict:
        """``{"admit": Discrete(C + 2)}`` (a ``price`` entry will join it: see the module)."""
        return self._action_spaces[agent]

    # -- the PettingZoo API --------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            if not 0 <= seed <= MAX_SEED:
                raise ValueError(f"seed: {seed} is out of range (from 0 to {MAX_SEED})")
            self._rng = np.random.default_rng(seed)
        elif self._rng is None:
            self._rng = np.random.default_rng()
        run_seed = seed if seed is not None else int(self._rng.integers(MAX_SEED))
        offer = self.driver.start(run_seed)
        self.agents = list(self.possible_agents)
        for reward in self._rewards.values():
            reward.reset()
        obs, infos = self._observe(offer)
        for info in infos.values():
            info["seed"] = run_seed
        return obs, infos

    def step(self, actions: dict[str, Any]):
        if not self.agents:
            raise RuntimeError("the episode has ended: call reset()")
        offer = self.driver.offer
        chosen = {}
        for agent in self.agents:
            action = actions.get(agent, 0)
            if isinstance(action, dict):
                if "admit" not in action:
                    raise InvalidAction(f"{agent}: the action has no 'admit' entry")
                action = action["admit"]
            if agent not in actions and offer is not None and agent in offer.providers:
                raise InvalidAction(f"{agent}: no action for job {offer.job.id} offered to it")
            chosen[agent] = check_action(action, self._masks[agent], self._jobs[agent], agent)
        offered = offer.providers if offer is not None else ()
        decided = offer.job.id if offer is not None else None
        offer = self.driver.resume({a: chosen[a] for a in offered})
        obs, infos = self._observe(offer)
        providers = self.driver.model.service_providers
        rewards = {
            agent: self._rewards[agent].step(
                providers[agent], decided if agent in offered else None
            )
            for agent in self.agents
        }
        done = offer is None
        terminations = dict.fromkeys(self.agents, done)
        truncations = dict.fromkeys(self.agents, False)
        if done:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def close(self) -> None:
        self.driver.stop()

    def render(self) -> None:
        return None

    # -- what the agents see -------------------------------------------------------------------
    @property
    def model(self):
        """The current run's :class:`~market.sim.model.GridMarket`."""
        return self.driver.model

    def result(self) -> RunResult:
        """The current run's result (summary, per-job table, ledger)."""
        return self.driver.model.result()

    def _observe(self, offer: Offer | None):
        model = self.driver.model
        offered = offer.providers if offer is not None else ()
        obs, infos = {}, {}
        for agent in self.agents:
            provider = model.service_providers[agent]
            job = offer.job if agent in offered else None
            fields, po_action = self.observers[agent].observe(provider, job, model.time)
            mask = action_mask(job, provider.planner, self.capacity[agent])
            self._masks[agent], self._jobs[agent] = mask, job
            self._action_spaces[agent]["admit"].allowed = mask
            obs[agent] = {"observation": fields, "action_mask": {"admit": mask}}
            info = {"job": job.id if job is not None else -1, "time": model.time}
            info["profit"] = provider.profit
            if self.observers[agent].hint:
                info["positive_opportunity"] = po_action if po_action is not None else 0
            infos[agent] = info
        return obs, infos


def parallel_env(**kwargs: Any) -> MarketEnv:
    """``Market-v0`` (PettingZoo's constructor convention)."""
    return MarketEnv(**kwargs)
