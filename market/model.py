"""GridMarket: the Mesa model of a compute market.

Clients submit jobs to service providers, which rent processors from resource providers (Popovici
& Wilkes SC'05 §1, Figure 1). The model is a pure discrete-event simulation on Mesa's event API:
no fixed ticks, just arrivals, job starts and completions scheduled with ``schedule_event``.
:meth:`GridMarket.run` advances the clock with ``run_for`` one ``sample_interval`` at a time,
sampling the time series after each, until every job is done.

A run is a pure function of (scenario, seed): all randomness comes from ``model.rng``, and each
client draws its jobs from its own child generator, so that adding a service provider or changing
a policy leaves the job stream unchanged.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterator
from contextlib import contextmanager

import mesa

from agents.client import ClientAgent
from agents.cluster_provider import cluster_provider
from agents.policies import make_admission, make_cluster, make_scheduler
from agents.resource_provider import ResourceProviderAgent, Uncertainty
from agents.service_provider import ServiceProviderAgent
from market.ledger import Ledger
from market.metrics import provider_timeseries_reporters
from market.result import RunResult
from market.scenario import Scenario

STALL_AFTER = 100_000.0  # hours without an arrival or a payment: a run that cannot finish


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (reference counting still frees)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class GridMarket(mesa.Model):
    """A market of clients, service providers and resource providers, built from a scenario.

    Args:
        scenario: what to simulate (see :mod:`market.scenario`).
        seed: the random seed; defaults to the scenario's.
    """

    def __init__(self, scenario: Scenario, seed: int | None = None) -> None:
        with _collector_paused():  # tens of thousands of jobs: see run()
            self._build(scenario, seed)

    def _build(self, scenario: Scenario, seed: int | None) -> None:
        seed = scenario.seed if seed is None else seed
        super().__init__(rng=seed)
        self._default_schedule.stop()  # a pure event-driven model: no fixed step
        self.spec = scenario
        self.seed = seed
        self.ledger = Ledger()
        self.first_arrival = math.inf
        self.last_arrival = -math.inf
        self.end_time: float | None = None
        self.arrivals = 0

        # Child streams: clients first, so that job streams never depend on the rest.
        client_streams = self.rng.spawn(len(scenario.clients))
        provider_streams = self.rng.spawn(len(scenario.resource_providers))
        self.resource_providers = {
            rp.name: ResourceProviderAgent(
                self,
                rp.name,
                rp.capacity,
                rp.price_schedule(),
                Uncertainty(**rp.uncertainty.model_dump()),
                stream,
            )
            for rp, stream in zip(scenario.resource_providers, provider_streams, strict=True)
        }
        default_rp = scenario.resource_providers[0].name
        self.service_providers = {
            sp.name: ServiceProviderAgent(
                self,
                sp.name,
                make_scheduler(sp.scheduler.name, **sp.scheduler.params),
                make_admission(sp.admission.name, **sp.admission.params),
                self.resource_providers[sp.resource_provider or default_rp],
                risk=sp.risk,
                reshape=sp.reshape,
            )
            if sp.cluster is None  # a deadline cluster (Libra, LibraRisk, EDF)
            else cluster_provider(
                self,
                sp.name,
                make_cluster(sp.cluster.name, **sp.cluster.params),
                self.resource_providers[sp.resource_provider or default_rp],
            )
            for sp in scenario.service_providers
        }
        self.clients = {}
        first_id = 0
        for spec, stream in zip(scenario.clients, client_streams, strict=True):
            jobs = spec.workload.generate(stream, first_id=first_id, client=spec.name)
            first_id += len(jobs)
            providers = [self.service_providers[name] for name in spec.providers or []] or list(
                self.service_providers.values()
            )
            self.clients[spec.name] = ClientAgent(self, spec.name, jobs, providers, spec.offer_rule)

        self.datacollector = mesa.DataCollector(
            agenttype_reporters={
                kind: provider_timeseries_reporters()
                for kind in dict.fromkeys(type(sp) for sp in self.service_providers.values())
            }
        )
        self.datacollector.collect(self)
        self.check_finished()

    # -- called by agents ----------------------------------------------------------------------
    def note_arrival(self, job) -> None:
        """A client submitted ``job`` now (the arrival phase is the utilization window)."""
        now = self.time
        self.arrivals += 1
        if now < self.first_arrival:
            self.first_arrival = now
        if now > self.last_arrival:
            self.last_arrival = now

    def check_finished(self) -> None:
        """Stop once every client has submitted everything and every provider is idle."""
        if not self.running:
            return
        if all(c.exhausted for c in self.clients.values()) and all(
            sp.idle for sp in self.service_providers.values()
        ):
            self.running = False
            self.end_time = self.time

    # -- running -------------------------------------------------------------------------------
    def advance(self, duration: float) -> None:
        """Run for ``duration`` hours (or until the market finishes) and take a sample."""
        target = self.time + duration
        self.run_until(target)
        self.datacollector.collect(self)

    def instant_is_over(self) -> bool:
        """Whether nothing else is scheduled at the current instant (every scheduled event is
        later), so that work meant for the end of this instant can be done right away.

        It looks at the top of Mesa's event heap (events are ordered by time first), because
        ``EventList.peek_ahead`` scans the whole heap; a canceled event on top counts as "not
        over" (the caller then schedules, which is always correct).
        """
        try:
            events = self._event_list._events
        except AttributeError:  # Mesa keeps its events otherwise: "not over" is always right
            return False
        return not events or (events[0].time > self.time and not events[0].CANCELED)

    def next_event_time(self) -> float | None:
        """When the next event is due, or None if nothing is scheduled."""
        if self._event_list.is_empty():
            return None
        upcoming = self._event_list.peek_ahead(1)
        return upcoming[0].time if upcoming else None

    def step_event(self) -> bool:
        """Run every event due at the next event time (one instant); False if there is none."""
        at = self.next_event_time()
        if at is None:
            return False
        self.run_until(at)
        return True

    def run(self, max_time: float = math.inf) -> RunResult:
        """Run until every job is done (or ``max_time``) and return the result.

        Python's cyclic garbage collector is paused meanwhile (and restored after): a run keeps
        every job and its record alive to the end and makes few reference cycles, so the
        collector's full passes over them cost about a tenth of a trace replay and free little.
        """
        with _collector_paused():
            return self._run(max_time)

    def _run(self, max_time: float) -> RunResult:
        interval = self.spec.sample_interval
        progress, since = None, self.time
        while self.running and self.time < max_time:
            if self._event_list.is_empty() or self.time - since > STALL_AFTER:
                raise RuntimeError(
                    f"the market stalled at t={self.time:g}: jobs wait, none can run"
                )
            self.advance(min(interval, max_time - self.time))
            now = (len(self.ledger), self.arrivals)
            if now != progress:
                progress, since = now, self.time
        return self.result()

    def result(self) -> RunResult:
        """The run's summary, time series, per-job table and ledger (so far)."""
        return RunResult.from_model(self)
