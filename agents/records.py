"""What happened to a job offered to a provider: one row of the run's per-job table.

A :class:`JobRecord` is made when the provider quotes the job (its admission
:class:`~agents.policies.base.Decision` and, for a provider that prices, the
:class:`~market.core.quotes.PriceQuote` it offered) and filled in as the job is committed, starts
and ends. Equal decisions without a prediction share one object (a trace replay makes tens of
thousands of them). Every provider kind (:mod:`agents.provider`) keeps one per job offered, by
job id; the results read them (:mod:`market.results.job_columns`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.policies.base import Decision
from market.core.jobs import Job
from market.core.quotes import PriceQuote

if TYPE_CHECKING:
    from agents.resource_provider import Lease


@dataclass(slots=True)
class JobRecord:
    """What happened to a job offered to a provider (one row of the per-job table)."""

    job: Job
    decision: Decision
    committed: bool = False  # the client gave the job to this provider
    processors: int | None = None
    start: float | None = None
    end: float | None = None
    paid: float | None = None  # what the client paid at completion (negative: a penalty)
    rent: float | None = None
    lease: Lease | None = None
    quote: PriceQuote | None = None  # the price terms offered (None: the job's utility)
    pool: int = 0  # which of the provider's resource providers it was planned on

    def __post_init__(self) -> None:
        self.decision = shared_decision(self.decision)

    @property
    def surplus(self) -> float | None:
        """The client's surplus: its utility at completion minus what it paid."""
        if self.paid is None or self.end is None:
            return None
        if self.quote is None or self.quote.price is None:  # it paid its utility at completion
            return 0.0
        return self.job.utility(self.end) - self.paid

    @property
    def profit(self) -> float | None:
        """Realised profit: what the client paid minus the rent."""
        if self.paid is None or self.rent is None:
            return None
        return self.paid - self.rent


#: Decisions without a prediction, by ``(accepted, reason, detail)``: one object for all the
#: equal ones (accept-all's for every job its scheduler gives no start, say). At most
#: :data:`MAX_SHARED` of them, so that decisions whose detail differs job by job add nothing.
_SHARED: dict[tuple[bool, str, str], Decision] = {}
MAX_SHARED = 256


def shared_decision(decision: Decision) -> Decision:
    """``decision``, or an equal one kept before: a decision is read-only once recorded."""
    d = decision
    if (
        d.processors is None
        and d.start is None
        and d.end is None
        and d.expected_value is None
        and d.expected_profit is None
        and d.gain is None
        and d.queue_order is None
        and d.params is None
        and d.displaced is None
        and type(d) is Decision
    ):
        key = (d.accepted, d.reason, d.detail)
        kept = _SHARED.get(key)
        if kept is not None:
            return kept
        if len(_SHARED) < MAX_SHARED:
            _SHARED[key] = d
    return d
