"""GridMarket: the Mesa model of a compute market.

Clients submit jobs to service providers, which rent processors from resource providers (Popovici
& Wilkes SC'05 §1, Figure 1). A pure discrete-event simulation on Mesa's event API: no fixed
ticks, just arrivals, starts and completions, scheduled through the model's
:class:`~market.sim.clock.Clock` (every event-loop trick, off with ``fast=False``).
:meth:`GridMarket.run` advances one ``sample_interval`` at a time (skipping stretches where
nothing happens) until every participant is done.
``model.spec`` is the :class:`~market.inputs.scenario.Scenario`; a run is a pure function of
(scenario, seed): all randomness comes from ``model.rng``, each client drawing from its own child
generator, so adding a provider or changing a policy leaves the job stream unchanged.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import mesa
from mesa.time import Priority

from agents.client import ClientAgent, default_offer_rule
from agents.cluster_provider import cluster_provider
from agents.participant import Participant
from agents.policies import make_admission, make_cluster, make_pricing, make_scheduler
from agents.provider import Provider
from agents.resource_provider import NEVER, ResourceProviderAgent
from agents.service_provider import ServiceProviderAgent
from agents.site_builder import build_batch_sites
from market.core.errors import ScenarioError
from market.core.ledger import Ledger
from market.inputs import limits
from market.results.provider_metrics import provider_timeseries_reporters
from market.results.result import RunResult
from market.sim.clock import Clock, collector_paused
from market.sim.snapshot import MarketSnapshot, snapshot

if TYPE_CHECKING:  # (a scenario is validated by its caller: the model needs no pydantic)
    from market.inputs.scenario import Scenario

STALL_AFTER = 100_000.0  # hours with jobs waiting, none running and nothing arriving


class MarketStalled(RuntimeError):
    """The market cannot progress: jobs wait and none can ever run. The message is one line."""


class GridMarket(mesa.Model):
    """A market of clients, service providers and resource providers, built from a scenario.

    Args:
        scenario: what to simulate (see :mod:`market.inputs.scenario`).
        seed: the random seed; defaults to the scenario's.
        fast: use the clock's speed tricks (:mod:`market.sim.clock`); ``False`` runs the plain
            event-by-event model, which decides every job the same way, only slower.
    """

    def __init__(self, scenario: Scenario, seed: int | None = None, fast: bool = True) -> None:
        with collector_paused():  # tens of thousands of jobs: see market.sim.clock
            self._build(scenario, seed, fast)

    def _build(self, scenario: Scenario, seed: int | None, fast: bool) -> None:
        seed = scenario.seed if seed is None else seed
        super().__init__(rng=seed)
        ticks = [c.workload.ticks_per_hour for c in scenario.clients]
        ticks_per_hour = max((t for t in ticks if t), default=None)
        self.clock = Clock(self, fast, ticks_per_hour).event_driven()  # no fixed step
        self.spec = scenario
        self.seed = seed
        self.ledger = Ledger()
        self.first_arrival = math.inf
        self.last_arrival = -math.inf
        self.end_time: float | None = None
        self.arrivals = 0
        self.last_progress = 0.0  # when a job last arrived or ended
        self.stall_after = STALL_AFTER  # see check_stalled
        self.never_finishes: str | None = None  # why, once a committed job can never run
        self.stalled: str | None = None  # why the market cannot progress, once it cannot
        self.batch_sites: dict = {}  # filled after the clients (see below)
        self.varq_users: list = []

        # Child streams: clients first, so that job streams never depend on the rest.
        client_streams = self.rng.spawn(len(scenario.clients))
        provider_streams = self.rng.spawn(len(scenario.resource_providers))
        self.resource_providers = self._create_resource_providers(provider_streams)
        self.service_providers = self._create_service_providers()
        self.clients = self._create_clients(client_streams)
        if limits.expected_horizon(scenario) is None:  # a trace's run: its length known now
            horizon = limits.jobs_horizon(scenario, *self.offered)
            unbounded = limits.unbounded_setting(scenario, horizon)
            if unbounded is not None:
                raise ScenarioError(f"{unbounded} (the trace's arrivals and work)")
        # Batch sites and VARQ users (VARQ TR 2007-09): streams spawned after all the others.
        self.batch_sites, self.varq_users = build_batch_sites(self, list(scenario.batch_sites))
        # Each client's tie-breaks among equal quotes (best_surplus): spawned last of all, so
        # that every other stream is as before.
        streams = self.rng.spawn(len(self.clients))
        for client, stream in zip(self.clients.values(), streams, strict=True):
            client.choice_rng = stream
        self.datacollector = mesa.DataCollector(
            agenttype_reporters={
                kind: provider_timeseries_reporters()
                for kind in dict.fromkeys(type(sp) for sp in self.service_providers.values())
            }
        )
        self.datacollector.collect(self)
        self.check_finished()

    # -- building ------------------------------------------------------------------------------
    def _create_resource_providers(self, streams) -> dict[str, ResourceProviderAgent]:
        """The resource providers by name, each with its own random stream."""
        return {
            rp.name: ResourceProviderAgent(
                self,
                rp.name,
                rp.capacity,
                rp.price_schedule(),
                rp.uncertainty,
                stream,
                rp.utilization_premium,
            )
            for rp, stream in zip(self.spec.resource_providers, streams, strict=True)
        }

    def _create_service_providers(self) -> dict[str, Provider]:
        """The service providers by name: planning ones, or deadline clusters (Libra,
        LibraRisk, EDF), each renting from its resource providers (the first by default). A
        provider that ``enters`` later opens for quotes then (an event at that hour)."""
        providers = {}
        first = self.spec.resource_providers[0].name
        for sp in self.spec.service_providers:
            pools = [self.resource_providers[name] for name in sp.pool_names(first)]
            pool = pools[0]
            if sp.cluster is not None:
                policy = make_cluster(sp.cluster.name, **sp.cluster.params)
                providers[sp.name] = cluster_provider(self, sp.name, policy, pool)
                continue
            scheduler = make_scheduler(sp.scheduler.name, **sp.scheduler.params)
            admission = make_admission(sp.admission.name, **sp.admission.params)
            pricing = make_pricing(sp.pricing.name, **sp.pricing.params)
            agent = providers[sp.name] = ServiceProviderAgent(
                self, sp.name, scheduler, admission, pools, sp.risk, sp.reshape, pricing
            )
            if sp.enters > 0:
                agent.open = False
                self.clock.at(sp.enters, agent.enter, Priority.HIGH)
        return providers

    def _create_clients(self, streams) -> dict[str, ClientAgent]:
        """The clients by name, each with the jobs its workload draws from its own stream."""
        clients, first_id = {}, 0
        self.offered = (0.0, 0.0)  # the latest arrival and all the work (market.inputs.limits)
        for spec, stream in zip(self.spec.clients, streams, strict=True):
            jobs = spec.workload.generate(stream, first_id=first_id, client=spec.name)
            first_id += len(jobs)
            if jobs:  # (in arrival order)
                latest, work = self.offered
                self.offered = (
                    max(latest, jobs[-1].arrival),
                    work + math.fsum(j.work for j in jobs),
                )
            named = [self.service_providers[name] for name in spec.providers or []]
            providers = named or list(self.service_providers.values())
            rule = spec.offer_rule or default_offer_rule(providers)
            clients[spec.name] = ClientAgent(self, spec.name, jobs, providers, rule)
        return clients

    @property
    def participants(self) -> list[Participant]:
        """The agents the market waits for (:mod:`agents.participant`), in the order made."""
        return [agent for agent in self.agents if isinstance(agent, Participant)]

    # -- called by agents ----------------------------------------------------------------------
    def note_arrival(self, job) -> None:
        """A client submitted ``job`` now (the arrival phase is the utilization window)."""
        now = self.clock.now
        self.last_progress = now
        self.arrivals += 1
        if now < self.first_arrival:
            self.first_arrival = now
        if now > self.last_arrival:
            self.last_arrival = now

    def note_progress(self, now: float) -> None:
        """Jobs ended at ``now`` (a job that starts ends later, or runs: see
        :meth:`check_stalled`)."""
        self.last_progress = now

    def note_never_runs(self, provider: Provider, job, need: int, rp=None) -> None:
        """``provider`` committed ``job``, which needs ``need`` processors of its resource
        provider ``rp`` (default: the provider's first), more than ``rp`` can ever offer (an
        over-booked pool, :attr:`~agents.resource_provider.ResourceProviderAgent.most_available`)
        or so rarely that it would wait longer than the stall window on average
        (:meth:`~agents.resource_provider.ResourceProviderAgent.mean_wait`): the market cannot
        finish, and :meth:`check_stalled` says so (the first such job is named)."""
        if self.never_finishes is not None:
            return
        rp = rp if rp is not None else provider.resource_provider
        u = rp.uncertainty
        where = f"the market cannot finish (t={self.time:g}): job {job.id} of {provider.name}"
        if need > rp.most_available:
            odds = f"; more comes less than {NEVER:g} a period" if u.sigma > 0 else ""
            self.never_finishes = (
                f"{where} needs at least {need} processors, but {rp.name} (over-booked by "
                f"{u.overbooking:.0%}) can never offer more than {rp.most_available} of its "
                f"{rp.capacity}{odds}"
            )
            return
        self.never_finishes = (
            f"{where} needs at least {need} processors, which {rp.name} (over-booked by "
            f"{u.overbooking:.0%}) offers with probability {rp.chance_of(need):.3g} a "
            f"{u.period:g}-hour period: about once in {rp.mean_wait(need):,.0f} hours, beyond "
            f"the {self.stall_after:,g}-hour stall window (it can essentially never run)"
        )

    def check_finished(self) -> None:
        """Stop once every participant (client, provider, batch site...) is idle."""
        if self.running and all(agent.idle for agent in self.participants):
            self.running = False
            self.end_time = self.time

    # -- running -------------------------------------------------------------------------------
    def advance_to(self, time: float) -> None:
        """Run until ``time`` (or until the market finishes) and take a sample; raises
        :class:`MarketStalled` (and keeps the reason in :attr:`stalled`) if the market cannot
        progress."""
        self.check_stalled()
        self.run_until(time)
        self.datacollector.collect(self)

    def run_until(self, end_time: float) -> None:
        """Mesa's ``run_until``, through the clock (:meth:`market.sim.clock.Clock.run_until`)."""
        self.clock.run_until(end_time)

    def set_markup(self, provider: str, markup: float) -> None:
        """Service provider ``provider`` prices with base markup ``markup`` (>= 0) from now on
        (the dashboard's market view); a ValueError naming the problem otherwise."""
        sp = self.service_providers.get(provider)
        if sp is None or sp.sales is None:
            raise ValueError(f"no pricing service provider named {provider!r}")
        sp.set_markup(markup)

    def snapshot(self, **options) -> MarketSnapshot:
        """What the market looks like now (see :func:`market.sim.snapshot.snapshot`)."""
        return snapshot(self, **options)

    def next_event_time(self) -> float | None:
        """When the next event is due, or None if nothing is scheduled."""
        return self.clock.next_event_time()

    def step_event(self) -> bool:
        """Run every event due at the next event time (one instant); False if there is none."""
        at = self.next_event_time()
        if at is None:
            return False
        self.run_until(at)
        return True

    def run(self, max_time: float = math.inf) -> RunResult:
        """Run until every job is done (or ``max_time``) and return the result.

        Raises :class:`MarketStalled` if jobs wait that can never run.
        """
        with collector_paused():  # (the result too: its tables hold a row per job)
            interval = self.spec.sample_interval
            while self.running and self.time < max_time:
                self.advance_to(min(self._quiet_until(interval), max_time))
            return self.result()

    def _quiet_until(self, interval: float) -> float:
        """The next sample time: one ``interval`` on, or, when nothing happens for several
        intervals (a long job running alone, a pool drawn once a day), the last sample time
        before the next event: nothing changes in between, so samples there repeat the one
        before (sampling stops when nothing changes; a stretch costs two samples)."""
        at = self.time + interval
        upcoming = self.next_event_time()
        if upcoming is not None and upcoming > at + interval:
            at = self.time + math.floor((upcoming - self.time) / interval) * interval
            if at >= upcoming:  # (rounding) never past the event
                at = self.time + (math.floor((upcoming - self.time) / interval) - 1) * interval
        return at

    def check_stalled(self) -> None:
        """Raise :class:`MarketStalled` if the market cannot progress: a committed job can never
        run (:meth:`note_never_runs`), nothing is scheduled, or for ``stall_after`` hours
        (:data:`STALL_AFTER`) no job arrived or ended while none runs (a running job always
        ends, however long it takes). :meth:`advance_to` checks before every sample."""
        if self.never_finishes is not None:
            self.stalled = self.never_finishes
            raise MarketStalled(self.stalled)
        if not self.running:
            return
        nothing = self.next_event_time() is None
        running = any(agent.running for agent in self.participants)
        if nothing or (not running and self.time - self.last_progress > self.stall_after):
            self.stalled = f"the market stalled at t={self.time:g}: {self._why_stalled()}"
            raise MarketStalled(self.stalled)

    def _why_stalled(self) -> str:
        waiting = [why for agent in self.participants if (why := agent.why_waiting())]
        return "; ".join(waiting) or "nothing is scheduled and not every job has been submitted"

    def result(self) -> RunResult:
        """The run's summary, time series, per-job table and ledger (so far)."""
        return RunResult.from_model(self)
