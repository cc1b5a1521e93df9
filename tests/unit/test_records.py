"""Job records (agents/records.py): equal decisions without a prediction share one object, and
nothing else is shared, so a record reads the decision it was given."""

from __future__ import annotations

from dataclasses import replace

from agents import records
from agents.policies.base import Decision
from agents.records import JobRecord, shared_decision
from tests.conftest import make_job


def test_equal_decisions_without_a_prediction_share_one_object(monkeypatch):
    monkeypatch.setattr(records, "_SHARED", {})  # (not full of other tests' decisions)
    first = Decision(True, "accept-all", "every job that fits is admitted")
    again = Decision(True, "accept-all", "every job that fits is admitted")
    a = JobRecord(make_job(1, 1.0, 5.0), first)
    b = JobRecord(make_job(2, 1.0, 5.0), again)
    assert a.decision is b.decision and b.decision == again  # one object, the same decision


def test_a_decision_with_a_prediction_parameters_or_another_reason_is_kept_as_given(monkeypatch):
    monkeypatch.setattr(records, "_SHARED", {})
    base = Decision(False, "no-fit", "no shape of (4,) fits the pool")
    assert shared_decision(base) is base and shared_decision(replace(base)) is base
    others = [
        replace(base, accepted=True),
        replace(base, detail="no shape of (8,) fits the pool"),
        Decision(True, "accept-all", "", 4, 0.0, 2.0, 0.0, 0.0),  # placed: its own times
        replace(base, params={"oc_factor": 2.0}),  # (DVQoPS's, set per decision)
        replace(base, gain=0.0),
    ]
    for other in others:
        assert shared_decision(other) is other
    assert JobRecord(make_job(3, 1.0, 5.0), others[2]).decision is others[2]


def test_at_most_max_shared_decisions_are_kept(monkeypatch):
    monkeypatch.setattr(records, "_SHARED", {})
    monkeypatch.setattr(records, "MAX_SHARED", 3)
    made = [Decision(False, "no-fit", f"job {i}") for i in range(5)]
    for d in made:
        shared_decision(d)
    assert len(records._SHARED) == 3
    late = Decision(False, "no-fit", "job 4")  # equal to one that came after the cap
    assert shared_decision(late) is late
    assert shared_decision(Decision(False, "no-fit", "job 0")) is made[0]
