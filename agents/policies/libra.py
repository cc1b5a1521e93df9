"""Deadline-constrained admission control on a cluster (Yeo & Buyya, ICPP'06).

- :class:`Libra` (§3.1): a node is suitable if its total share with the job is at most 1 (Eq. 1,
  2); the job goes to the ``numproc`` best-fit (fullest) suitable nodes, else is rejected.
- :class:`LibraRisk` (§3.2-3.3, Algorithm 1): a node is suitable only if its risk of deadline
  delay (the sd of its jobs' projected deadline delays, Eq. 4-6) is zero; the job goes to the
  first ``numproc`` such nodes. Our choices: a job past its deadline is left out of the risk;
  "zero" is below ``tolerance``; a node where the job would make late a job on time without it
  is not suitable ("enforces the deadlines of previously accepted jobs", §3.3).
- :class:`EDF` (§4): space-shared, non-preemptive earliest deadline first without backfilling;
  with ``admission_control`` a job is rejected when selected if its estimate cannot meet its
  deadline.

Cluster policies (:class:`ClusterPolicy`, ``service_providers.N.cluster: libra``), registered
in :data:`agents.policies.registry.CLUSTERS` and run by :mod:`agents.cluster_provider`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import ClassVar, Literal, NamedTuple

import numpy as np

from agents.policies.registry import register_cluster
from market.core.jobs import Job
from market.core.timeshare import UNUSED_SHARE_RULES, TimeSharedCluster, UnusedShare, project_node

FIT = 1e-12  # a node's total share may exceed 1 by float noise


class NodeChoice(NamedTuple):
    """A time-shared admission decision: the nodes (None: rejected), why, and the job's share."""

    nodes: tuple[int, ...] | None
    reason: str
    detail: str
    share: float


def deadline_delays(delays: list[float], remaining_deadlines: list[float]) -> list[float]:
    """Eq. 4 for each job with a remaining deadline > 0: (delay + remaining) / remaining."""
    return [(d + r) / r for d, r in zip(delays, remaining_deadlines, strict=True) if r > 0]


def deadline_delay_risk(values: list[float]) -> tuple[float, float]:
    """Eq. 5-6: the mean ``mu`` and standard deviation ``sigma`` (over the n jobs, not n - 1)
    of the deadline delays of a node's jobs; (1, 0) for none."""
    if not values:
        return 1.0, 0.0
    arr = np.asarray(values, dtype=float)
    return float(arr.mean()), float(arr.std())


class ClusterPolicy(ABC):
    """A deadline cluster policy (``service_providers.N.cluster``). A policy subclasses
    :class:`TimeSharing` or :class:`SpaceSharing`, which say what the cluster provider asks it."""

    name: ClassVar[str] = ""

    @property
    @abstractmethod
    def sharing(self) -> Literal["time", "space"]:
        """Whether the cluster's nodes are time-shared or space-shared."""

    def label(self) -> str:
        """How the summary names the cluster's scheduler."""
        return f"{self.sharing}_shared"


class TimeSharing(ClusterPolicy):
    """A policy for time-shared nodes: it picks the nodes of a job at submission, or rejects it
    (:class:`agents.cluster_provider.TimeSharedProvider`)."""

    sharing: ClassVar[Literal["time", "space"]] = "time"
    #: How a node's unused share is spent (:data:`market.core.timeshare.UNUSED_SHARE_RULES`).
    unused_share: UnusedShare = "idle"

    @abstractmethod
    def choose(self, cluster: TimeSharedCluster, now: float, job: Job) -> NodeChoice:
        """The nodes for ``job`` now, or a rejection with its reason."""


class SpaceSharing(ClusterPolicy):
    """A policy for space-shared processors: it orders the queue and decides, when a job is
    selected, whether it may start (:class:`agents.cluster_provider.EDFProvider`)."""

    sharing: ClassVar[Literal["time", "space"]] = "space"

    @abstractmethod
    def priority(self, job: Job) -> tuple:
        """The queue's order: the lowest priority is selected first."""

    @abstractmethod
    def admits(self, job: Job, now: float) -> bool:
        """Whether the selected ``job`` may start now (else it is rejected)."""


def _job_numbers(job: Job, now: float) -> tuple[int, float, float]:
    """numproc, the estimated runtime on it, and the remaining deadline (inf: none)."""
    n = job.max_shape
    remaining = math.inf if job.deadline is None else job.deadline - now
    return n, job.predicted_runtime(n), remaining


