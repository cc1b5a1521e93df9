"""The ledger: every payment in the market, and every agent's balance.

Money only moves between agents, so the balances always sum to zero (money is conserved). The
flows are those of Popovici & Wilkes SC'05 §3: a client pays a service provider the value of its
job's utility function at completion (a negative value is a penalty the service provider pays the
client), and a service provider pays a resource provider rent for the processors it held.

A transfer of nothing (the rent of a free pool, the payment for a job worth nothing, as in a
plain trace replay) moves no money and is not recorded: the per-job table still shows it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from enum import StrEnum
from typing import NamedTuple

import pandas as pd


class Kind(StrEnum):
    """What a ledger entry pays for."""

    PAYMENT = "payment"  # client -> service provider, utility at completion (>= 0)
    PENALTY = "penalty"  # service provider -> client, a negative utility at completion
    RENT = "rent"  # service provider -> resource provider, processor-hours held


class Entry(NamedTuple):
    """One transfer of ``amount`` (>= 0) from ``payer`` to ``payee`` at ``time``."""

    time: float
    payer: str
    payee: str
    amount: float
    kind: Kind
    job: int | None


class Ledger:
    """An append-only list of transfers with running balances and per-kind totals."""

    def __init__(self) -> None:
        self._entries: list[Entry] = []
        self._balance: defaultdict[str, float] = defaultdict(float)
        self._received: defaultdict[tuple[str, Kind], float] = defaultdict(float)
        self._paid: defaultdict[tuple[str, Kind], float] = defaultdict(float)

    def transfer(
        self, time: float, payer: str, payee: str, amount: float, kind: Kind, job: int | None
    ) -> Entry | None:
        """Record that ``payer`` pays ``payee`` ``amount`` (which must be >= 0); nothing is
        recorded (and None returned) when the amount is 0."""
        if amount == 0:  # (a free pool's rent, a job worth nothing: most of a trace replay)
            return None
        if not (amount >= 0 and math.isfinite(amount)):  # also rejects NaN
            raise ValueError(f"a transfer must be finite and >= 0, got {amount} ({kind}, {job=})")
        entry = Entry(time, payer, payee, float(amount), kind, job)
        self._entries.append(entry)
        self._balance[payer] -= amount
        self._balance[payee] += amount
        self._paid[payer, kind] += amount
        self._received[payee, kind] += amount
        return entry

    def settle(
        self, time: float, client: str, provider: str, value: float, job: int
    ) -> Entry | None:
        """Settle a completed job worth ``value``: a payment, or a penalty when negative."""
        if value == 0:
            return None
        if value >= 0:
            return self.transfer(time, client, provider, value, Kind.PAYMENT, job)
        return self.transfer(time, provider, client, -value, Kind.PENALTY, job)

    # -- queries -------------------------------------------------------------------------------
    def balance(self, agent: str) -> float:
        """Money in minus money out for ``agent``."""
        return self._balance.get(agent, 0.0)

    def balances(self) -> dict[str, float]:
        """Every agent's balance."""
        return dict(self._balance)

    def received(self, agent: str, kind: Kind) -> float:
        """Total ``agent`` received as ``kind``."""
        return self._received.get((agent, kind), 0.0)

    def paid(self, agent: str, kind: Kind) -> float:
        """Total ``agent`` paid as ``kind``."""
        return self._paid.get((agent, kind), 0.0)

    @property
    def entries(self) -> list[Entry]:
        """All transfers, in the order they happened."""
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def to_frame(self) -> pd.DataFrame:
        """The entries as a DataFrame (one row per transfer)."""
        return pd.DataFrame(self._entries, columns=list(Entry._fields)).astype({"kind": str})
