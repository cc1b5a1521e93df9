"""Price quotes: what a service provider charges for a job, and what the client pays when it ends.

The five papers let the client pay the job's utility at completion (Popovici & Wilkes SC'05 §3:
"the client pays the value of the utility function at completion"). The competing market
(issue 18) separates the **price** from the **value**: a provider quotes a price ``P`` with a
promised completion ``T`` (and the probability it plans to keep it, ``1 - risk`` under
uncertainty, §3.5), and the client's **surplus** is its utility at completion minus what it pays.

The penalty (our choice, where no paper says): a late job costs the provider exactly what the
delay costs the client, by the job's own utility function, and no more than its penalty bound.
Completing at ``t`` pays

    P - max(0, u(T) - u(t)),   never below min(P, u_min)     (u_min: the penalty bound)

so the contracted price holds up to the promise, then decays with the job's own decay rate, and
bottoms out at the job's penalty bound (a negative payment is a penalty paid to the client). The
client's surplus is thus protected at ``u(T) - P`` until the bound is reached, and a provider's
scheduler, which ranks jobs by their utility, still sees the true marginal cost of lateness.

A quote with ``price=None`` is the papers' contract (``utility`` pricing): the client pays
``u(t)``, whenever the job ends; ``u(T) - (u(T) - u(t))`` is the same number, so it is the
special case ``P = u(T)``, and its surplus is always 0.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from market.core.jobs import Job


class PriceQuote(NamedTuple):
    """A provider's terms for one job.

    Attributes:
        price: the contracted price ``P`` (None: the job's utility at completion).
        promised: the promised completion ``T`` (the admission plan's predicted end; None if the
            job was not placed).
        confidence: the probability the provider planned to keep the promise (``1 - risk``; 1
            when it plans on a certain pool or is uncertainty-oblivious).
        rent: the rent its plan predicts for the job (the provider's direct cost).
        markup: the markup over that cost the pricing rule applied (NaN for ``utility``).
    """

    price: float | None
    promised: float | None
    confidence: float = 1.0
    rent: float = 0.0
    markup: float = math.nan

    def expected_price(self, job: Job) -> float:
        """What the client expects to pay: ``P``, or the utility at the promised completion."""
        if self.price is not None:
            return self.price
        return job.utility(self.promised) if self.promised is not None else 0.0

    def expected_surplus(self, job: Job) -> float:
        """The client's surplus if the promise is kept: ``u(T) - P`` (0 for ``utility``)."""
        if self.price is None or self.promised is None:
            return 0.0
        return job.utility(self.promised) - self.price

    def payment(self, job: Job, t: float) -> float:
        """What the client pays if the job completes at ``t`` (negative: a penalty it receives);
        see the module docstring."""
        utility = job.utility
        if self.price is None:
            return utility(t)
        price = self.price
        if self.promised is None or t <= self.promised:
            return price
        late = utility(self.promised) - utility(t)
        return max(price - late, min(price, utility.penalty_bound))


def surplus(job: Job, paid: float, end: float) -> float:
    """The client's surplus from ``job`` completed at ``end`` for ``paid``: utility minus price."""
    return job.utility(end) - paid
