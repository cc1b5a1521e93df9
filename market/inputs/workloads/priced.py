"""Priced trace jobs: the workload of the VQoPS paper (Islam et al., OSU-CISRC-3/07-TR17 §3).

A trace workload (deadline = 5 x estimate; duplicates arrive with their originals) whose jobs
are ``urgent`` with probability ``urgent_fraction`` (U), else ``normal``. A normal job's maximum
price is ``price_per_processor_second`` x processors x runtime, an urgent one's
``urgent_cost`` (C) times that, decaying linearly from the earliest completion to zero at the
deadline (Figure 2). Our choices: urgency is drawn per job after duplication, from a child
stream of the run's generator; the price is on the actual runtime (§5.4); the earliest
completion is arrival + the estimate, so a job that ends early pays its maximum.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from market.core.jobs import Job
from market.core.utility import UtilityFunction
from market.inputs.workloads.trace import TraceWorkload

SECONDS_PER_HOUR = 3600.0


def to_deadline_price(
    max_price: float, arrival: float, estimate: float, deadline: float | None
) -> UtilityFunction:
    """The VQoPS price (Figure 2): ``max_price`` until ``arrival + estimate``, then linear down
    to zero at ``deadline`` (constant without one)."""
    if deadline is None:
        return UtilityFunction.constant(max_price)
    return UtilityFunction.to_deadline(max_price, arrival + estimate, deadline)


class PricedTraceWorkload(TraceWorkload):
    """Trace jobs with the VQoPS paper's urgent/normal prices (see the module docstring)."""

    kind: Literal["priced_swf"] = "priced_swf"  # type: ignore[assignment]
    deadlines: Literal["none", "stringency", "factor", "urgency"] = "factor"
    urgent_fraction: float = Field(0.8, ge=0, le=1, description="VQoPS §3 U: share of urgent jobs")
    urgent_cost: float = Field(10.0, ge=1, description="VQoPS §3 C: urgent price / normal price")
    price_per_processor_second: float = Field(
        0.1, ge=0, description="VQoPS §3: a normal job's maximum price per processor-second"
    )

    def generate(
        self, rng: np.random.Generator, first_id: int = 0, client: str | None = None
    ) -> list[Job]:
        """The trace's jobs (:meth:`TraceWorkload.generate`), each marked and priced."""
        jobs = super().generate(rng, first_id=first_id, client=client)
        (stream,) = rng.spawn(1)  # after the trace's own streams: they never change
        urgent = stream.random(len(jobs)) < self.urgent_fraction
        rate = self.price_per_processor_second * SECONDS_PER_HOUR  # per processor-hour
        priced = []
        for job, hot in zip(jobs, urgent.tolist(), strict=True):
            n = job.shapes[0]
            top = rate * job.work * (self.urgent_cost if hot else 1.0)
            estimate = job.predicted_runtime(n)
            price = to_deadline_price(top, job.arrival, estimate, job.deadline)
            kind = "urgent" if hot else "normal"
            estimated = job.work_estimate or job.work
            priced.append(
                Job.rigid(job.id, job.arrival, job.work, price, n, estimated, job.deadline,
                          job.client, kind)
            )  # fmt: skip
        return priced
