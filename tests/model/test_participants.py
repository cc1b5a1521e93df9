"""The participant interface (agents/participant.py) and the provider base (agents/provider.py)
in whole markets: the model waits for every participant and stalls when none can progress,
whatever its kind (a new kind needs no edit of the model); both provider kinds keep their money
in the ledger and answer the same questions."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from agents.client import ClientAgent
from agents.cluster_provider import EDFProvider, TimeSharedProvider
from agents.participant import Participant
from agents.provider import Provider
from agents.resource_provider import ResourceProviderAgent
from agents.service_provider import ServiceProviderAgent
from market import GridMarket
from market.core.ledger import Kind
from market.inputs.scenario import validate
from market.sim.model import MarketStalled
from tests.conftest import synthetic_swf


class Chore(Participant):
    """A new agent kind: one piece of work of ``hours`` that starts at ``start``."""

    def __init__(self, model: GridMarket, start: float, hours: float) -> None:
        super().__init__(model)
        self.hours, self.done = hours, False
        model.clock.at(start, self._begin)

    @property
    def idle(self) -> bool:
        return self.done

    def _begin(self) -> None:
        self.running = 1
        self.model.clock.at(self.model.time + self.hours, self._end)

    def _end(self) -> None:
        self.running, self.done = 0, True
        self.model.note_progress(self.model.time)
        self.model.check_finished()


class Stuck(Participant):
    """Never idle, never runs anything, schedules nothing."""

    idle = False

    def why_waiting(self) -> str:
        return "the stuck agent waits for nothing"


def small(default_scenario, jobs=15):
    return default_scenario.with_overrides({"clients.0.workload.jobs": jobs})


def test_the_market_waits_for_a_new_kind_of_participant(default_scenario):
    alone = GridMarket(small(default_scenario), seed=4)
    jobs = alone.run().jobs
    with_chore = GridMarket(small(default_scenario), seed=4)
    chore = Chore(with_chore, start=alone.end_time + 5.0, hours=3.0)
    assert chore in with_chore.participants
    result = with_chore.run()
    assert chore.done and with_chore.end_time == alone.end_time + 8.0
    pd.testing.assert_frame_equal(result.jobs, jobs)  # it changes no job


def test_a_running_participant_is_progress_and_a_waiting_one_stalls(default_scenario):
    model = GridMarket(small(default_scenario), seed=4)
    model.stall_after = 1.0  # hours without an arrival or an end while nothing runs
    Chore(model, start=0.0, hours=400.0)  # runs long after every job has ended
    model.run()
    assert model.end_time == 400.0
    stuck = GridMarket(small(default_scenario), seed=4)
    Stuck(stuck)
    with pytest.raises(MarketStalled, match="the stuck agent waits for nothing"):
        stuck.run()
    assert stuck.running and stuck.end_time is None


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A planning provider, a Libra cluster and an EDF cluster, each with its client."""
    trace = synthetic_swf(tmp_path_factory.mktemp("mixed") / "t.swf", n=120)
    scenario = validate(
        {
            "name": "mixed",
            "resource_providers": [
                {"name": "pool", "capacity": 16, "price": 1.0},
                {"name": "libra-nodes", "capacity": 16, "price": 0.5},
                {"name": "edf-nodes", "capacity": 16, "price": 0.5},
            ],
            "service_providers": [
                {"name": "planner", "scheduler": "easy", "admission": "accept_all",
                 "resource_provider": "pool"},
                {"name": "libra", "cluster": "libra", "resource_provider": "libra-nodes"},
                {"name": "edf", "cluster": "edf", "resource_provider": "edf-nodes"},
            ],
            "clients": [
                {"name": f"users-{sp}", "providers": [sp],
                 "workload": {"kind": "swf", "trace": str(trace), "deadlines": "urgency"}}
                for sp in ("planner", "libra", "edf")
            ],
        }
    )  # fmt: skip
    model = GridMarket(scenario, seed=3)
    return model, model.run()


def test_every_provider_kind_is_a_participant_and_the_model_finds_them_in_order(mixed):
    model, _ = mixed
    kinds = [type(agent) for agent in model.participants]
    assert kinds == [ServiceProviderAgent, TimeSharedProvider, EDFProvider, *[ClientAgent] * 3]
    assert not any(isinstance(a, ResourceProviderAgent) for a in model.participants)
    assert all(agent.idle and agent.running == 0 for agent in model.participants)


def test_both_provider_kinds_keep_their_money_in_the_ledger(mixed):
    model, result = mixed
    ledger = model.ledger
    for sp in model.service_providers.values():
        assert isinstance(sp, Provider)
        jobs = result.jobs[result.jobs.provider == sp.name]
        done = jobs[jobs.end.notna()]
        assert sp.accepted == int(jobs.committed.sum()) and len(done) > 0
        assert sp.revenue == pytest.approx(math.fsum(done.paid))
        # its rent is its resource provider's income (each pool has one tenant here)
        assert sp.rent_paid == pytest.approx(ledger.received(sp.resource_provider.name, Kind.RENT))
        assert sp.rent_paid > 0
        assert sp.profit == pytest.approx(sp.revenue - sp.rent_paid)
        assert sp.queue == [] and sp.why_waiting() is None


def test_only_a_provider_that_prices_has_sales_and_terms(mixed):
    model, _ = mixed
    planner, libra, edf = model.service_providers.values()
    assert planner.sales is not None and planner.sales.pricing.name == "utility"
    assert planner.sales.won == planner.accepted and planner.sales.quoted >= planner.accepted
    for cluster in (libra, edf):
        assert cluster.sales is None and cluster.admission is None
        assert cluster.policy is not None and cluster.last_plan is None
        job = next(iter(cluster.records.values())).job
        assert cluster.terms(job) is None  # the client pays the job's utility
        with pytest.raises(ValueError, match="no pricing service provider named 'libra'"):
            model.set_markup("libra", 0.5)
    assert libra.cluster is not None and edf.cluster is None
