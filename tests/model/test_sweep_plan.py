"""Planning a sweep: lists and ranges of values, cross and zip, every point x variant x
replication, common or independent seeds derived from the base seed, and stable run ids."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from market.experiments.sweep import SUMMARY_METRICS, Range, SweepPlan, SweepSpec, derive_seed
from market.inputs.scenario import load
from market.sim.model import GridMarket
from tests.conftest import ROOT
from tests.model.sweeps import LOAD, PRICE, VARIANTS, small


# -- expansion and seeds ---------------------------------------------------------------------------
def test_cross_product_with_lists_and_ranges():
    spec = SweepSpec(parameters={LOAD: [0.1, 0.2], PRICE: {"start": 1, "stop": 5, "step": 2}})
    points = spec.points()
    assert points == [
        {LOAD: 0.1, PRICE: 1}, {LOAD: 0.1, PRICE: 3}, {LOAD: 0.1, PRICE: 5},
        {LOAD: 0.2, PRICE: 1}, {LOAD: 0.2, PRICE: 3}, {LOAD: 0.2, PRICE: 5},
    ]  # fmt: skip


def test_zip_takes_the_lists_in_step():
    spec = SweepSpec(parameters={LOAD: [0.1, 0.2, 0.4], PRICE: [1, 2, 4]}, mode="zip")
    assert spec.points() == [{LOAD: 0.1, PRICE: 1}, {LOAD: 0.2, PRICE: 2}, {LOAD: 0.4, PRICE: 4}]


@pytest.mark.parametrize(
    ("spec", "values"),
    [
        ({"start": 0.1, "stop": 0.5, "step": 0.1}, [0.1, 0.2, 0.3, 0.4, 0.5]),
        ({"start": 0, "stop": 1, "num": 5}, [0.0, 0.25, 0.5, 0.75, 1.0]),
        ({"start": 100, "stop": 400, "num": 4}, [100, 200, 300, 400]),
        ({"start": 1, "stop": 10, "step": 4}, [1, 5, 9]),
        ({"start": 5, "stop": 1, "step": -2}, [5, 3, 1]),
        ({"start": 0.01, "stop": 1, "num": 3, "scale": "log"}, [0.01, 0.1, 1.0]),
    ],
)
def test_ranges(spec, values):
    got = Range.model_validate(spec).values()
    assert got == values
    assert [type(v) for v in got] == [type(v) for v in values]


def test_plan_is_every_point_variant_and_replication_replication_first():
    plan = SweepPlan.from_scenario(small(replications=3))
    assert plan.describe() == "2 points x 2 variants x 3 replications = 12 runs"
    keys = [(r.replication, r.point[LOAD], r.variant) for r in plan.runs]
    assert keys == [(rep, x, v) for rep in range(3) for x in (0.1, 0.3) for v in VARIANTS]
    assert len({r.run_id for r in plan.runs}) == 12
    run = plan.runs[1]  # replication 0, load 0.1, accept all
    assert run.scenario.clients[0].workload.mean_interarrival == 0.1
    assert run.scenario.service_providers[0].admission.name == "accept_all"
    assert run.scenario.sweep is None and run.scenario.variants == {}


def test_common_seeds_are_shared_by_points_and_variants_and_derived_from_the_base_seed():
    plan = SweepPlan.from_scenario(small(replications=3, base_seed=7))
    by_rep = {}
    for run in plan.runs:
        by_rep.setdefault(run.replication, set()).add(run.seed)
    assert all(len(seeds) == 1 for seeds in by_rep.values())  # common random numbers
    seeds = [by_rep[r].pop() for r in range(3)]
    assert len(set(seeds)) == 3
    expected = np.random.SeedSequence(7, spawn_key=(1,)).generate_state(1, np.uint64)[0]
    assert seeds[1] == int(expected) >> 1 == derive_seed(7, 1)
    assert 0 <= seeds[1] < 2**63
    # another base seed gives unrelated seeds (not shifted copies)
    other = {r.seed for r in SweepPlan.from_scenario(small(replications=3, base_seed=8)).runs}
    assert not other & set(seeds)
    # the default base seed is the scenario's seed
    assert SweepPlan.from_scenario(small()).base_seed == 1


def test_independent_seeds_follow_the_point_not_its_position():
    plan = SweepPlan.from_scenario(small(seeds="independent"))
    seeds = {(r.replication, r.point[LOAD], r.variant): r.seed for r in plan.runs}
    assert seeds[0, 0.1, VARIANTS[0]] == seeds[0, 0.1, VARIANTS[1]]  # variants share
    assert seeds[0, 0.1, VARIANTS[0]] != seeds[0, 0.3, VARIANTS[0]]  # points do not
    more = small(seeds="independent", parameters={LOAD: [0.05, 0.1, 0.2, 0.3]})
    extended = {(r.replication, r.point[LOAD], r.variant): r.seed for r in
                SweepPlan.from_scenario(more).runs}  # fmt: skip
    assert all(extended[key] == seed for key, seed in seeds.items())


def test_run_ids_are_stable_when_a_sweep_grows_and_change_with_the_scenario():
    base = {r.run_id for r in SweepPlan.from_scenario(small()).runs}
    grown = small(replications=3, parameters={LOAD: [0.1, 0.2, 0.3]})
    assert base < {r.run_id for r in SweepPlan.from_scenario(grown).runs}
    changed = small().with_overrides({PRICE: 4.0})
    assert not base & {r.run_id for r in SweepPlan.from_scenario(changed).runs}


def test_summary_metrics_are_exactly_the_numeric_summary_columns():
    result = GridMarket(small().model_copy(update={"sweep": None, "variants": {}})).run()
    numeric = [c for c in result.summary if pd.api.types.is_numeric_dtype(result.summary[c])]
    assert numeric == list(SUMMARY_METRICS)


def test_the_figure_3_scenario_plans_the_papers_sweep():
    plan = SweepPlan.from_scenario(load(ROOT / "scenarios/profit/fig3_load.yaml"))
    assert plan.describe() == "9 points x 8 variants x 10 replications = 720 runs"
    assert plan.points[0] == {LOAD: 0.05} and plan.points[-1] == {LOAD: 1.0}
