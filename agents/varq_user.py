"""VARQ users: agents that make virtual advance reservations at a batch site (VARQ TR 2007-09 §3,
§4.1, §4.4).

A request (nodes, wall time, runtime, deadline, probability p) is planned by VARQ's planner
(:class:`agents.policies.varq.VarqPlanner`) on the site's QBETS; "no reservation possible" is a
refusal. The user re-plans every ``replan_interval`` while waiting (a re-plan finding nothing
keeps the plan: ours), submits the padded job, which holds its nodes until the deadline, and
succeeds if it is running then. :class:`TraceVarqUser` (§4.4, Table 4): chosen trace jobs ask
for the next deadline on a grid; a refused one is submitted plain or dropped.
:class:`RandomVarqUser` (§4.1): random jobs wanting to run ``lead`` hours ahead, retrying when
refused. :meth:`summary` gives ``varq_jobs``, ``varq_predicted_pct``, ``varq_success_pct`` and
``overhead_ratio`` (Table 3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mesa
import numpy as np

from agents.batch_site import BatchSiteAgent, SiteJob
from agents.policies import make_reservation, varq

if TYPE_CHECKING:
    from market.inputs.workloads.site_trace import SiteTrace
    from market.sim.model import GridMarket


@dataclass(slots=True, eq=False)
class VarqRecord:
    """One reservation request and what became of it."""

    id: int
    nodes: int
    walltime: float
    runtime: float
    deadline: float
    asked: float
    plan: varq.VarqPlan | None = None
    job: SiteJob | None = None

    @property
    def success(self) -> bool | None:
        """Running at the deadline (None until its job starts)."""
        if self.job is None or self.job.start is None:
            return None
        return self.job.start <= self.deadline + 1e-9


class VarqUser(mesa.Agent):
    """What both kinds of user share: plan, wait and re-plan, submit, and the summary."""

    def __init__(
        self,
        model: GridMarket,
        name: str,
        site: BatchSiteAgent,
        probability: float,
        step_seconds: float = 30.0,
        replan_interval: float = 0.5,
    ) -> None:
        super().__init__(model)
        self.name = name
        self.site = site
        self.planner = make_reservation("varq", probability=probability, step_seconds=step_seconds)
        self.required = probability
        self.step = self.planner.step  # hours
        self.replan_interval = replan_interval
        self.records: list[VarqRecord] = []
        self.refused = 0
        self.plain = 0  # refused requests submitted as plain jobs
        # the latest request (nodes, walltime, asked at, deadline, plan or None), for display
        self.latest: tuple[int, float, float, float, varq.VarqPlan | None] | None = None
        self._waiting = model.clock.completions(self._wake)  # re-plans and submissions due
        self._records: dict[int, VarqRecord] = {}
        site.users.append(self)

    # -- a reservation ---------------------------------------------------------------------------
    def reserve(self, nodes: int, walltime: float, runtime: float, deadline: float) -> bool:
        """Ask for ``nodes`` running from ``deadline`` for ``walltime`` hours; False if no
        reservation is possible."""
        now = self.model.time
        plan = self.planner.plan(self.site.predictor, nodes, walltime, now, deadline)
        self.latest = (nodes, walltime, now, deadline, plan)
        if plan is None:
            self.refused += 1
            return False
        record = VarqRecord(self.site.new_id(), nodes, walltime, runtime, deadline, now, plan)
        self.records.append(record)
        self._wait_or_submit(record)
        return True

    def _wait_or_submit(self, record: VarqRecord) -> None:
        now = self.model.time
        if record.plan.submit_at <= now + 1e-12:
            self._submit(record)
        else:
            self._records[record.id] = record
            self._waiting.add(min(record.plan.submit_at, now + self.replan_interval), record.id)

    def _wake(self, due: list[int], now: float) -> None:
        for record in [self._records.pop(i) for i in due]:
            if record.plan.submit_at > now + 1e-12:  # re-plan while waiting (§3)
                again = self.planner.plan(
                    self.site.predictor, record.nodes, record.walltime, now, record.deadline
                )
                if again is not None:
                    record.plan = again
            self._wait_or_submit(record)
        self._after_wake()

    def _after_wake(self) -> None:
        """Hook for subclasses (the site may now be idle)."""
        if self.site.idle:
            self.model.check_finished()

    def _submit(self, record: VarqRecord) -> None:
        now = self.model.time
        padded = record.walltime + max(0.0, record.deadline - now)
        record.job = SiteJob(
            record.id, record.nodes, record.runtime, padded, owner=self.name,
            hold_until=record.deadline,
        )  # fmt: skip
        self.site.submit(record.job)

    def submit_plain(self, nodes: int, walltime: float, runtime: float) -> None:
        """A refused request submitted as an ordinary job."""
        self.plain += 1
        self.site.submit(SiteJob(self.site.new_id(), nodes, runtime, walltime, owner=self.name))

    @property
    def pending(self) -> bool:
        """Reservations still waiting to be submitted."""
        return len(self._waiting) > 0

    # -- results ---------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Table 4's and Table 3's figures for this user's reservations."""
        made = [r for r in self.records if r.job is not None]
        started = [r for r in made if r.job.start is not None]
        ended = [r for r in made if r.job.end is not None]
        # needed: what a plain submission would use (killed at its own wall time, if it ran over)
        needed = math.fsum(r.nodes * min(r.runtime, r.walltime) for r in ended)
        used = math.fsum(r.job.occupied for r in ended)
        return {
            "provider": self.name,
            "site": self.site.name,
            "required_probability": self.required,
            "varq_requests": len(self.records) + self.refused,
            "varq_refused": self.refused,
            "varq_jobs": len(made),
            "varq_predicted_pct": _mean([100.0 * r.plan.probability for r in made]),
            "varq_success_pct": _mean([100.0 * r.success for r in started]),
            "overhead_ratio": used / needed if needed > 0 else math.nan,
            "varq_needed_node_hours": needed,
            "varq_used_node_hours": used,
            "varq_worst_overhead_node_hours": math.fsum(r.plan.overhead for r in made),
            "varq_killed": sum(r.job.killed for r in ended),
        }


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


