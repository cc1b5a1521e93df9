"""The ``batch_sites:`` section of a scenario: best-effort batch sites replaying a trace, their
QBETS predictor and the VARQ users submitting to them (VARQ TR 2007-09 §3-4; see
:mod:`agents.batch_site` and :mod:`agents.varq_user`).

Where the paper is silent the choice is a field with its default here, and written in the
scenario files of ``scenarios/varq/``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from market.core.qbets import DEFAULT_NODE_BREAKS, DEFAULT_TIME_BREAKS
from market.inputs.workloads import ProfitWorkload, Workload


class QbetsSpec(BaseModel):
    """The site's QBETS predictor (:mod:`market.core.qbets`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    quantile: float = Field(0.95, gt=0, lt=1, description="quantile the change points watch")
    confidence: float = Field(0.95, gt=0, lt=1, description="of every bound (§2.3)")
    node_breaks: list[int] = Field(list(DEFAULT_NODE_BREAKS), description="class cuts, nodes")
    time_breaks: list[float] = Field(list(DEFAULT_TIME_BREAKS), description="class cuts, hours")
    alpha: float = Field(0.01, gt=0, lt=1, description="change point: run rarer than this")
    min_run: int = Field(3, ge=1, description="change point: never on a shorter run")
    cluster: int | None = Field(
        None, ge=1, description="k classes by clustering (market/core/qbets_cluster.py); None: grid"
    )


class VarqTraceSpec(BaseModel):
    """Table 4's VARQ users (§4.4): each trace job becomes a VARQ job with probability
    ``fraction`` and asks for the next deadline (every ``deadline_interval`` hours from
    ``deadline_offset``) at success probability ``probability``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fraction: float = Field(0.10, ge=0, le=1, description="f: share of jobs using VARQ")
    probability: float = Field(0.75, gt=0, lt=1, description="p: required success probability")
    deadline_interval: float = Field(6.0, gt=0, description="hours between deadlines (§4.4: 6)")
    deadline_offset: float = Field(0.0, ge=0, description="first deadline, hours (ours: 0)")
    step_seconds: float = Field(30.0, gt=0, description="trajectory step (§3: 30 s)")
    replan_interval: float = Field(
        0.5, gt=0, description="hours between re-plans while waiting (ours; §3: 'continually')"
    )
    refused: Literal["submit", "drop"] = Field(
        "submit", description="no reservation possible: submit as a plain job now, or drop it"
    )


class RandomVarqSpec(BaseModel):
    """A §4.1 submitting process: random jobs of ``nodes`` x ``walltimes_s`` wanting to run
    ``lead`` hours ahead at ``probability``; refused, it retries every ``retry_seconds`` with a
    new random job and the same target time, and after a reservation waits until just past the
    deadline (``after_deadline`` hours) to start the next."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "random"
    probability: float = Field(0.75, gt=0, lt=1)
    lead: float = Field(6.0, gt=0, description="hours from the attempt to the deadline (§4.1)")
    nodes: list[int] = Field([1, 4, 8, 16, 32], min_length=1, description="§4.1")
    walltimes_s: list[float] = Field([600, 1800, 3600, 7200, 14400], min_length=1)
    retry_seconds: float = Field(15.0, gt=0, description="§4.1: 15 s")
    after_deadline: float = Field(0.01, ge=0, description="hours past the deadline (ours)")
    start: float = Field(0.0, ge=0, description="first attempt, hours (stagger processes)")
    step_seconds: float = Field(30.0, gt=0)
    replan_interval: float = Field(0.5, gt=0)


class BrokerSpec(BaseModel):
    """A service provider using the site as its resource provider (:mod:`agents.site_broker`):
    it admits jobs of ``workload`` by QBETS quotes at ``probability`` and runs them at the site,
    paying ``price`` per node-hour held."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "broker"
    workload: Workload = ProfitWorkload()
    same_jobs_as: int | None = Field(
        None, ge=0, description="the index of a client whose job stream to reuse (same jobs)"
    )
    probability: float = Field(0.9, gt=0, lt=1, description="quantile of the promised start")
    price: float = Field(0.0, ge=0, description="the site's charge per node-hour")


class BatchSiteSpec(BaseModel):
    """A space-shared machine with a best-effort FCFS + EASY queue (§2.1, §4.4) replaying a
    trace as its background workload."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "site"
    trace: str = Field(description="SWF file: a path, or a name on the trace search path")
    processors: int | None = Field(None, ge=1, description="nodes (default: the trace's MaxProcs)")
    first_jobs: int | None = Field(None, ge=1, description="only the first N selected jobs")
    window: tuple[float, float] | None = Field(
        None, description="only jobs submitted in [start, end) hours after the first one"
    )
    kill_at_walltime: bool = Field(True, description="a job running past its request is killed")
    qbets: QbetsSpec = QbetsSpec()
    varq: VarqTraceSpec | None = Field(None, description="Table 4's trace-driven VARQ users")
    random_users: list[RandomVarqSpec] = Field(default_factory=list, description="§4.1")
    brokers: list[BrokerSpec] = Field(
        default_factory=list, description="service providers renting from this site by VARQ"
    )

    @model_validator(mode="after")
    def _one_subset(self) -> BatchSiteSpec:
        if self.first_jobs is not None and self.window is not None:
            raise ValueError("first_jobs: give first_jobs or window, not both")
        if self.window is not None and not self.window[1] > self.window[0]:
            raise ValueError("window: the end must be after the start")
        names = [u.name for u in self.random_users]
        if len(set(names)) != len(names):
            raise ValueError("random_users: two users have the same name")
        return self
