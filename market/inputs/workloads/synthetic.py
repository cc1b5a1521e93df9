"""The synthetic workload of Popovici & Wilkes SC'05 §4 and Table 1, after Millenium and RiskReward.

Exponential inter-arrival times; each job high- or low-value (``high_value_share``) and,
independently, steep- or shallow-decay (``steep_decay_share``); values and decay rates normal
around the class mean (sd ``value_sd_ratio`` x mean, cut at zero); value decaying from
submission (§4) to the penalty bound; moldable over ``shapes`` with Amdahl's
``serial_fraction``. Our choices where the paper is silent, each a parameter: job size
exponential with mean ``mean_work``, or gamma with coefficient of variation ``work_cv`` (the
calibration chose 1.25 for ``scenarios/profit/``; the default here stays exponential); 20 %
steep-decay jobs; decay rates spread like values.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from market.core.jobs import Job
from market.core.utility import UtilityFunction
from market.inputs.limits import MAX_JOBS

KINDS = {
    (hv, sd): f"{'high' if hv else 'low'}-value/{'steep' if sd else 'shallow'}"
    for hv in (False, True)
    for sd in (False, True)
}


class ProfitWorkload(BaseModel):
    """Parameters of the profit paper's workload (defaults: Table 1)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    kind: Literal["profit"] = "profit"
    ticks_per_hour: ClassVar[int | None] = None  # times are continuous (see market.sim.clock)
    jobs: int = Field(
        200, ge=0, le=MAX_JOBS, description="jobs per run (Table 1: 200; at most 1,000,000)"
    )
    mean_interarrival: float = Field(0.15, gt=0, description="hours, exponential")
    mean_work: float = Field(
        7.0, gt=0, description="mean job size, processor-hours on one processor"
    )
    work_distribution: Literal["exponential", "uniform", "constant", "gamma"] = "exponential"
    work_spread: float = Field(
        0.5, ge=0, lt=1, description="uniform only: work in mean x [1 - spread, 1 + spread]"
    )
    work_cv: float = Field(
        1.0, gt=0, le=10, description="gamma only: coefficient of variation (1: exponential)"
    )
    shapes: tuple[int, ...] = Field((1, 2, 3, 4, 5), description="allowed processor counts")
    serial_fraction: float = Field(0.2, ge=0, le=1, description="Amdahl beta (CASTEP: 0.2)")
    high_value_share: float = Field(0.2, ge=0, le=1)
    low_value_mean: float = Field(48.0, ge=0)
    value_skew: float = Field(3.0, gt=0, description="high:low value ratio")
    value_sd_ratio: float = Field(0.2, ge=0)
    steep_decay_share: float = Field(0.2, ge=0, le=1, description="not in the paper; our choice")
    shallow_decay_mean: float = Field(3.7, ge=0, description="value lost per hour")
    decay_skew: float = Field(5.0, gt=0, description="steep:shallow decay ratio")
    decay_sd_ratio: float = Field(0.2, ge=0, description="not in the paper; our choice")
    penalty_bound: float = Field(-48.0, description="lowest value (a penalty when negative)")
    estimate_error: float = Field(
        0.0, ge=0, lt=1, description="planner's work estimate = work x U[1-e, 1+e] (0: exact)"
    )

    @field_validator("shapes")
    @classmethod
    def _shapes(cls, shapes: tuple[int, ...]) -> tuple[int, ...]:
        if not shapes or any(n < 1 for n in shapes) or list(shapes) != sorted(set(shapes)):
            raise ValueError("shapes must be distinct, increasing processor counts >= 1")
        return shapes

    def generate(self, rng: np.random.Generator, first_id: int = 0, client: str | None = None):
        """The job stream, in arrival order, drawn from ``rng``."""
        n = self.jobs
        arrivals = np.cumsum(rng.exponential(self.mean_interarrival, n))
        mean = self.mean_work
        if self.work_distribution == "exponential":
            work = rng.exponential(mean, n)
        elif self.work_distribution == "gamma":  # shape 1/cv^2; cv 1 draws as exponential
            shape = 1.0 / self.work_cv**2
            work = rng.gamma(shape, mean / shape, n)
        elif self.work_distribution == "uniform":
            work = rng.uniform(mean * (1 - self.work_spread), mean * (1 + self.work_spread), n)
        else:
            work = np.full(n, mean)
        work = np.maximum(work, 1e-6)  # an exponential draw can round to zero
        high = rng.random(n) < self.high_value_share
        steep = rng.random(n) < self.steep_decay_share
        value_mean = np.where(high, self.low_value_mean * self.value_skew, self.low_value_mean)
        value = np.maximum(rng.normal(value_mean, self.value_sd_ratio * value_mean), 0.0)
        decay_mean = np.where(
            steep, self.shallow_decay_mean * self.decay_skew, self.shallow_decay_mean
        )
        decay = np.maximum(rng.normal(decay_mean, self.decay_sd_ratio * decay_mean), 0.0)
        if self.estimate_error > 0:
            e = self.estimate_error
            estimate = work * rng.uniform(1 - e, 1 + e, n)
        else:
            estimate = work
        jobs = []
        for i in range(n):
            t = float(arrivals[i])
            v = float(value[i])
            utility = UtilityFunction.linear_decay(
                v, t, float(decay[i]), min(self.penalty_bound, v)
            )
            jobs.append(
                Job(
                    id=first_id + i,
                    arrival=t,
                    work=float(work[i]),
                    utility=utility,
                    serial_fraction=self.serial_fraction,
                    shapes=self.shapes,
                    work_estimate=float(estimate[i]),
                    client=client,
                    kind=KINDS[high[i], steep[i]],
                )
            )
        return jobs
