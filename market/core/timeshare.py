"""A time-shared cluster: nodes whose processor time is shared among their jobs in proportion to
their shares (Yeo & Buyya, ICPP'06 §3.1, after Libra).

A job holds ``numproc`` one-processor nodes from admission to completion (non-preemptive, §3).
Its share is fixed at admission, Eq. 1: ``estimate / (deadline - now)``; a node's total share
(Eq. 2) is the sum of its jobs'. Our choices: on a node of total share ``T`` a job of share ``s``
runs at ``s / max(T, 1)`` (``unused_share="idle"``: its share and no more, so with exact
estimates it ends at its deadline) or ``s / T`` (``"redistribute"``); a parallel job moves at
its slowest node's rate; a job past its estimate keeps its share until it completes. Events are
admissions and completions only, so completion times are exact (no time steps). Work is in hours
at one node's full speed.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

UnusedShare = Literal["idle", "redistribute"]
UNUSED_SHARE_RULES = ("idle", "redistribute")
EPS = 1e-12  # hours of work (and shares): float noise, not a quantity


@dataclass(slots=True, eq=False)
class SharedJob:
    """A job running on the cluster: its nodes, fixed share, and progress.

    ``done`` is the work done (hours at full speed) by time ``since``; it then grows at ``rate``
    until the next event that changes the rate.
    """

    id: int
    nodes: tuple[int, ...]
    share: float
    work: float  # actual runtime at full speed
    estimate: float  # what the cluster believes
    deadline: float  # absolute
    admitted: float
    done: float = 0.0
    since: float = 0.0
    rate: float = 0.0
    behind: bool = False  # ever ran below its share: may miss its estimate-based deadline
    version: int = 0
    _index: np.ndarray = field(default=None, repr=False)  # nodes as an index array

    def done_at(self, now: float) -> float:
        """Work done by ``now`` (no event in between)."""
        return self.done + self.rate * (now - self.since)

    def remaining_estimate(self, now: float) -> float:
        """Estimated work left at ``now`` (0 for a job past its estimate)."""
        return max(self.estimate - self.done_at(now), 0.0)

    def finish_time(self) -> float:
        """When it completes at its current rate."""
        if self.rate <= 0.0:
            return math.inf
        return self.since + max(self.work - self.done, 0.0) / self.rate


class TimeSharedCluster:
    """``nodes`` time-shared processors (see the module docstring for every rule)."""

    def __init__(self, nodes: int, unused_share: UnusedShare = "idle") -> None:
        if nodes < 1:
            raise ValueError(f"a cluster needs at least one node, got {nodes}")
        if unused_share not in UNUSED_SHARE_RULES:
            raise ValueError(
                f"unused_share must be one of {', '.join(UNUSED_SHARE_RULES)}, got {unused_share!r}"
            )
        self.size = nodes
        self.unused_share = unused_share
        self.total_share = np.zeros(nodes)  # Eq. 2, per node
        self.behind_on = np.zeros(nodes, dtype=np.int64)  # jobs behind their share, per node
        self.min_deadline = np.full(nodes, np.inf)  # earliest and latest deadline of its jobs
        self.max_deadline = np.full(nodes, -np.inf)
        self.on_node: list[dict[int, SharedJob]] = [{} for _ in range(nodes)]
        self.jobs_on = np.zeros(nodes, dtype=np.int64)  # len(on_node[j]), kept with it
        self.jobs: dict[int, SharedJob] = {}
        self._finishes: list[tuple[float, int, int]] = []  # (finish, job id, version)

    # -- what admission reads ------------------------------------------------------------------
    def occupied(self) -> np.ndarray:
        """Whether each node runs at least one job."""
        return self.jobs_on > 0

    def node_jobs(self, node: int) -> list[SharedJob]:
        """The jobs on ``node``."""
        return list(self.on_node[node].values())

    def rate_on(self, share: float, total: float) -> float:
        """The rate a job of ``share`` gets on a node of total share ``total`` (it included)."""
        if self.unused_share == "idle":
            return share / total if total > 1.0 else share
        return share / total if total > 0.0 else 0.0

    # -- changes -------------------------------------------------------------------------------
    def admit(
        self,
        now: float,
        job_id: int,
        nodes: tuple[int, ...],
        work: float,
        estimate: float,
        deadline: float,
    ) -> SharedJob:
        """Start job ``job_id`` now on ``nodes`` with its Eq. 1 share."""
        if job_id in self.jobs:
            raise ValueError(f"job {job_id} is already on the cluster")
        if not nodes or len(set(nodes)) != len(nodes):
            raise ValueError(f"job {job_id}: nodes must be distinct, got {nodes}")
        if min(nodes) < 0 or max(nodes) >= self.size:
            raise ValueError(f"job {job_id}: nodes must lie in [0, {self.size}), got {nodes}")
        if not deadline > now:
            raise ValueError(f"job {job_id}: its deadline {deadline:g} is not after now ({now:g})")
        share = estimate / (deadline - now)
        job = SharedJob(job_id, tuple(nodes), share, work, estimate, deadline, now, since=now)
        job._index = np.asarray(nodes, dtype=np.int64)
        self.jobs[job_id] = job
        for j in nodes:
            self.on_node[j][job_id] = job
        self.jobs_on[job._index] += 1
        self._retotal(job._index)
        self._rerate(now, job._index, new=job)
        return job

    def next_completion(self) -> float | None:
        """When the next job completes (None if none runs)."""
        heap = self._finishes
        while heap:
            finish, job_id, version = heap[0]
            job = self.jobs.get(job_id)
            if job is not None and job.version == version:
                return finish
            heapq.heappop(heap)  # stale
        return None

    def complete_due(self, now: float) -> list[SharedJob]:
        """Remove and return every job that completes by ``now`` (in completion order)."""
        done: list[SharedJob] = []
        heap = self._finishes
        while heap and heap[0][0] <= now + EPS:
            _, job_id, version = heapq.heappop(heap)
            job = self.jobs.get(job_id)
            if job is None or job.version != version:
                continue
            job.done, job.since = job.work, now
            done.append(job)
        if not done:
            return done
        touched = set()
        for job in done:
            del self.jobs[job.id]
            for j in job.nodes:
                del self.on_node[j][job.id]
            self.jobs_on[job._index] -= 1
            if job.behind:
                self.behind_on[job._index] -= 1
            touched.update(job.nodes)
        index = np.fromiter(sorted(touched), np.int64, len(touched))
        before = self.total_share[index].copy()
        self._retotal(index)
        if self.unused_share == "idle":  # only over-committed nodes change their jobs' rates
            index = index[before > 1.0]
        self._rerate(now, index)
        return done

    # -- internals -----------------------------------------------------------------------------
    def _retotal(self, index: np.ndarray) -> None:
        """Eq. 2 on the nodes of ``index``, summed afresh (no drift from adding and removing)."""
        on_node, total = self.on_node, self.total_share
        lo, hi = self.min_deadline, self.max_deadline
        for j in index.tolist():
            jobs = on_node[j].values()
            total[j] = math.fsum(job.share for job in jobs)
            lo[j] = min((job.deadline for job in jobs), default=math.inf)
            hi[j] = max((job.deadline for job in jobs), default=-math.inf)

    def _rerate(self, now: float, index: np.ndarray, new: SharedJob | None = None) -> None:
        """New rates for the jobs on the nodes of ``index`` (and for ``new``), progress kept."""
        if self.unused_share == "idle" and new is not None:
            index = index[self.total_share[index] > 1.0]  # elsewhere nothing changes
        jobs = {} if new is None else {new.id: new}
        for j in index.tolist():
            jobs.update(self.on_node[j])
        total = self.total_share
        for job in jobs.values():
            worst = float(total[job._index].max() if len(job.nodes) > 1 else total[job.nodes[0]])
            rate = self.rate_on(job.share, worst)
            if rate == job.rate and job is not new:
                continue
            job.done = job.done_at(now)
            job.since = now
            job.rate = rate
            job.version += 1
            if not job.behind and rate < job.share * (1.0 - 1e-12):
                job.behind = True
                self.behind_on[job._index] += 1
            heapq.heappush(self._finishes, (job.finish_time(), job.id, job.version))


def project_node(
    remaining: list[float],
    shares: list[float],
    remaining_deadlines: list[float],
    unused_share: UnusedShare = "idle",
) -> list[float]:
    """Each job's delay (Eq. 3) on one node if its jobs run on their remaining *estimates* from
    now on, with the node's rates (:meth:`TimeSharedCluster.rate_on`) re-set at each projected
    completion: LibraRisk's "delay determined based on the deadlines and runtime estimates of
    all the jobs on node j" (§3.3). Times are relative to now; a job with nothing left is done
    now. The node alone is projected (a job's other nodes are not)."""
    n = len(remaining)
    left = list(remaining)
    finish = [0.0] * n
    active = [i for i in range(n) if left[i] > EPS]
    t = 0.0
    idle = unused_share == "idle"
    while active:
        total = sum([shares[i] for i in active])
        scale = (1.0 / total if total > 1.0 else 1.0) if idle else 1.0 / total
        to_go = [left[i] / (shares[i] * scale) for i in active]
        step = min(to_go)
        t += step
        limit = step * (1.0 + 1e-12)
        still = []
        for i, ahead in zip(active, to_go, strict=True):
            if ahead <= limit:
                finish[i] = t
            else:
                left[i] -= shares[i] * scale * step
                still.append(i)
        active = still
    return [max(0.0, finish[i] - remaining_deadlines[i]) for i in range(n)]
