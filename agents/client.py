"""The client: submits a stream of jobs to service providers and pays for them at completion.

Each job is offered at its arrival time. With several service providers the client follows its
offer rule (the scenario's ``offer_rule``):

- ``best_quote`` (default): every provider quotes (runs its admission control); among those that
  accept, the client takes the one promising the highest utility, i.e. the earliest predicted
  completion; ties go to the provider listed first.
- ``first_accept``: the providers are asked one at a time, in the scenario's order, and the first
  that accepts gets the job.
- ``random``: one provider, drawn uniformly with the model's random generator, is asked; if it
  rejects, the job is lost.

Payment is settled by the service provider when the job completes (see
:meth:`market.ledger.Ledger.settle`): the client pays the job's utility at that time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import mesa

from market.clock import handler
from market.jobs import Job

if TYPE_CHECKING:
    from agents.service_provider import ServiceProviderAgent
    from market.model import GridMarket

OFFER_RULES = ("best_quote", "first_accept", "random")


class ClientAgent(mesa.Agent):
    """Submits jobs at their arrival times to its service providers."""

    def __init__(
        self,
        model: GridMarket,
        name: str,
        jobs: Iterable[Job],
        providers: Sequence[ServiceProviderAgent],
        offer_rule: str = "best_quote",
    ) -> None:
        super().__init__(model)
        if offer_rule not in OFFER_RULES:
            raise ValueError(f"unknown offer rule {offer_rule!r} (known: {', '.join(OFFER_RULES)})")
        self.name = name
        self.providers = list(providers)
        self.offer_rule = offer_rule
        self.submitted = 0
        self.placed = 0
        self._stream = iter(jobs)
        self._on_arrive = handler(self._arrive)  # kept: see market.clock.handler
        self._next: Job | None = None
        self._advance()

    @property
    def exhausted(self) -> bool:
        """No more jobs to submit."""
        return self._next is None

    def _advance(self) -> None:
        self._next = next(self._stream, None)
        if self._next is not None:
            self.model.clock.at(max(self._next.arrival, self.model.time), self._on_arrive)

    def _arrive(self) -> None:
        job = self._next
        self._advance()
        self.submitted += 1
        self.model.note_arrival(job)
        if self.offer(job) is not None:
            self.placed += 1
        if self._next is None:  # the market can only have finished once this client has
            self.model.check_finished()

    def offer(self, job: Job) -> ServiceProviderAgent | None:
        """Offer ``job`` by the offer rule; returns the provider that took it, if any."""
        if self.offer_rule == "random":
            candidates = [self.providers[int(self.model.rng.integers(len(self.providers)))]]
        else:
            candidates = self.providers
        chosen, best = None, None
        for provider in candidates:
            decision = provider.quote(job)
            if not decision.accepted:
                continue
            if self.offer_rule != "best_quote":
                chosen = provider
                break
            promised = decision.expected_value if decision.expected_value is not None else 0.0
            if best is None or promised > best:
                chosen, best = provider, promised
        if chosen is not None:
            chosen.commit(job)
        return chosen
