"""A provider's sales: the price terms it quotes and what the quotes won (a competing market).

A service provider that prices (:mod:`agents.policies.pricing`) turns each accepting admission
decision into a :class:`~market.core.quotes.PriceQuote`; a rule with a ``window`` reads the
outcomes of its last ``window`` accepting quotes (won: the client committed the job). The client
pays by the quote's terms at completion: the job's utility when the quote has no price (the
papers' contract), else the price less any penalty for lateness, and the difference between its
utility and that payment is its surplus. The figures the market metrics read (win rate, mean
price and markup of the quotes won) are here, computed as the results define them.
"""

from __future__ import annotations

import math
from collections import deque

from agents.policies.pricing import Pricing
from agents.records import JobRecord


class Sales:
    """The quotes of one provider under its ``pricing`` rule, and what they earned."""

    def __init__(self, pricing: Pricing) -> None:
        self.pricing = pricing
        self.quoted = 0  # accepting quotes made
        self.won = 0  # quotes the clients took
        self.won_price = 0.0  # sum of the expected prices of the quotes won
        self.won_markup = 0.0  # sum of the markups of the quotes won (those with a markup)
        self.won_markups = 0
        self.client_surplus = 0.0  # clients' utility at completion minus what they paid
        self._recent: deque[JobRecord] = deque(maxlen=max(pricing.window, 1))

    def quote(self, record: JobRecord, confidence: float) -> None:
        """Price the accepted job of ``record`` (its terms go in ``record.quote``), promising
        its completion with probability ``confidence``."""
        pricing, wins = self.pricing, ()
        if pricing.window:
            wins = [r.committed for r in self._recent]
            self._recent.append(record)
        record.quote = pricing.quote(record.job, record.decision, wins, confidence)
        self.quoted += 1

    def win(self, record: JobRecord) -> None:
        """The client took the quote of ``record``."""
        self.won += 1
        quote = record.quote
        if quote is not None:
            self.won_price += quote.expected_price(record.job)
            if quote.markup == quote.markup:  # (not NaN)
                self.won_markup += quote.markup
                self.won_markups += 1

    def payment(self, record: JobRecord, now: float) -> float:
        """What the client of ``record`` pays for its job ending ``now``, by the quote's terms."""
        quote, job = record.quote, record.job
        if quote is None or quote.price is None:  # the papers' contract: the utility
            return job.utility(now)
        paid = quote.payment(job, now)
        self.client_surplus += job.utility(now) - paid
        return paid

    @property
    def win_rate_pct(self) -> float:
        """The share of accepting quotes the clients took, % (NaN before any)."""
        return 100.0 * self.won / self.quoted if self.quoted else math.nan

    @property
    def mean_price(self) -> float:
        """The mean expected price of the quotes won (NaN before any)."""
        return self.won_price / self.won if self.won else math.nan

    @property
    def mean_markup(self) -> float:
        """The mean markup of the quotes won that had one (NaN without)."""
        return self.won_markup / self.won_markups if self.won_markups else math.nan
