"""The client: submits a stream of jobs to service providers and pays for them at completion.

Each job is offered at its arrival time to the providers that are ``open``, by the scenario's
``offer_rule`` (docs/papers/market.md, docs/guide/scenarios.md): ``best_quote`` (default when every
provider charges the job's utility) takes the accepting provider promising the highest utility,
ties to the first listed; ``best_surplus`` (default when any prices otherwise) takes the highest
expected surplus, ties drawn uniformly on the client's own stream, and declines them all if
every surplus is negative (our choice: at exactly 0 it buys, as the papers' clients do);
``first_accept`` asks them in order; ``random`` asks one, drawn with the model's generator, and
a rejection loses the job. The provider settles payment at completion by the quote's terms
(:meth:`market.core.quotes.PriceQuote.payment`; the job's utility, by default).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from agents.participant import Participant
from market.core.jobs import Job
from market.core.quotes import PriceQuote

if TYPE_CHECKING:
    from agents.provider import Provider
    from market.sim.model import GridMarket

OFFER_RULES = ("best_quote", "best_surplus", "first_accept", "random")
TIE = 1e-9  # florins: surpluses this close are equal (best_surplus)


def default_offer_rule(providers: Sequence[Provider]) -> str:
    """``best_surplus`` if any of ``providers`` prices other than by utility, else
    ``best_quote`` (the papers' rule)."""
    for provider in providers:
        sales = provider.sales
        if sales is not None and not sales.pricing.charges_utility:
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


def terms(provider: Provider, job: Job, decision) -> PriceQuote:
    """The price terms ``provider`` quoted for ``job`` (the papers' contract, the utility at
    completion, for a provider that does not price)."""
    found = provider.terms(job)
    return found if found is not None else PriceQuote(None, decision.end)


class ClientAgent(Participant):
    """Submits jobs at their arrival times to its service providers (a participant: the market
    waits until it has submitted every job)."""

    def __init__(
        self,
        model: GridMarket,
        name: str,
        jobs: Iterable[Job],
        providers: Sequence[Provider],
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
        self._advance(model.clock.now)

    @property
    def exhausted(self) -> bool:
        """No more jobs to submit."""
        return self._next is None

    @property
    def idle(self) -> bool:
        """Every job submitted (what it submitted is its providers' work)."""
        return self._next is None

    def _advance(self, now: float) -> None:
        """Take the next job of the stream and schedule its arrival (not before ``now``)."""
        upcoming = self._next = next(self._stream, None)
        if upcoming is not None:
            at = upcoming.arrival
            self.model.clock.at(at if at > now else now, self._arrive)

    def _arrive(self) -> None:
        job = self._next
        self._advance(self.model.clock.now)
        self.submitted += 1
        self.model.note_arrival(job)
        if self.offer(job) is not None:
            self.placed += 1
        if self._next is None:  # the market can only have finished once this client has
            self.model.check_finished()

    def offer(self, job: Job) -> Provider | None:
        """Offer ``job`` now by the offer rule; returns the provider that took it, if any."""
        providers = self.providers
        for p in providers:
            if not p.open:  # (a provider that enters later: not yet)
                providers = [p for p in providers if p.open]
                if not providers:
                    return None
                break
        if self.offer_rule == "best_surplus":
            return self._shop(job, providers)
        if self.offer_rule == "random":
            candidates = [providers[int(self.model.rng.integers(len(providers)))]]
        else:
            candidates = providers
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

    def _shop(self, job: Job, providers: Sequence[Provider]) -> Provider | None:
        """``best_surplus``: the quote of highest expected surplus (ties at random), or none if
        every surplus is negative."""
        offers = []
        for provider in providers:
            decision = provider.quote(job)
            if decision.accepted:
                offers.append((terms(provider, job, decision).expected_surplus(job), provider))
        if not offers:
            return None
        pick = best_surplus([surplus for surplus, _ in offers], self.choice_rng)
        if pick is None:
            self.declined += 1
            return None
        chosen = offers[pick][1]
        chosen.commit(job)
        return chosen