@register_cluster("libra")
class Libra(TimeSharing):
    """Libra: proportional share by deadline, best fit (§3.1)."""

    def __init__(self, unused_share: UnusedShare = "idle") -> None:
        if unused_share not in UNUSED_SHARE_RULES:
            raise ValueError(f"unused_share must be one of {', '.join(UNUSED_SHARE_RULES)}")
        self.unused_share = unused_share

    def choose(self, cluster: TimeSharedCluster, now: float, job: Job) -> NodeChoice:
        """The nodes for ``job`` now, or a rejection with its reason."""
        n, estimate, remaining = _job_numbers(job, now)
        if not remaining > 0 or remaining == math.inf:
            why = "no-deadline" if remaining == math.inf else "deadline-passed"
            return NodeChoice(None, why, f"a share needs a deadline ahead (job {job.id})", math.nan)
        share = estimate / remaining  # Eq. 1
        return self._choose(cluster, now, job, n, estimate, remaining, share)

    def _choose(self, cluster, now, job, n, estimate, remaining, share) -> NodeChoice:
        total = cluster.total_share
        suitable = np.flatnonzero(total + share <= 1.0 + FIT)  # Eq. 2 with the new job
        if len(suitable) < n:
            return NodeChoice(
                None,
                "no-share",
                f"share {share:.3f}: {len(suitable)} of {cluster.size} nodes have it free, "
                f"{n} needed",
                share,
            )
        fullest = suitable[np.argsort(-total[suitable], kind="stable")[:n]]  # best fit
        nodes = tuple(sorted(fullest.tolist()))
        return NodeChoice(nodes, "share-fits", f"share {share:.3f} on {n} best-fit nodes", share)


@register_cluster("libra_risk")
class LibraRisk(Libra):
    """LibraRisk: nodes with zero risk of deadline delay, first in node order (Algorithm 1)."""

    def __init__(self, unused_share: UnusedShare = "idle", tolerance: float = 1e-9) -> None:
        super().__init__(unused_share)
        if not 0.0 <= tolerance < 1.0:
            raise ValueError(f"tolerance must lie in [0, 1), got {tolerance}")
        self.tolerance = tolerance

    def _choose(self, cluster, now, job, n, estimate, remaining, share) -> NodeChoice:
        zero, unknown = self.known_risk(cluster, now, job.deadline, share)
        chosen: list[int] = []
        for j in np.flatnonzero(zero | unknown).tolist():
            if zero[j] or self.zero_risk(cluster, j, now, estimate, share, remaining):
                chosen.append(j)
                if len(chosen) == n:
                    nodes = tuple(chosen)
                    return NodeChoice(nodes, "zero-risk", f"share {share:.3f}, zero risk", share)
        return NodeChoice(
            None,
            "deadline-risk",
            f"share {share:.3f}: {len(chosen)} of {cluster.size} nodes have zero risk, {n} needed",
            share,
        )

    def known_risk(
        self, cluster: TimeSharedCluster, now: float, deadline: float, share: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """The nodes whose risk with the new job is zero without projecting, and those that
        need :meth:`zero_risk`; the rest have a positive risk. Zero: an empty node (the job
        alone), or a node where the job fits its share and no job has fallen behind its own
        (every job then ends on time). With ``unused_share="idle"`` a node whose jobs have never
        fallen behind and none is past its deadline runs each exactly on its share's schedule
        (estimated remaining runtime / share = remaining deadline), so over-committed by the new
        job it would make them late: positive risk."""
        total, behind = cluster.total_share, cluster.behind_on > 0
        occupied = cluster.occupied()
        zero = ~occupied | (~behind & (total + share <= 1.0 + FIT))
        if self.unused_share != "idle":
            return zero, occupied & ~zero
        on_schedule = ~behind & (cluster.min_deadline > now)
        return zero, occupied & ~zero & ~on_schedule

    def zero_risk(
        self,
        cluster: TimeSharedCluster,
        node: int,
        now: float,
        estimate: float,
        share: float,
        remaining: float,
    ) -> bool:
        """Whether ``node`` has zero risk of deadline delay with the new job on it (Eq. 3-6)."""
        jobs = cluster.on_node[node].values()
        left = [job.remaining_estimate(now) for job in jobs]
        shares = [job.share for job in jobs]
        deadlines = [job.deadline - now for job in jobs]
        left.append(estimate)
        shares.append(share)
        deadlines.append(remaining)
        delays = project_node(left, shares, deadlines, self.unused_share)
        values = deadline_delays(delays, deadlines)
        if values and max(values) - min(values) > self.tolerance * max(values):
            return False
        late = [d > self.tolerance * max(r, 1.0) for d, r in zip(delays, deadlines, strict=True)]
        if not any(late[:-1]):
            return True
        # the deadlines of previously accepted jobs: none on time without the job is late with it
        alone = project_node(left[:-1], shares[:-1], deadlines[:-1], self.unused_share)
        return not any(
            now_late and d <= self.tolerance * max(r, 1.0)
            for now_late, d, r in zip(late, alone, deadlines, strict=False)
        )


@register_cluster("edf")
class EDF(SpaceSharing):
    """Earliest deadline first, space-shared, with or without admission control (§4)."""

    def __init__(self, admission_control: bool = True) -> None:
        if not isinstance(admission_control, bool):
            raise ValueError(f"admission_control must be true or false, got {admission_control!r}")
        self.admission_control = admission_control

    @staticmethod
    def priority(job: Job) -> tuple[float, float, int]:
        """Queue order: deadline (none last), then arrival, then id."""
        deadline = math.inf if job.deadline is None else job.deadline
        return deadline, job.arrival, job.id

    def admits(self, job: Job, now: float) -> bool:
        """Whether the selected ``job`` may start now: always without admission control, else
        only if its estimate ends by its deadline ("rejects a selected job prior to execution if
        its deadline has expired or ... cannot be met based on its runtime estimate")."""
        if not self.admission_control or job.deadline is None:
            return True
        return now + job.predicted_runtime(job.max_shape) <= job.deadline + 1e-9
