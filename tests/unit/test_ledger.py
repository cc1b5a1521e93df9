"""Ledger: transfers, settlement of completed jobs, balances and per-kind totals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from market.core.ledger import Entry, Kind, Ledger


def test_empty_ledger() -> None:
    ledger = Ledger()
    assert len(ledger) == 0
    assert ledger.entries == []
    assert ledger.balances() == {}
    assert ledger.balance("nobody") == 0.0
    assert ledger.received("nobody", Kind.PAYMENT) == 0.0
    assert ledger.paid("nobody", Kind.RENT) == 0.0
    assert ledger.balances() == {}  # querying an unknown agent does not create it


def test_transfer_records_entry_and_moves_money() -> None:
    ledger = Ledger()
    entry = ledger.transfer(1.5, "sp", "rp", 30.0, Kind.RENT, None)
    assert entry == Entry(1.5, "sp", "rp", 30.0, Kind.RENT, None)
    assert len(ledger) == 1
    assert ledger.entries == [entry]
    assert ledger.balance("sp") == -30.0
    assert ledger.balance("rp") == 30.0
    assert ledger.balances() == {"sp": -30.0, "rp": 30.0}
    assert ledger.paid("sp", Kind.RENT) == 30.0
    assert ledger.received("rp", Kind.RENT) == 30.0
    assert ledger.received("sp", Kind.RENT) == 0.0
    assert ledger.paid("rp", Kind.RENT) == 0.0


def test_transfers_accumulate() -> None:
    ledger = Ledger()
    ledger.transfer(0.0, "a", "b", 10.0, Kind.PAYMENT, 1)
    ledger.transfer(1.0, "b", "a", 4.0, Kind.PENALTY, 1)
    ledger.transfer(2.0, "b", "c", 3.0, Kind.RENT, None)
    ledger.transfer(3.0, "a", "b", 2.5, Kind.PAYMENT, 2)
    # a: -10 + 4 - 2.5 = -8.5; b: +10 - 4 - 3 + 2.5 = 5.5; c: +3
    assert ledger.balances() == {"a": -8.5, "b": 5.5, "c": 3.0}
    assert ledger.received("b", Kind.PAYMENT) == 12.5
    assert ledger.paid("a", Kind.PAYMENT) == 12.5
    assert ledger.paid("b", Kind.PENALTY) == 4.0
    assert ledger.received("a", Kind.PENALTY) == 4.0
    assert ledger.paid("b", Kind.RENT) == 3.0
    assert ledger.received("c", Kind.RENT) == 3.0
    assert [e.time for e in ledger.entries] == [0.0, 1.0, 2.0, 3.0]


def test_amount_is_stored_as_float() -> None:
    entry = Ledger().transfer(0.0, "a", "b", 3, Kind.RENT, None)
    assert isinstance(entry.amount, float)
    assert entry.amount == 3.0


def test_entries_is_a_copy() -> None:
    ledger = Ledger()
    ledger.transfer(0.0, "a", "b", 1.0, Kind.RENT, None)
    ledger.entries.clear()
    assert len(ledger) == 1
    assert len(ledger.entries) == 1


@pytest.mark.parametrize("amount", [-0.01, -48.0, math.nan, -math.inf, math.inf])
def test_negative_nan_or_infinite_amount_rejected(amount: float) -> None:
    ledger = Ledger()
    ledger.transfer(0.0, "a", "b", 5.0, Kind.RENT, None)
    with pytest.raises(ValueError, match="must be finite and >= 0"):
        ledger.transfer(1.0, "a", "b", amount, Kind.PAYMENT, 3)
    # Nothing was recorded.
    assert len(ledger) == 1
    assert ledger.balances() == {"a": -5.0, "b": 5.0}
    assert ledger.paid("a", Kind.PAYMENT) == 0.0


# -- settle ------------------------------------------------------------------------------------
def test_settle_positive_value_is_a_payment_to_the_provider() -> None:
    ledger = Ledger()
    entry = ledger.settle(4.0, "client", "sp", 40.0, job=7)
    assert entry == Entry(4.0, "client", "sp", 40.0, Kind.PAYMENT, 7)
    assert ledger.balance("client") == -40.0
    assert ledger.balance("sp") == 40.0
    assert ledger.received("sp", Kind.PAYMENT) == 40.0
    assert ledger.paid("client", Kind.PAYMENT) == 40.0
    assert ledger.paid("sp", Kind.PENALTY) == 0.0


def test_settle_negative_value_is_a_penalty_to_the_client() -> None:
    ledger = Ledger()
    entry = ledger.settle(30.0, "client", "sp", -48.0, job=9)
    assert entry == Entry(30.0, "sp", "client", 48.0, Kind.PENALTY, 9)
    assert ledger.balance("client") == 48.0
    assert ledger.balance("sp") == -48.0
    assert ledger.paid("sp", Kind.PENALTY) == 48.0
    assert ledger.received("client", Kind.PENALTY) == 48.0
    assert ledger.received("sp", Kind.PAYMENT) == 0.0


def test_settle_nan_rejected() -> None:
    ledger = Ledger()
    with pytest.raises(ValueError):
        ledger.settle(1.0, "client", "sp", math.nan, job=1)
    assert len(ledger) == 0


def test_profit_of_a_provider() -> None:
    # Two jobs paid (40, 12), one penalty (48), rent 3/h * 10 processors * 1h = 30:
    # profit = 40 + 12 - 48 - 30 = -26.
    ledger = Ledger()
    ledger.settle(1.0, "c1", "sp", 40.0, 1)
    ledger.settle(2.0, "c2", "sp", 12.0, 2)
    ledger.settle(3.0, "c1", "sp", -48.0, 3)
    ledger.transfer(3.0, "sp", "rp", 30.0, Kind.RENT, None)
    assert ledger.balance("sp") == pytest.approx(-26.0)
    assert ledger.received("sp", Kind.PAYMENT) == 52.0
    assert ledger.paid("sp", Kind.PENALTY) == 48.0
    assert ledger.paid("sp", Kind.RENT) == 30.0
    assert ledger.balance("c1") == pytest.approx(8.0)  # -40 + 48
    assert ledger.balance("c2") == -12.0
    assert ledger.balance("rp") == 30.0


def test_balances_sum_to_zero_over_many_random_transfers() -> None:
    rng = np.random.default_rng(2005)
    agents = [f"agent{i}" for i in range(7)]
    kinds = list(Kind)
    ledger = Ledger()
    for step in range(2000):
        payer, payee = rng.choice(agents, size=2, replace=False)
        amount = float(rng.exponential(50.0))
        kind = kinds[int(rng.integers(len(kinds)))]
        ledger.transfer(float(step), str(payer), str(payee), amount, kind, step)
    balances = ledger.balances()
    total = sum(e.amount for e in ledger.entries)
    assert len(ledger) == 2000
    assert set(balances) == set(agents)
    assert math.fsum(balances.values()) == pytest.approx(0.0, abs=1e-9 * total)
    for agent in agents:
        # Each balance is what the agent received minus what it paid, over every kind ...
        flows = math.fsum(ledger.received(agent, k) - ledger.paid(agent, k) for k in kinds)
        assert balances[agent] == pytest.approx(flows, abs=1e-9 * total)
        # ... and the per-kind totals agree with the entries.
        for k in kinds:
            got = math.fsum(e.amount for e in ledger.entries if e.payee == agent and e.kind == k)
            assert ledger.received(agent, k) == pytest.approx(got, abs=1e-9 * total)


# -- to_frame ----------------------------------------------------------------------------------
def test_to_frame() -> None:
    ledger = Ledger()
    ledger.settle(1.0, "client", "sp", 40.0, 1)
    ledger.settle(2.0, "client", "sp", -5.0, 2)
    ledger.transfer(2.0, "sp", "rp", 6.0, Kind.RENT, None)
    frame = ledger.to_frame()
    assert list(frame.columns) == ["time", "payer", "payee", "amount", "kind", "job"]
    assert len(frame) == 3
    assert list(frame["kind"]) == ["payment", "penalty", "rent"]
    assert all(type(k) is str for k in frame["kind"])
    assert list(frame["amount"]) == [40.0, 5.0, 6.0]
    assert list(frame["payer"]) == ["client", "sp", "sp"]
    assert list(frame["payee"]) == ["sp", "client", "rp"]
    assert frame["job"].tolist()[:2] == [1, 2]
    assert frame["job"].isna().tolist() == [False, False, True]
    assert frame.groupby("kind")["amount"].sum().to_dict() == {
        "payment": 40.0,
        "penalty": 5.0,
        "rent": 6.0,
    }


def test_to_frame_empty_has_columns() -> None:
    frame = Ledger().to_frame()
    assert list(frame.columns) == ["time", "payer", "payee", "amount", "kind", "job"]
    assert frame.empty


def test_kind_values() -> None:
    assert [k.value for k in Kind] == ["payment", "penalty", "rent"]
    assert Kind("rent") is Kind.RENT


def test_a_transfer_of_nothing_is_not_recorded() -> None:
    ledger = Ledger()
    assert ledger.transfer(1.0, "sp", "rp", 0.0, Kind.RENT, 7) is None  # a free pool's rent
    assert ledger.settle(2.0, "client", "sp", 0.0, 7) is None  # a job worth nothing
    assert len(ledger) == 0
    assert ledger.to_frame().empty
    assert ledger.balance("sp") == 0.0
    ledger.settle(3.0, "client", "sp", -0.5, 8)  # a penalty still is a transfer
    assert [e.kind for e in ledger.entries] == [Kind.PENALTY]
