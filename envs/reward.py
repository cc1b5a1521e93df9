"""What an admission agent is rewarded for: the provider's money, or its deadlines kept.

- ``profit`` (Popovici & Wilkes SC'05 §3): the change in the provider's realised profit
  (payments received less penalties and rent paid, from the ledger) since the last step; an
  episode's return is the provider's profit in the run.
- ``qos`` (the QoPS family's goal: admit as much work as can be finished by its deadlines): for
  each job of the provider that completed since the last step, the work it ran (processors x
  hours) if it met its deadline (or had none), minus that work if it missed it; a rejected job
  counts 0. An episode's return is the work finished on time less the work finished late.
- the default (``None``): ``profit`` where money can move, ``qos`` where none can (every pool
  free and no job worth anything, as in the QoPS and Libra scenarios: profit would be 0 at every
  step). Asking for ``profit`` there warns once.
"""

from __future__ import annotations

from gymnasium import logger

from agents.service_provider import JobRecord, ServiceProviderAgent
from market.inputs.scenario import Scenario
from market.results.fulfilment import MET

KINDS = ("profit", "qos")


def money_moves(scenario: Scenario) -> bool:
    """Whether any money can change hands: a pool that charges rent, or jobs worth something."""
    if any(rp.price > 0 or rp.price_changes for rp in scenario.resource_providers):
        return True
    for client in scenario.clients:
        workload = client.workload
        if workload.kind != "swf" or workload.price_per_processor_hour > 0:
            return True  # the profit paper's and VQoPS's jobs carry a value
    return False


def reward_kind(scenario: Scenario, kind: str | None) -> str:
    """The reward ``kind`` asked for, or the default for ``scenario`` (see the module); a
    ``ValueError`` naming the kinds for another."""
    if kind is None:
        return "profit" if money_moves(scenario) else "qos"
    if kind not in KINDS:
        raise ValueError(f"reward: unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
    if kind == "profit" and not money_moves(scenario):
        logger.warn(
            f"{scenario.name}: no money moves in this market (free pools, jobs without value): "
            "reward='profit' is 0 at every step; reward='qos' rewards deadlines kept"
        )
    return kind


class Reward:
    """One provider's reward, step by step (``kind``: see the module)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._profit = 0.0
        self._pending: list[JobRecord] = []  # committed jobs not yet completed (``qos``)

    def reset(self) -> None:
        self._profit, self._pending = 0.0, []

    def step(self, provider: ServiceProviderAgent, decided: int | None) -> float:
        """The reward since the last step; ``decided``: the id of the job the agent just
        decided for ``provider`` (None if it decided none)."""
        if self.kind == "profit":
            profit = provider.profit
            reward, self._profit = profit - self._profit, profit
            return reward
        if decided is not None:
            record = provider.records.get(decided)
            if record is not None and record.committed:
                self._pending.append(record)
        reward, waiting = 0.0, []
        for record in self._pending:
            if record.end is None:
                waiting.append(record)
                continue
            work = record.processors * (record.end - record.start)
            deadline = record.job.deadline
            reward += work if deadline is None or record.end <= deadline + MET else -work
        self._pending = waiting
        return reward
