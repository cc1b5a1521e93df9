"""The resource provider: rents out processors (Popovici & Wilkes SC'05 §1.1, §3.2).

It owns a pool of ``capacity`` processors and rents them at ``price`` per processor-hour. A
service provider asks for processors when a job is due (:meth:`rent`) and gives them back when it
ends (:meth:`release`), paying rent for the time it held them. To plan, a service provider asks
for a :meth:`forecast`: the processors expected free from now on, which here is the pool minus
the leases already granted (to any tenant) until their announced ends.

Capacity is certain here: the forecast is exact, and what is free now (:meth:`available`) is what
the leases leave. Uncertain capacity (forecast errors, over-booking, outages: §1.1, §3.5) replaces
:meth:`forecast` and :meth:`available` without changing how service providers use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import mesa

from market.capacity import CapacityProfile
from market.ledger import Kind

if TYPE_CHECKING:
    from market.model import GridMarket


@dataclass(slots=True)
class Lease:
    """``processors`` rented by ``tenant`` from ``start``, announced to end at ``until``."""

    id: int
    tenant: str
    job: int | None
    processors: int
    start: float
    until: float


class ResourceProviderAgent(mesa.Agent):
    """Rents processors from a fixed pool at a price per processor-hour."""

    def __init__(self, model: GridMarket, name: str, capacity: int, price: float) -> None:
        super().__init__(model)
        self.name = name
        self.capacity = capacity
        self.price = price
        self.leases: dict[int, Lease] = {}
        self.in_use = 0
        self.rented_hours = 0.0  # processor-hours of finished leases
        self._next_lease = 0

    def available(self) -> int:
        """Processors free right now."""
        return self.capacity - self.in_use

    def forecast(self, now: float) -> CapacityProfile:
        """Processors expected free from ``now`` on: the pool less every lease until its end."""
        profile = CapacityProfile(self.capacity, origin=now)
        for lease in self.leases.values():
            # A lease past its announced end is expected to end at any moment.
            if lease.until > now:
                profile.reserve(now, lease.until - now, lease.processors)
        return profile

    def rent(
        self, tenant: str, processors: int, until: float, job: int | None = None
    ) -> Lease | None:
        """Lease ``processors`` from now until about ``until``; None if not that many are free."""
        if processors > self.available():
            return None
        lease = Lease(self._next_lease, tenant, job, processors, self.model.time, until)
        self._next_lease += 1
        self.leases[lease.id] = lease
        self.in_use += processors
        return lease

    def release(self, lease: Lease) -> float:
        """End ``lease`` now; the tenant pays rent for the time it held the processors."""
        del self.leases[lease.id]
        self.in_use -= lease.processors
        now = self.model.time
        hours = lease.processors * (now - lease.start)
        self.rented_hours += hours
        rent = self.price * hours
        self.model.ledger.transfer(now, lease.tenant, self.name, rent, Kind.RENT, lease.job)
        return rent
