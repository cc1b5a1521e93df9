"""The hand-off between a running :class:`~market.sim.model.GridMarket` and a learning environment.

The admission decision (Popovici & Wilkes SC'05 §3.4) is made inside an event handler, but a
Gymnasium ``step`` must return at the next decision. The driver runs the unchanged model in a
**greenlet** and gives the controlled providers the ``external`` admission
(:mod:`agents.policies.external`): :meth:`MarketDriver.start` runs the model until a controlled
provider is offered a job; ``external`` switches back with an :class:`Offer` (the model suspended
inside ``quote``); :meth:`MarketDriver.resume` switches back in with the actions. Only one side
runs at a time, so a run is a pure function of (scenario, seed, actions). A job offered to
several controlled providers is one :class:`Offer` naming them all, their quotes seeing the same
market; the offer rule says whose action counts. Designs considered: docs/papers/environments.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from greenlet import greenlet

from agents.policies.base import Decision, PlanContext, Scheduler
from agents.policies.external import ExternalAdmission
from agents.resource_provider import ResourceProviderAgent
from agents.service_provider import ServiceProviderAgent
from market.core.jobs import Job
from market.inputs.scenario import Scenario, ScenarioError
from market.sim.model import GridMarket

#: Builds a provider's decision on one of its pools from its agent's action: (provider, action,
#: job, queue, ctx, scheduler, pool) -> Decision.
Act = Callable[
    [
        ServiceProviderAgent,
        object,
        Job,
        Sequence[Job],
        PlanContext,
        Scheduler,
        ResourceProviderAgent,
    ],
    Decision,
]


class Offer(NamedTuple):
    """A job offered now to the controlled ``providers`` (by name, in the client's order)."""

    job: Job
    time: float
    providers: tuple[str, ...]


def planning_providers(scenario: Scenario) -> list[str]:
    """The service providers of ``scenario`` that run admission control (not deadline
    clusters), in the scenario's order; a one-line :class:`ScenarioError` saying why there is
    none to drive if so."""
    names = [sp.name for sp in scenario.service_providers if sp.cluster is None]
    if names:
        return names
    why = "Admission-v0 and Market-v0 drive the admission policy of a provider that plans"
    if scenario.service_providers:
        kinds = ", ".join(
            f"service_providers.{i} {sp.name!r}: cluster {sp.cluster.name}"
            for i, sp in enumerate(scenario.service_providers)
        )
        raise ScenarioError(
            f"{scenario.name}: no admission to drive: every service provider is a deadline "
            f"cluster ({kinds}), which admits by its cluster policy's own test; {why}"
        )
    where = "batch sites with VARQ users" if scenario.batch_sites else "nothing"
    raise ScenarioError(
        f"{scenario.name}: no admission to drive: there is no service provider (the market is "
        f"{where}); {why}"
    )


def pool_capacities(scenario: Scenario) -> dict[str, int]:
    """Each service provider's widest pool (the capacity of its resource provider, or of the
    largest of those it rents from), by name: the ``C`` of its action space."""
    pools = {rp.name: rp.capacity for rp in scenario.resource_providers}
    first = scenario.resource_providers[0].name
    return {
        sp.name: max(pools[name] for name in sp.pool_names(first))
        for sp in scenario.service_providers
    }


def controlled_scenario(scenario: Scenario, controlled: Sequence[str]) -> Scenario:
    """``scenario`` with the ``external`` admission for each of the ``controlled`` providers;
    a one-line :class:`ScenarioError` if one is unknown or a deadline cluster."""
    if not controlled:
        raise ScenarioError(f"{scenario.name}: no service provider to control")
    index = {sp.name: i for i, sp in enumerate(scenario.service_providers)}
    planning = planning_providers(scenario)
    overrides = {}
    for name in controlled:
        if name not in index:
            known = ", ".join(index) or "none"
            raise ScenarioError(
                f"{scenario.name}: provider: no service provider {name!r} ({known})"
            )
        if name not in planning:
            raise ScenarioError(
                f"{scenario.name}: service_providers.{index[name]}: {name!r} is a deadline "
                "cluster, which has no admission decision to learn"
            )
        overrides[f"service_providers.{index[name]}.admission"] = "external"
    return scenario.with_overrides(overrides, f"{scenario.name}: environment")


class MarketDriver:
    """Runs a market whose ``controlled`` providers' admission is decided by ``act`` from the
    actions handed in at each :class:`Offer`."""

    def __init__(
        self, scenario: Scenario, controlled: Sequence[str], act: Act, fast: bool = True
    ) -> None:
        self.spec = controlled_scenario(scenario, controlled)
        self.controlled = tuple(controlled)
        self.fast = fast
        self.model: GridMarket | None = None
        self.offer: Offer | None = None  # the offer the agents are deciding, if any
        self.offers = 0
        self._act = act
        self._actions: Mapping[str, object] = {}
        self._runner: greenlet | None = None
        self._caller: greenlet | None = None

    # -- the environment's side ----------------------------------------------------------------
    def start(self, seed: int) -> Offer | None:
        """A new run on ``seed`` (any earlier one is ended), up to its first offer (None: the
        run ended without one)."""
        self.stop()
        model = self.model = GridMarket(self.spec, seed=seed, fast=self.fast)
        for name in self.controlled:
            provider = model.service_providers[name]
            # One admission per pool (a provider renting from several asks each): all decided
            # by the one action its agent takes for the job.
            for planner in provider.planners:
                assert isinstance(planner.admission, ExternalAdmission)
                planner.admission.decider = self._decider(provider, planner.pool)
        self.offer, self.offers = None, 0
        self._runner = greenlet(self._run)
        return self._switch(None)

    def resume(self, actions: Mapping[str, object]) -> Offer | None:
        """Decide the pending offer with ``actions`` (by provider name) and run to the next
        offer (None: the run has ended)."""
        if self.offer is None:
            raise RuntimeError("no offer is pending: start a run first")
        return self._switch(actions)

    def stop(self) -> None:
        """End the run now (it unwinds out of the model; nothing more is decided)."""
        runner, self._runner = self._runner, None
        if runner is not None and not runner.dead:
            runner.throw()  # GreenletExit: leaves the suspended quote and the model's run loop
        self.offer = None

    @property
    def finished(self) -> bool:
        """The run has ended (every job done) or was never started."""
        return self.offer is None

    def _switch(self, value: object) -> Offer | None:
        self._caller = greenlet.getcurrent()
        offer = self._runner.switch(value)
        self.offer = offer
        return offer

    # -- the model's side (in the runner greenlet) ---------------------------------------------
    def _run(self, _: object) -> None:
        """The model's run loop, as :meth:`GridMarket.run` (one sample every
        ``sample_interval`` hours until every job is done)."""
        model = self.model
        interval = model.spec.sample_interval
        while model.running:
            model.advance_to(model.time + interval)
        return None

    def _decider(self, provider: ServiceProviderAgent, pool: ResourceProviderAgent):
        name = provider.name

        def decide(job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler):
            offer = self.offer
            if offer is None or offer.job is not job:
                self.offer = offer = Offer(job, ctx.now, self._offered(job, name))
                self.offers += 1
                self._actions = self._caller.switch(offer)
            return self._act(provider, self._actions[name], job, queue, ctx, scheduler, pool)

        return decide

    def _offered(self, job: Job, asking: str) -> tuple[str, ...]:
        """The controlled providers ``job``'s client asks, ``asking`` first: the rest of its
        list after ``asking`` (an earlier controlled one would have been asked first), or just
        ``asking`` under the ``random`` offer rule."""
        client = self.model.clients.get(job.client) if job.client is not None else None
        if client is None or client.offer_rule == "random":
            return (asking,)
        names = [p.name for p in client.providers]
        later = names[names.index(asking) :] if asking in names else [asking]
        return tuple(n for n in later if n in self.controlled)
