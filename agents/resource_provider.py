"""The resource provider: rents out processors (Popovici & Wilkes SC'05 §1.1, §3.2).

It owns a pool of ``capacity`` processors and rents them at a price per processor-hour (a
:class:`~market.core.rent.PriceSchedule`: constant, or changing over time). A service provider asks
for processors when a job is due (:meth:`rent`) and gives them back when it ends
(:meth:`release`), paying rent for the time it held them. To plan, it asks for a
:meth:`forecast`: what is available now, the forecast for later periods with its error model
(the "uncertainty estimator" of §3.2), and the leases already granted.

What is really there can differ from the forecast (§1.1: a resource provider "might over-book
resources ... or it might suffer equipment failures"). With an
:class:`~market.inputs.scenario.UncertaintySpec`:

- every ``period`` hours the availability is drawn afresh: the forecast plus an error of standard
  deviation ``sigma`` (see :mod:`market.core.forecast`), independently of other periods;
- ``overbooking`` b: the forecast stays ``capacity`` but availability is drawn around
  ``capacity * (1 - b)``; the tenants' estimator does not know it (it is a surprise);
- outages arrive at ``outage_rate`` per hour (Poisson), each taking ``outage_share`` of the pool
  for an exponential time of mean ``outage_duration`` hours; they are not forecast either.

A lease already granted is never taken back (no preemption): when availability falls below what
is leased, only new rentals wait. Tenants are told whenever availability changes, and whenever
another tenant's job ends and frees processors (:meth:`ResourceProviderAgent.freed`), so that
their schedulers run again (§3.3: "whenever ... the number of available resources changes").
Over-booking may leave a pool that can never hold a job its tenant committed (a surprise to the
tenant): ``most_available`` is the most it can ever offer, which the model checks jobs against.

Pricing by utilization (issue 18, our rule): with ``utilization_premium`` k > 0 the posted price
is the schedule's times ``1 + k x u``, ``u`` the share of the pool leased right now; a lease
pays the price posted when it was granted for its whole life (a posted-price contract), and
tenants plan on the price posted now (they do not forecast how it will move). k = 0 is a fixed
price schedule, as in the papers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import mesa
from mesa.time import Priority

from market.core.capacity import CapacityProfile, LeaseEnds
from market.core.forecast import AvailabilityModel, Forecast
from market.core.ledger import Kind
from market.core.rent import PriceSchedule
from market.inputs.scenario import UncertaintySpec

if TYPE_CHECKING:
    import numpy as np

    from agents.service_provider import ServiceProviderAgent
    from market.sim.model import GridMarket


#: A period's draw less likely than this counts as never happening (our choice): even at one
#: draw per second (the shortest period a scenario may have) it comes once in 30,000 years, so a
#: job waiting for it would stall the market (``market.sim.model.STALL_AFTER``) all but surely.
NEVER = 1e-12


@dataclass(slots=True)
class Lease:
    """``processors`` rented by ``tenant`` from ``start``, announced to end at ``until``."""

    id: int
    tenant: str
    job: int | None
    processors: int
    start: float
    until: float
    factor: float = 1.0  # the utilization price factor posted when it was granted


class ResourceProviderAgent(mesa.Agent):
    """Rents processors from a pool whose availability may fall short of its forecast."""

    def __init__(
        self,
        model: GridMarket,
        name: str,
        capacity: int,
        price: PriceSchedule | float,
        uncertainty: UncertaintySpec | None = None,
        rng: np.random.Generator | None = None,
        utilization_premium: float = 0.0,
    ) -> None:
        super().__init__(model)
        self.name = name
        self.capacity = capacity
        self.schedule = price if isinstance(price, PriceSchedule) else PriceSchedule.constant(price)
        self.price = self.schedule  # posted now (moves with utilization if priced by it)
        self.utilization_premium = utilization_premium
        self.uncertainty = uncertainty or UncertaintySpec()
        self.varies = self.uncertainty.varies  # whether availability ever differs from the pool
        self.availability_model = AvailabilityModel(
            capacity, self.uncertainty.sigma, self.uncertainty.distribution
        )
        # The most processors the pool can ever have for its tenants: its capacity, or the
        # largest draw around capacity x (1 - overbooking) more likely than NEVER a period
        # (outages only take processors away).
        self.most_available = capacity
        if self.varies:
            mean = capacity * (1.0 - self.uncertainty.overbooking)
            self.most_available = self.availability_model.most(mean, NEVER)
        self.tenants: list[ServiceProviderAgent] = []
        self.leases: dict[int, Lease] = {}
        self._ends = LeaseEnds(capacity)  # the leases' announced ends
        self.in_use = 0
        self.rented_hours = 0.0  # processor-hours of finished leases
        self.drawn = capacity  # this period's availability, before outages
        self.lost = 0  # processors out in outages now
        self.version = 0  # bumped whenever leases or availability change (tenants cache on it)
        self._next_lease = 0
        self._outage_size = max(1, round(self.uncertainty.outage_share * capacity))
        self._rng = rng if rng is not None else model.rng
        if self.varies:
            model.clock.at(model.time, self._new_period, Priority.HIGH)
            if self.uncertainty.outage_rate > 0:
                self._schedule_outage()

    # -- what tenants see ----------------------------------------------------------------------
    @property
    def availability(self) -> int:
        """Processors the pool has for its tenants right now (leased ones included)."""
        return max(self.drawn - self.lost, 0)

    def chance_of(self, processors: int) -> float:
        """The probability that a period's draw gives at least ``processors`` (1 if the pool
        never varies and has them)."""
        if not self.varies:
            return float(processors <= self.capacity)
        mean = self.capacity * (1.0 - self.uncertainty.overbooking)
        return self.availability_model.prob_at_least(mean, processors)

    def mean_wait(self, processors: int) -> float:
        """Hours until a period's draw offers ``processors``, on average: the period over
        :meth:`chance_of` (0 if the pool never varies and has them, inf if never)."""
        chance = self.chance_of(processors)
        if chance >= 1.0:
            return 0.0
        return self.uncertainty.period / chance if chance > 0 else math.inf

    def available(self) -> int:
        """Processors free to rent right now."""
        return max(self.availability - self.in_use, 0)

    def forecast(self, now: float) -> Forecast:
        """Availability now, the forecast (the full pool), its error model, and the leases."""
        period = self.uncertainty.period if self.varies else math.inf
        leases = tuple((lease.until, lease.processors) for lease in self.leases.values())
        return Forecast(
            now, period, float(self.capacity), self.availability_model, leases, self.availability
        )

    def free_profile(self, now: float) -> CapacityProfile:
        """Processors free from ``now`` on if every lease ends at its announced end: the
        forecast's :meth:`~market.core.forecast.Forecast.profile` for a pool that never varies (no
        uncertainty), from the leases' ends kept in order."""
        return self._ends.profile(now)

    def rent(
        self,
        tenant: str,
        processors: int,
        until: float,
        job: int | None = None,
        now: float | None = None,
    ) -> Lease | None:
        """Lease ``processors`` from now (``now``: the model's time, if the caller has it) until
        about ``until``; None if not that many are free."""
        if processors > self.available():
            return None
        if now is None:
            now = self.model.time
        lease = Lease(self._next_lease, tenant, job, processors, now, until)
        if self.utilization_premium:
            lease.factor = self.price_factor()
        self._next_lease += 1
        self.leases[lease.id] = lease
        self._ends.add(until, processors)
        self.in_use += processors
        self.version += 1
        self._post_price()
        return lease

    def price_factor(self) -> float:
        """The utilization price factor posted now: ``1 + premium x`` the share leased."""
        return 1.0 + self.utilization_premium * self.in_use / self.capacity

    def _post_price(self) -> None:
        """Post the price for the utilization now (nothing to do at a fixed price)."""
        if self.utilization_premium:
            self.price = self.schedule.scaled(self.price_factor())

    def release(self, lease: Lease, now: float | None = None) -> float:
        """End ``lease`` now (``now``: the model's time, if the caller has it); the tenant pays
        rent for the time it held the processors."""
        del self.leases[lease.id]
        self._ends.add(lease.until, -lease.processors)
        self.in_use -= lease.processors
        self.version += 1
        if now is None:
            now = self.model.time
        self.rented_hours += lease.processors * (now - lease.start)
        if self.utilization_premium:
            self._post_price()
            rent = lease.factor * self.schedule.cost(lease.processors, lease.start, now)
        else:
            rent = self.price.cost(lease.processors, lease.start, now)
        self.model.ledger.transfer(now, lease.tenant, self.name, rent, Kind.RENT, lease.job)
        return rent

    def freed(self, by: ServiceProviderAgent) -> None:
        """``by`` released processors now: every other tenant with waiting jobs runs its
        scheduler (§3.3: "whenever ... the number of available resources changes"); ``by``
        runs its own anyway. Told once per completion event, after all its releases."""
        for tenant in self.tenants:
            if tenant is not by:
                tenant.capacity_changed()

    # -- what really happens -------------------------------------------------------------------
    def _changed(self) -> None:
        self.version += 1
        for tenant in self.tenants:
            tenant.capacity_changed()

    def _new_period(self) -> None:
        if not self.model.running:
            return
        u = self.uncertainty
        mean = self.capacity * (1.0 - u.overbooking)
        self.drawn = self.availability_model.sample(mean, self._rng)
        self.model.clock.at(self.model.time + u.period, self._new_period, Priority.HIGH)
        self._changed()

    def _schedule_outage(self) -> None:
        delay = float(self._rng.exponential(1.0 / self.uncertainty.outage_rate))
        self.model.clock.at(self.model.time + delay, self._outage_starts)

    def _outage_starts(self) -> None:
        if not self.model.running:
            return
        u = self.uncertainty
        self.lost += self._outage_size
        end = self.model.time + float(self._rng.exponential(u.outage_duration))
        self.model.clock.at(end, self._outage_ends, Priority.HIGH)
        self._schedule_outage()
        self._changed()

    def _outage_ends(self) -> None:
        self.lost -= self._outage_size
        self._changed()
