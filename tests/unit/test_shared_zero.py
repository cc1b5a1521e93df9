"""A zero amount of money kept per job is one shared float (market/core/rent.py ``shared_zero``):
the rents of a free pool, the profits and rents its plans predict are one object in every job's
record, and no value or sign changes (-0.0 and NaN are kept as they are)."""

from __future__ import annotations

import math

from market.core.rent import ZERO, shared_zero
from market.inputs.scenario import validate
from market.sim.model import GridMarket
from tests.conftest import synthetic_swf


def computed_zero() -> float:
    return float("3.5") - 3.5  # a new +0.0 object, not the constant 0.0


def test_a_positive_zero_is_the_shared_one_and_nothing_else_changes():
    a, b = computed_zero(), computed_zero()
    assert a is not b and shared_zero(a) is shared_zero(b) is ZERO and ZERO == 0.0
    negative = -computed_zero()
    assert math.copysign(1.0, shared_zero(negative)) == -1.0  # -0.0 keeps its sign
    assert math.isnan(shared_zero(math.nan)) and shared_zero(2.5) == 2.5


def test_a_replay_on_a_free_pool_keeps_one_zero_for_every_rent_and_predicted_profit(tmp_path):
    trace = synthetic_swf(tmp_path / "t.swf", n=200, procs=16)
    scenario = validate(
        {
            "name": "free",
            "resource_providers": [{"name": "pool", "capacity": 16, "price": 0.0}],
            "service_providers": [{"name": "site", "scheduler": "easy", "admission": "accept_all"}],
            "clients": [{"name": "u", "workload": {"kind": "swf", "trace": str(trace)}}],
        }
    )
    model = GridMarket(scenario, seed=1)
    result = model.run()
    records = list(model.service_providers["site"].records.values())
    assert len(records) == 199 and all(r.end is not None for r in records)
    zeros = {id(r.rent) for r in records}
    zeros |= {id(r.decision.expected_profit) for r in records if r.decision.end is not None}
    zeros |= {id(r.quote.rent) for r in records if r.decision.end is not None}
    assert zeros == {id(ZERO)}  # one float for every zero
    assert (result.jobs.rent == 0.0).all() and (result.jobs.profit == 0.0).all()
    assert result.jobs.expected_profit.notna().any()  # (some decisions predicted one)
