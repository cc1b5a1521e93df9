"""A service provider that uses a batch site as its resource provider (VARQ TR 2007-09 §2.3, §3):
it rents nothing, submits every job it admits to the site's queue, and promises a completion
time with a probability from the site's QBETS.

Each shape n of a job is quoted at ``now + B + r`` (``r`` its runtime, ``B`` QBETS's bound on the
``probability``-quantile of an (n, r) job's delay); the quote is the shape with the highest value
there less the site's charge for ``r`` node-hours, and the job is admitted if that is positive
and a bound exists (our rule). A promise is kept if the job ends by it. It is not a
:class:`agents.service_provider.ServiceProviderAgent`; ``same_jobs_as`` gives it a client's job
stream so a scenario can show it beside a provider renting a pool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mesa

from agents.batch_site import BatchSiteAgent, SiteJob
from market.core.jobs import Job

if TYPE_CHECKING:
    from market.sim.model import GridMarket


@dataclass(slots=True, frozen=True)
class SiteQuote:
    """A promise: ``processors``, completion by ``completion`` with ``probability``, for an
    expected ``profit`` (value at the promised completion less the site's charge)."""

    processors: int
    completion: float
    probability: float
    profit: float


def quote_on_site(predictor, job: Job, now: float, probability: float, price: float):
    """The best :class:`SiteQuote` over ``job``'s shapes, or None if no shape has a bound."""
    best = None
    for n in job.shapes:
        runtime = job.predicted_runtime(n)
        bound = predictor.bound(n, runtime, probability)
        if not math.isfinite(bound):
            continue
        completion = now + bound + runtime
        profit = job.utility(completion) - price * n * runtime
        p = predictor.probability(n, runtime, bound)
        if best is None or profit > best.profit:
            best = SiteQuote(n, completion, p, profit)
    return best


class SiteBrokerAgent(mesa.Agent):
    """Admits jobs by QBETS quotes and runs them at a batch site (see the module docstring)."""

    def __init__(
        self,
        model: GridMarket,
        name: str,
        site: BatchSiteAgent,
        jobs: list[Job],
        probability: float = 0.9,
        price: float = 0.0,
    ) -> None:
        super().__init__(model)
        self.name = name
        self.site = site
        self.probability = probability
        self.price = price
        self.jobs = jobs
        self.quotes: dict[int, SiteQuote | None] = {}
        self.submitted: dict[int, tuple[Job, SiteJob]] = {}
        self._next = 0
        site.users.append(self)
        self._schedule()

    @property
    def exhausted(self) -> bool:
        """Every job offered."""
        return self._next >= len(self.jobs)

    def _schedule(self) -> None:
        if self._next < len(self.jobs):
            at = max(self.jobs[self._next].arrival, self.model.time)
            self.model.clock.at(at, self._arrive)

    def _arrive(self) -> None:
        job = self.jobs[self._next]
        self._next += 1
        now = self.model.time
        quote = quote_on_site(self.site.predictor, job, now, self.probability, self.price)
        if quote is not None and quote.profit <= 0:
            quote = None
        self.quotes[job.id] = quote
        if quote is not None:
            n = quote.processors
            runtime = job.runtime(n)
            request = max(job.predicted_runtime(n), runtime)  # exact estimates: the runtime
            site_job = SiteJob(self.site.new_id(), n, runtime, request, owner=self.name)
            self.submitted[job.id] = (job, site_job)
            self.site.submit(site_job)
        self._schedule()

    def summary(self) -> dict[str, Any]:
        """Offered, admitted, promises kept, money."""
        done = [(job, sj) for job, sj in self.submitted.values() if sj.end is not None]
        kept = [sj.end <= self.quotes[job.id].completion + 1e-9 for job, sj in done]
        revenue = math.fsum(job.utility(sj.end) for job, sj in done)
        charge = math.fsum(self.price * sj.occupied for _, sj in done)
        quotes = [q for q in self.quotes.values() if q is not None]
        return {
            "provider": self.name,
            "scheduler": "site:easy",
            "admission": f"qbets_quote(p={self.probability:g})",
            "offered": len(self.quotes),
            "accepted": len(self.submitted),
            "accepted_pct": 100.0 * len(self.submitted) / len(self.quotes) if self.quotes else 0,
            "completed": len(done),
            "revenue": revenue,
            "rent": charge,
            "profit": revenue - charge,
            "profit_rate": (revenue - charge) / now if (now := self.model.time) > 0 else math.nan,
            "mean_processors": (
                math.fsum(sj.nodes for _, sj in done) / len(done) if done else math.nan
            ),
            "promised_probability_pct": (
                100.0 * math.fsum(q.probability for q in quotes) / len(quotes)
                if quotes
                else math.nan
            ),
            "promises_kept_pct": 100.0 * sum(kept) / len(kept) if kept else math.nan,
        }
