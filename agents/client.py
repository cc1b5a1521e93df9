"""The client: submits a stream of jobs to service providers and pays for them at completion.

Each job is offered at its arrival time. With several service providers the client follows its
offer rule (the scenario's ``offer_rule``):

- ``best_quote`` (default when every provider charges the job's utility): every provider quotes
  (runs its admission control); among those that accept, the client takes the one promising the
  highest utility, i.e. the earliest predicted completion; ties go to the provider listed first.
- ``best_surplus`` (default when any of its providers prices otherwise, issue 18): every
  provider quotes a price (:class:`~market.core.quotes.PriceQuote`); the client takes the highest
  expected surplus, its utility at the promised completion minus the price; ties are broken
  uniformly at random (its own random stream), so that identical providers share the market.
  If every surplus is negative it declines them all (counted in ``declined``); at a surplus of
  exactly 0 it buys (an indifferent client buys, as the papers' clients, who pay their full
  utility, do).
- ``first_accept``: the providers are asked one at a time, in the scenario's order, and the first
  that accepts gets the job.
- ``random``: one provider, drawn uniformly with the model's random generator, is asked; if it
  rejects, the job is lost.

Only providers that are ``open`` are asked (one that enters the market later is not, before).
Payment is settled by the service provider when the job completes (see
:meth:`market.core.ledger.Ledger.settle`): the client pays by the quote's terms
(:meth:`market.core.quotes.PriceQuote.payment`; the job's utility at that time, by default).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import mesa
import numpy as np

from market.core.jobs import Job
from market.core.quotes import PriceQuote

if TYPE_CHECKING:
    from agents.service_provider import ServiceProviderAgent
    from market.sim.model import GridMarket

OFFER_RULES = ("best_quote", "best_surplus", "first_accept", "random")
TIE = 1e-9  # florins: surpluses this close are equal (best_surplus)


def default_offer_rule(providers: Sequence[object]) -> str:
    """``best_surplus`` if any of ``providers`` prices other than by utility, else
    ``best_quote`` (the papers' rule)."""
    for provider in providers:
        pricing = getattr(provider, "pricing", None)
        if pricing is not None and not pricing.charges_utility:
            return "best_surplus"
    return "best_quote"


def best_surplus(surpluses: Sequence[float], rng: np.random.Generator) -> int | None:
    """The index of the highest expected surplus (ties within :data:`TIE` drawn uniformly with
    ``rng``, which is drawn from only then), or None when every surplus is negative."""
    best = max(surpluses)
    if best < 0:
        return None
    tied = [i for i, surplus in enumerate(surpluses) if surplus >= best - TIE]
    return tied[0] if len(tied) == 1 else tied[int(rng.integers(len(tied)))]


def terms(provider: object, job: Job, decision) -> PriceQuote:
    """The price terms ``provider`` quoted for ``job`` (the papers' contract, the utility at
    completion, for a provider that does not price)."""
    quoted = getattr(provider, "terms", None)
    if quoted is not None:
        found = quoted(job)
        if found is not None:
            return found
    return PriceQuote(None, decision.end)


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
        self.declined = 0  # jobs some provider accepted but whose every quote it declined
        self.choice_rng = model.rng  # tie-breaks (best_surplus); the model gives it its own
        self._stream = iter(jobs)
        self._next: Job | None = None
        self._advance()

    @property
    def exhausted(self) -> bool:
        """No more jobs to submit."""
        return self._next is None

    def _advance(self, now: float | None = None) -> None:
        """Take the next job of the stream and schedule its arrival (not before ``now``)."""
        upcoming = self._next = next(self._stream, None)
        if upcoming is not None:
            if now is None:
                now = self.model.time
            at = upcoming.arrival
            self.model.clock.at(at if at > now else now, self._arrive)

    def _arrive(self) -> None:
        job, now = self._next, self.model.clock.now
        self._advance(now)
        self.submitted += 1
        self.model.note_arrival(job, now)
        if self.offer(job, now) is not None:
            self.placed += 1
        if self._next is None:  # the market can only have finished once this client has
            self.model.check_finished()

    def withdrawn(self, job: Job) -> None:
        """The provider that took ``job`` gave it back unrun (an EDF cluster rejecting it when
        it selects it, Yeo & Buyya §4): it counts as rejected, not placed."""
        self.placed -= 1

    def offer(self, job: Job, now: float | None = None) -> ServiceProviderAgent | None:
        """Offer ``job`` by the offer rule (``now``: the model's time, if the caller has it);
        returns the provider that took it, if any."""
        providers = self.providers
        for p in providers:
            if not getattr(p, "open", True):  # (a provider that enters later: not yet)
                providers = [p for p in providers if getattr(p, "open", True)]
                if not providers:
                    return None
                break
        if self.offer_rule == "best_surplus":
            return self._shop(job, providers, now)
        if self.offer_rule == "random":
            candidates = [providers[int(self.model.rng.integers(len(providers)))]]
        else:
            candidates = providers
        chosen, best = None, None
        for provider in candidates:
            decision = provider.quote(job, now)
            if not decision.accepted:
                continue
            if self.offer_rule != "best_quote":
                chosen = provider
                break
            promised = decision.expected_value if decision.expected_value is not None else 0.0
            if best is None or promised > best:
                chosen, best = provider, promised
        if chosen is not None:
            chosen.commit(job, now)
        return chosen

    def _shop(self, job: Job, providers: Sequence[ServiceProviderAgent], now: float | None):
        """``best_surplus``: the quote of highest expected surplus (ties at random), or none if
        every surplus is negative."""
        offers = []
        for provider in providers:
            decision = provider.quote(job, now)
            if decision.accepted:
                offers.append((terms(provider, job, decision).expected_surplus(job), provider))
        if not offers:
            return None
        pick = best_surplus([surplus for surplus, _ in offers], self.choice_rng)
        if pick is None:
            self.declined += 1
            return None
        chosen = offers[pick][1]
        chosen.commit(job, now)
        return chosen
