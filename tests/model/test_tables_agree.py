"""The market table, the per-job table and the ledger agree for every policy: each registered
scheduler, admission policy, deadline cluster, pricing policy and client offer rule runs in one
small competing market (a shared pool, a pool of its own, a rival provider, a synthetic client
and a trace client with deadlines), and the run keeps every invariant of
:mod:`tests.invariants` and its tables agree (:func:`tests.invariants.check_tables`: accepted,
completed, revenue and rent per provider; submitted, placed and paid per client; rent per pool).
The random markets (:mod:`tests.model.test_random_markets`) draw these at random; here each
one is run for certain.
"""

from __future__ import annotations

import pytest

from agents.policies import ADMISSIONS, CLUSTERS, PRICINGS, SCHEDULERS
from market.inputs.scenario import validate
from market.sim.model import GridMarket
from tests.conftest import synthetic_swf
from tests.invariants import check_invariants, check_tables, watch

OFFER_RULES = ["best_quote", "best_surplus", "first_accept", "random"]


def _market(tmp_path, sp: dict, offer_rule: str = "best_quote") -> dict:
    replay = synthetic_swf(tmp_path / "t.swf", n=12, procs=8, seed=5, max_gap=1200)
    return {
        "seed": 3,
        "resource_providers": [
            {"name": "shared", "capacity": 8, "price": 2.0},
            {"name": "own", "capacity": 8, "price": 1.0},
        ],
        "service_providers": [
            {"name": "sp", "resource_provider": "own", **sp},
            {"name": "rival", "resource_provider": "shared", "pricing": {"name": "cost_plus"}},
        ],
        "clients": [
            {"name": "synthetic", "offer_rule": offer_rule, "workload": {
                "jobs": 20, "mean_interarrival": 0.1, "mean_work": 6.0, "shapes": [1, 2, 4],
                "estimate_error": 0.3}},
            {"name": "replay", "offer_rule": offer_rule, "workload": {
                "kind": "swf", "trace": str(replay), "deadlines": "factor",
                "deadline_factor": 1.2, "price_per_processor_hour": 5.0}},
        ],
    }  # fmt: skip


CASES = (
    [(f"scheduler {s}", {"scheduler": s, "admission": "accept_all"}) for s in sorted(SCHEDULERS)]
    + [(f"admission {a}", {"admission": a}) for a in sorted(ADMISSIONS) if a != "external"]
    + [(f"cluster {c}", {"cluster": c}) for c in sorted(CLUSTERS)]
    + [
        (f"pricing {p}", {"pricing": {"name": p}, "resource_providers": ["own", "shared"],
                          "resource_provider": None})
        for p in sorted(PRICINGS)
    ]
)  # fmt: skip


def _run(data: dict) -> GridMarket:
    model = GridMarket(validate(data, "test"))
    watch(model)
    model.run()
    check_invariants(model)
    check_tables(model)
    return model


@pytest.mark.parametrize(("label", "sp"), CASES, ids=[label for label, _ in CASES])
def test_the_tables_agree_for_every_policy(tmp_path, label, sp):
    model = _run(_market(tmp_path, sp))
    result = model.result()
    rows = result.market.set_index("name")
    jobs = result.jobs
    for client in ("synthetic", "replay"):  # each job submitted ends one way, in both tables
        row, mine = rows.loc[client], jobs[jobs["client"] == client]
        assert row.submitted == mine["job"].nunique() > 0, (label, client)
        assert row.placed == mine["committed"].astype(bool).sum(), (label, client)
        placed_twice = mine.groupby("job")["committed"].sum() > 1  # (a row per provider asked)
        assert not placed_twice.any(), (label, client)


@pytest.mark.parametrize("rule", OFFER_RULES)
def test_the_tables_agree_for_every_offer_rule(tmp_path, rule):
    sp = {"pricing": {"name": "opportunity"}}
    _run(_market(tmp_path, sp, offer_rule=rule))