class TraceVarqUser(VarqUser):
    """Table 4's VARQ jobs: trace jobs asking, at their submission, for the next deadline."""

    def __init__(
        self,
        model: GridMarket,
        name: str,
        site: BatchSiteAgent,
        jobs: SiteTrace,
        probability: float,
        deadline_interval: float = 6.0,
        deadline_offset: float = 0.0,
        refused: str = "submit",
        step_seconds: float = 30.0,
        replan_interval: float = 0.5,
    ) -> None:
        super().__init__(model, name, site, probability, step_seconds, replan_interval)
        self.jobs = jobs
        self.interval = deadline_interval
        self.offset = deadline_offset
        self.on_refusal = refused
        self._next = 0
        self._schedule()

    def next_deadline(self, now: float) -> float:
        """The first deadline of the grid strictly after ``now``."""
        k = math.floor((now - self.offset) / self.interval + 1e-12) + 1
        return self.offset + k * self.interval

    @property
    def exhausted(self) -> bool:
        """Every request made and submitted."""
        return self._next >= len(self.jobs) and not self.pending

    def _schedule(self) -> None:
        if self._next < len(self.jobs):
            at = max(float(self.jobs.submit[self._next]), self.model.time)
            self.model.clock.at(at, self._arrive)

    def _arrive(self) -> None:
        i, jobs = self._next, self.jobs
        self._next += 1
        nodes, walltime = int(jobs.nodes[i]), float(jobs.request[i])
        runtime = float(jobs.runtime[i])
        deadline = self.next_deadline(self.model.time)
        reserved = self.reserve(nodes, walltime, runtime, deadline)
        if not reserved and self.on_refusal == "submit":
            self.submit_plain(nodes, walltime, runtime)
        self._schedule()


class RandomVarqUser(VarqUser):
    """A §4.1 submitting process (see the module docstring)."""

    def __init__(
        self,
        model: GridMarket,
        name: str,
        site: BatchSiteAgent,
        rng: np.random.Generator,
        probability: float,
        lead: float = 6.0,
        nodes: tuple[int, ...] = (1, 4, 8, 16, 32),
        walltimes: tuple[float, ...] = (600, 1800, 3600, 7200, 14400),
        retry_seconds: float = 15.0,
        after_deadline: float = 0.01,
        start: float = 0.0,
        step_seconds: float = 30.0,
        replan_interval: float = 0.5,
    ) -> None:
        super().__init__(model, name, site, probability, step_seconds, replan_interval)
        self.stream = rng
        self.lead = lead
        self.sizes = [int(n) for n in nodes]
        self.walltimes = [w / 3600.0 for w in walltimes]
        self.retry = retry_seconds / 3600.0
        self.after_deadline = after_deadline
        self.target = start + lead
        self._stopped = False
        self.model.clock.at(max(start, model.time), self._attempt)

    @property
    def exhausted(self) -> bool:
        """Stopped (the site's trace is replayed) with nothing waiting."""
        return self._stopped and not self.pending

    def _attempt(self) -> None:
        now = self.model.time
        if self.site.background_done:
            self._stopped = True
            self._after_wake()
            return
        if now >= self.target:
            self.target = now + self.lead
        nodes = self.sizes[int(self.stream.integers(len(self.sizes)))]
        walltime = self.walltimes[int(self.stream.integers(len(self.walltimes)))]
        if self.reserve(nodes, walltime, walltime, self.target):
            at = self.target + self.after_deadline
            self.target = at + self.lead
        else:
            at = now + self.retry
        self.model.clock.at(at, self._attempt)
