"""Price quotes: what a service provider charges for a job, and what the client pays when it ends.

The papers let the client pay the job's utility at completion (SC'05 §3). The competing market
separates price from value: a provider quotes a price ``P``, a promised completion ``T`` and the
probability it plans to keep it (``1 - risk``, §3.5); the client's surplus is its utility at
completion minus what it pays. Our penalty, where no paper says: completing at ``t`` pays
``P - max(0, u(T) - u(t))``, never below ``min(P, u_min)`` (``u_min`` the penalty bound), so a late
job costs the provider what the delay costs the client. ``price=None`` is the papers' contract,
the case ``P = u(T)``: the client pays ``u(t)`` and its surplus is 0.
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
