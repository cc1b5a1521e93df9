"""The resource provider: rents out processors (Popovici & Wilkes SC'05 §1.1, §3.2).

It rents a pool of ``capacity`` processors at a price schedule; tenants :meth:`rent` them when a
job is due and :meth:`release` them at its end, paying for the time held, and plan on its
:meth:`forecast` (availability now, the forecast with its error model, the leases). With an
``UncertaintySpec`` availability is drawn afresh every ``period`` (:mod:`market.core.forecast`),
around ``capacity x (1 - overbooking)``, less Poisson outages: surprises to the tenants (§1.1).
A lease is never taken back; tenants are told when availability changes and when another's job
frees processors (:meth:`freed`, §3.3). Our rule for ``utilization_premium`` k: the posted price
is the schedule's times ``1 + k x u``, ``u`` the share leased now, fixed for a lease's life.
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
from market.core.rent import PriceSchedule, shared_zero

if TYPE_CHECKING:
    import numpy as np

    from agents.provider import Provider
    from market.inputs.scenario import UncertaintySpec
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
        if uncertainty is None:
            from market.inputs.scenario import UncertaintySpec

            uncertainty = UncertaintySpec()
        self.uncertainty = uncertainty
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
        self.tenants: list[Provider] = []
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

    def ends_between(self, after: float, until: float) -> bool:
        """Whether a lease is announced to end in ``(after, until]``: the free profile from
        ``until`` on differs from the one from ``after`` on (for a pool that never varies)."""
        return self._ends.ends_between(after, until)

    def rent(
        self, tenant: str, processors: int, until: float, job: int | None = None
    ) -> Lease | None:
        """Lease ``processors`` from now until about ``until``; None if not that many are
        free."""
        if processors > self.available():
            return None
        lease = Lease(self._next_lease, tenant, job, processors, self.model.clock.now, until)
        if self.utilization_premium:
            lease.factor = self.price_factor()
        self._next_lease += 1
        self.leases[lease.id] = lease
        self._ends.add(until, processors)
        self.in_use += processors
        self.version += 1
        if self.utilization_premium:
            self._post_price()
        return lease

    def price_factor(self) -> float:
        """The utilization price factor posted now: ``1 + premium x`` the share leased."""
        return 1.0 + self.utilization_premium * self.in_use / self.capacity

    def _post_price(self) -> None:
        """Post the price for the utilization now (nothing to do at a fixed price)."""
        if self.utilization_premium:
            self.price = self.schedule.scaled(self.price_factor())

    def release(self, lease: Lease) -> float:
        """End ``lease`` now; the tenant pays rent for the time it held the processors."""
        del self.leases[lease.id]
        self._ends.add(lease.until, -lease.processors)
        self.in_use -= lease.processors
        self.version += 1
        now = self.model.clock.now
        self.rented_hours += lease.processors * (now - lease.start)
        if self.utilization_premium:
            self._post_price()
            rent = lease.factor * self.schedule.cost(lease.processors, lease.start, now)
        else:
            rent = self.price.cost(lease.processors, lease.start, now)
        rent = shared_zero(rent)  # (a free pool's: one float, not one per job)
        self.model.ledger.transfer(now, lease.tenant, self.name, rent, Kind.RENT, lease.job)
        return rent

    def freed(self, by: Provider) -> None:
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
