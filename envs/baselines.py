"""Baseline agents for the admission environments, and a loop that runs one episode.

An agent is a callable ``agent(obs, info) -> action`` for Admission-v0 (the mask is
``info["action_mask"]``); :func:`market_actions` applies one to every agent of Market-v0 (whose
mask is ``obs[agent]["action_mask"]["admit"]``). The heuristics are the profit paper's reference
points (Popovici & Wilkes SC'05 §3.4):

- :class:`PositiveOpportunityAgent`: the action PositiveOpportunity takes (needs ``hint=True``);
  it reproduces the ``positive_opportunity`` run exactly (tests/envs/test_faithfulness.py);
- :class:`AcceptAllAgent`: admit on the scheduler's shape whenever the job fits the pool, as the
  ``accept_all`` admission does ("simply accepting all jobs did poorly under overload");
- :class:`RandomAgent`: any allowed action, uniformly (from its own seeded generator).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

Agent = Callable[[Mapping[str, Any], Mapping[str, Any]], int]


def _mask(obs: Mapping[str, Any], info: Mapping[str, Any]) -> np.ndarray:
    if "action_mask" in info:
        return np.asarray(info["action_mask"])
    return np.asarray(obs["action_mask"]["admit"])  # Market-v0's convention


class PositiveOpportunityAgent:
    """Takes PositiveOpportunity's action, ``info["positive_opportunity"]`` (``hint=True``)."""

    def __call__(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        if "positive_opportunity" not in info:
            raise ValueError("PositiveOpportunityAgent needs the environment's hint=True")
        return int(info["positive_opportunity"])


class AcceptAllAgent:
    """Admits every job on the scheduler's shape (the last action) when the mask allows it."""

    def __call__(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        mask = _mask(obs, info)
        return len(mask) - 1 if mask[-1] else 0


class RejectAllAgent:
    """Rejects every job (a provider that earns nothing and pays nothing)."""

    def __call__(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        return 0


class RandomAgent:
    """Any allowed action, uniformly at random, from its own generator seeded by ``seed``."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        return int(self.rng.choice(np.flatnonzero(_mask(obs, info))))


def run_episode(env, agent: Agent, seed: int) -> tuple[float, int]:
    """Run one episode of an Admission-v0 ``env`` on ``seed`` with ``agent``: its return (the
    provider's profit) and the number of steps (jobs offered)."""
    obs, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent(obs, info))
        total += reward
        steps += 1
        done = terminated or truncated
    return total, steps


def market_actions(
    agents: Mapping[str, Agent], obs: Mapping[str, Any], infos: Mapping[str, Any]
) -> dict[str, dict[str, int]]:
    """Market-v0 actions: each agent's ``{"admit": action}`` from its own baseline."""
    return {name: {"admit": agent(obs[name], infos[name])} for name, agent in agents.items()}
