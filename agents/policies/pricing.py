"""Pricing policies: what a service provider charges for a job it accepts (the competing market).

No paper prices a job apart from its value (the profit paper defers competition to §7); these
are the first rules an economist would try. Each is pure: the job, its admission
:class:`~agents.policies.base.Decision` and the provider's recent quote outcomes in, a
:class:`~market.core.quotes.PriceQuote` out; ``rent`` is the rent the admission plan predicts.
``utility`` (the papers' contract), ``cost_plus`` (``rent x (1 + markup)``), ``urgency`` (plus
``premium`` hours of the job's decay rate: our form), ``opportunity`` (``(rent + displaced) x
(1 + markup)``, ``displaced`` PositiveOpportunity's loss to the others), ``adaptive`` (a markup
moving with the win rate of the last ``window`` quotes around ``target``, in
``[min_markup, max_markup]``). A job accepted without a predicted completion pays its utility;
markups are >= 0 and may change during a run (:meth:`Pricing.with_markup`).
"""

from __future__ import annotations

import copy
import functools
import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from agents.policies.base import Decision
from agents.policies.registry import register_pricing
from market.core.jobs import Job
from market.core.quotes import PriceQuote
from market.core.rent import shared_zero


def _non_negative(name: str, value: float) -> float:
    if not value >= 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return float(value)


def predicted_rent(decision: Decision) -> float:
    """The rent the admission plan predicts for the job: its value less its profit there."""
    if decision.expected_value is None or decision.expected_profit is None:
        return 0.0
    return shared_zero(decision.expected_value - decision.expected_profit)


@functools.cache
def _utility_terms(confidence: float) -> PriceQuote:
    """The terms of a job accepted without a plan: its utility at completion. One shared quote
    per confidence (quotes are immutable; a trace replay makes one per job, and the cyclic
    collector would walk every one of them, a named tuple staying tracked)."""
    return PriceQuote(None, None, confidence)


class Pricing(ABC):
    """A pricing rule with a ``markup`` (>= 0) over the provider's cost."""

    name: ClassVar[str] = ""
    #: How many recent quote outcomes the rule reads (0: none).
    window: int = 0

    def __init__(self, markup: float = 0.0) -> None:
        self.markup = _non_negative("markup", markup)

    @property
    def charges_utility(self) -> bool:
        """Whether the client pays its utility (the papers' contract) rather than a price."""
        return False

    def with_markup(self, markup: float) -> Pricing:
        """The same rule with another base markup (>= 0)."""
        other = copy.copy(self)
        other.markup = _non_negative("markup", markup)
        return other

    def quote(
        self, job: Job, decision: Decision, wins: Sequence[bool] = (), confidence: float = 1.0
    ) -> PriceQuote:
        """The terms for ``job`` (accepted by ``decision``); ``wins`` are the outcomes of the
        provider's recent accepted quotes, oldest first; ``confidence`` the probability with
        which it plans to keep the promised completion (``1 - risk`` on an uncertain pool)."""
        if decision.end is None:  # no plan to price on (EASY admitting all): the utility
            return _utility_terms(confidence)
        rent = predicted_rent(decision)
        price, markup = self.price(job, decision, rent, wins)
        return PriceQuote(price, decision.end, confidence, rent, markup)

    @abstractmethod
    def price(
        self, job: Job, decision: Decision, rent: float, wins: Sequence[bool]
    ) -> tuple[float | None, float]:
        """``(price, markup applied)``; a price of None charges the utility at completion."""


@register_pricing("utility")
class UtilityPricing(Pricing):
    """The client pays the job's utility at completion (Popovici & Wilkes SC'05 §3)."""

    def __init__(self) -> None:
        super().__init__(0.0)

    @property
    def charges_utility(self) -> bool:
        return True

    def with_markup(self, markup: float) -> Pricing:
        raise ValueError("utility pricing has no markup")

    def price(self, job, decision, rent, wins):
        return None, math.nan


@register_pricing("cost_plus")
class CostPlus(Pricing):
    """``rent x (1 + markup)``."""

    def __init__(self, markup: float = 0.2) -> None:
        super().__init__(markup)

    def price(self, job, decision, rent, wins):
        return rent * (1.0 + self.markup), self.markup


@register_pricing("urgency")
class Urgency(Pricing):
    """``rent x (1 + markup) + premium x`` the job's decay rate at the promised completion."""

    def __init__(self, markup: float = 0.2, premium: float = 1.0) -> None:
        super().__init__(markup)
        self.premium = _non_negative("premium", premium)

    def price(self, job, decision, rent, wins):
        decay = job.utility.decay_rate(decision.end) if decision.end is not None else 0.0
        return rent * (1.0 + self.markup) + self.premium * decay, self.markup


@register_pricing("opportunity")
class Opportunity(Pricing):
    """``(rent + displaced profit) x (1 + markup)``: the opportunity cost as a price floor."""

    def __init__(self, markup: float = 0.1) -> None:
        super().__init__(markup)

    def price(self, job, decision, rent, wins):
        displaced = max(decision.displaced or 0.0, 0.0)
        return (rent + displaced) * (1.0 + self.markup), self.markup


@register_pricing("adaptive")
class Adaptive(Pricing):
    """Cost plus a markup that follows the recent win rate, bounded (see the module)."""

    def __init__(
        self,
        markup: float = 0.2,
        sensitivity: float = 1.0,
        target: float = 0.5,
        window: int = 20,
        min_markup: float = 0.0,
        max_markup: float = 2.0,
    ) -> None:
        super().__init__(markup)
        self.sensitivity = _non_negative("sensitivity", sensitivity)
        if not 0.0 <= target <= 1.0:
            raise ValueError(f"target must be a win rate in [0, 1], got {target}")
        if window < 1:
            raise ValueError(f"window must be >= 1, got {window}")
        self.min_markup = _non_negative("min_markup", min_markup)
        if not max_markup >= self.min_markup:
            raise ValueError(f"max_markup must be >= min_markup ({min_markup}), got {max_markup}")
        self.target, self.window, self.max_markup = target, window, float(max_markup)

    def current_markup(self, wins: Sequence[bool]) -> float:
        """The markup after the outcomes ``wins`` (only the last ``window`` count)."""
        recent = wins[-self.window :]
        rate = sum(recent) / len(recent) if recent else self.target
        raw = self.markup + self.sensitivity * (rate - self.target)
        return min(max(raw, self.min_markup), self.max_markup)

    def price(self, job, decision, rent, wins):
        markup = self.current_markup(wins)
        return rent * (1.0 + markup), markup
