"""The typed policy registries (agents/policies/registry.py), the cluster policy interface
(agents/policies/libra.py) and VARQ's planner found by name (agents/policies/varq.py)."""

from __future__ import annotations

import pytest

from agents.policies import (
    CLUSTERS,
    RESERVATIONS,
    SCHEDULERS,
    Registry,
    make_cluster,
    make_reservation,
    varq,
)
from agents.policies.libra import EDF, ClusterPolicy, Libra, SpaceSharing, TimeSharing
from agents.policies.varq import ReservationPlanner, VarqPlanner
from tests.unit.test_varq import Stub


class Widget:
    def __init__(self, size: int = 1) -> None:
        self.size = size


def test_a_registry_maps_names_to_classes_and_builds_them_checked():
    widgets: Registry[Widget] = Registry("widget")
    widgets.register("w")(Widget)
    assert dict(widgets) == {"w": Widget} and Widget.name == "w" and len(widgets) == 1
    assert widgets.make("w", size=3).size == 3
    with pytest.raises(ValueError, match="registered twice"):
        widgets.register("w")(Widget)
    with pytest.raises(ValueError, match=r"unknown widget 'v' \(known: w;"):
        widgets.make("v")
    with pytest.raises(ValueError, match="widget 'w' has no parameter 'colour'"):
        widgets.make("w", colour=2)
    with pytest.raises(ValueError, match="widget 'w': size:"):
        widgets.make("w", size=2.5)


def test_the_built_in_registries_hold_their_kinds():
    assert {"easy", "first_profit"} <= set(SCHEDULERS)
    assert set(CLUSTERS) == {"libra", "libra_risk", "edf"}
    assert all(issubclass(cls, ClusterPolicy) for cls in CLUSTERS.values())
    assert isinstance(make_cluster("libra"), TimeSharing)
    assert isinstance(make_cluster("edf"), SpaceSharing)


def test_a_cluster_policy_must_say_how_it_shares_and_decides():
    class NoSharing(ClusterPolicy):
        pass

    class NoChoice(TimeSharing):
        pass

    class NoAdmission(SpaceSharing):
        def priority(self, job):
            return (0.0,)

    for incomplete in (NoSharing, NoChoice, NoAdmission):
        with pytest.raises(TypeError, match="abstract"):
            incomplete()
    assert Libra().label() == "time_shared" and EDF().label() == "space_shared"


def test_varqs_planner_is_found_by_name_and_plans_as_figure_3():
    assert RESERVATIONS["varq"] is VarqPlanner and issubclass(VarqPlanner, ReservationPlanner)
    planner = make_reservation("varq", probability=0.5, step_seconds=1800.0)
    assert isinstance(planner, VarqPlanner) and planner.step == 0.5
    plan = planner.plan(Stub(), 4, 1.0, 0.0, 6.0)  # the hand-worked case of test_varq.py
    assert plan == varq.plan(Stub(), 4, 1.0, 0.0, 6.0, 0.5, step=0.5)
    assert (plan.submit_at, plan.walltime) == (5.0, 2.0)
    with pytest.raises(ValueError, match="reservation planner 'varq': probability must lie"):
        make_reservation("varq", probability=1.0)
    with pytest.raises(ValueError, match="unknown reservation planner 'advance'"):
        make_reservation("advance", probability=0.5)
