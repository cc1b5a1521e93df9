"""The provider interface: what every service provider offers clients, the model and the results.

A provider is offered jobs by clients: :meth:`Provider.quote` runs its admission (recorded in a
:class:`~agents.records.JobRecord` whatever the client does), :meth:`Provider.commit` takes the
job; it runs its jobs on processors rented from its resource providers (``pools``, the first
one by default) and is paid at completion. Two kinds implement it: the planning
:class:`~agents.service_provider.ServiceProviderAgent` (Popovici & Wilkes SC'05 and the QoPS
family) and the deadline clusters of :mod:`agents.cluster_provider` (Yeo & Buyya ICPP'06).

What they share is here: the records, the counts the market reads (``accepted``, ``busy``,
``running``), the money (read from the ledger), and the participant interface (idle once
nothing is queued or running). ``sales`` is None for a provider that quotes no prices (a
deadline cluster: its clients pay the job's utility, as in the paper).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agents.participant import Participant
from agents.records import JobRecord
from agents.resource_provider import ResourceProviderAgent
from market.core.ledger import Kind

if TYPE_CHECKING:
    from agents.policies.base import Admission, Decision, Plan
    from agents.policies.libra import ClusterPolicy
    from agents.sales import Sales
    from market.core.jobs import Job
    from market.core.quotes import PriceQuote
    from market.core.timeshare import TimeSharedCluster
    from market.sim.model import GridMarket


class Provider(Participant):
    """A service provider: admits, runs and is paid for jobs (see the module docstring)."""

    #: Its price quotes and what they won (None: it quotes no prices).
    sales: Sales | None = None
    #: The admission policy it decides with (None: a deadline cluster's policy decides).
    admission: Admission | None = None
    #: The deadline cluster policy it runs (None: a planning provider).
    policy: ClusterPolicy | None = None
    #: Its time-shared cluster (None: it space-shares processors).
    cluster: TimeSharedCluster | None = None

    def __init__(
        self,
        model: GridMarket,
        name: str,
        pools: ResourceProviderAgent | Sequence[ResourceProviderAgent],
    ) -> None:
        super().__init__(model)
        self.name = name
        self.pools = [pools] if isinstance(pools, ResourceProviderAgent) else list(pools)
        self.resource_provider = self.pools[0]  # the first (the only one, as in the papers)
        for pool in self.pools:
            pool.tenants.append(self)
        self.records: dict[int, JobRecord] = {}  # every job offered, by id
        self.open = True  # takes quotes (a provider may enter the market later)
        self.accepted = 0  # jobs committed to it
        self.busy = 0  # processors held now
        self.running = 0  # jobs running now

    # -- what a client sees --------------------------------------------------------------------
    @abstractmethod
    def quote(self, job: Job) -> Decision:
        """Run admission on ``job`` now; the decision is recorded whatever the client does."""

    @abstractmethod
    def commit(self, job: Job) -> None:
        """The client gives ``job`` to this provider (after an accepting :meth:`quote`)."""

    def terms(self, job: Job) -> PriceQuote | None:
        """The price terms quoted for ``job`` (None: not quoted here, or the job's utility)."""
        record = self.records.get(job.id)
        return record.quote if record is not None else None

    def enter(self) -> None:
        """Open for quotes from now on (a provider entering the market, scenario ``enters``)."""
        self.open = True

    def set_markup(self, markup: float) -> None:
        """Price from now on with base markup ``markup`` (>= 0; the dashboard's market view)."""
        if self.sales is None:
            raise ValueError(f"{self.name} quotes no prices")
        self.sales.pricing = self.sales.pricing.with_markup(markup)

    # -- its work ------------------------------------------------------------------------------
    @property
    @abstractmethod
    def queue(self) -> list[Job]:
        """Committed jobs waiting to start."""

    @abstractmethod
    def least_need(self, job: Job) -> int:
        """The fewest processors ``job`` can start on here."""

    @property
    def last_plan(self) -> Plan | None:
        """The plan of its latest scheduler run (None: it does not plan)."""
        return None

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing running."""
        return not self.running and not self.queue

    def capacity_changed(self) -> None:
        """A pool's availability changed (its resource provider tells every tenant)."""

    def why_waiting(self) -> str | None:
        """Its queue, the narrowest job's need and its pool's state, if jobs wait (each job's
        own pool, for a provider renting from several)."""
        queue = self.queue
        if not queue:
            return None
        pools = self.pools

        def pool_of(job):
            return pools[self.records[job.id].pool]

        job = min(queue, key=lambda j: (self.least_need(j), j.id))
        rp, need = pool_of(job), self.least_need(job)
        why = (
            f"{self.name} has {len(queue)} jobs waiting (the narrowest needs {need} "
            f"processors) and {rp.name} has {rp.availability} of its {rp.capacity} "
            f"processors available"
        )
        varying = [j for j in queue if pool_of(j).varies]
        if varying:  # the likely cause: a job its pool hardly ever has room for
            job = min(varying, key=lambda j: pool_of(j).chance_of(self.least_need(j)))
            other, n = pool_of(job), self.least_need(job)
            u, named = other.uncertainty, "" if other is rp else f"{other.name} "
            why += (
                f" ({named}over-booked by {u.overbooking:.0%}, {other.lost} lost in outages "
                f"now; job {job.id} needs {n}, which a {u.period:g}-hour period offers with "
                f"probability {other.chance_of(n):.3g})"
            )
        return why

    # -- money ---------------------------------------------------------------------------------
    @property
    def revenue(self) -> float:
        """Payments received minus penalties paid."""
        ledger = self.model.ledger
        return ledger.received(self.name, Kind.PAYMENT) - ledger.paid(self.name, Kind.PENALTY)

    @property
    def rent_paid(self) -> float:
        """Rent paid so far (for finished leases)."""
        return self.model.ledger.paid(self.name, Kind.RENT)

    @property
    def profit(self) -> float:
        """Revenue minus rent so far."""
        return self.revenue - self.rent_paid
