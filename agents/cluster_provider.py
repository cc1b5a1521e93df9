"""Service providers that run a deadline cluster (Yeo & Buyya, ICPP'06 §3-4): Libra and LibraRisk
on time-shared nodes, EDF on space-shared processors.

Both are providers (:class:`~agents.provider.Provider`). The cluster's nodes are the resource
provider's processors (its ``capacity``; a pool without uncertainty, which the paper's cluster
is); rent is paid for a processor while it runs a job; clients pay the job's utility at the end.

- :class:`TimeSharedProvider`: at submission the policy picks nodes or rejects (§3.1, §3.3); an
  admitted job starts at once on :class:`market.core.timeshare.TimeSharedCluster`, ends when its
  work is done. A node is rented while any job is on it; its rent between two changes of its jobs
  is shared equally by the jobs on it then (ours): per-job rents sum to the provider's.
- :class:`EDFProvider`: every job is queued at submission; the earliest deadline is selected,
  rejected then if admission control says its deadline cannot be met (its record's decision
  becomes that rejection, its client's placement is withdrawn), and otherwise started once
  enough processors are free (§4).
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from mesa.time import Priority

from agents.policies.base import Decision
from agents.policies.libra import ClusterPolicy, SpaceSharing, TimeSharing
from agents.provider import Provider
from agents.records import JobRecord
from market.core.errors import ScenarioError
from market.core.jobs import Job
from market.core.timeshare import TimeSharedCluster

if TYPE_CHECKING:
    from agents.resource_provider import Lease, ResourceProviderAgent
    from market.sim.model import GridMarket


class ClusterProvider(Provider):
    """What both cluster providers share: the policy, the cluster's size, the width check."""

    def __init__(
        self,
        model: GridMarket,
        name: str,
        policy: ClusterPolicy,
        resource_provider: ResourceProviderAgent,
    ) -> None:
        super().__init__(model, name, [resource_provider])
        self.policy = policy
        self.size = resource_provider.capacity
        self._waiting: list = []  # (deadline priority..., job) heap of jobs waiting (EDF only)

    @property
    def queue(self) -> list[Job]:
        """Jobs waiting to start (EDF only), in no particular order."""
        return [entry[-1] for entry in self._waiting]

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing running."""
        return not self._waiting and not self.running

    def least_need(self, job: Job) -> int:
        """The processors ``job`` runs on here: its widest shape (a cluster never reshapes)."""
        return job.max_shape

    def _width(self, job: Job) -> int:
        n = job.max_shape
        if n > self.size:
            raise ScenarioError(
                f"service provider {self.name}: job {job.id} needs {n} processors, the cluster "
                f"has {self.size} (resource_providers capacity)"
            )
        return n

    def _finish(self, record: JobRecord, now: float, rent: float) -> None:
        record.end = now
        record.rent = rent
        record.paid = record.job.utility(now)
        self.model.ledger.settle(now, record.job.client or "client", self.name, record.paid,
                                 record.job.id)  # fmt: skip
        self.running -= 1


class TimeSharedProvider(ClusterProvider):
    """Libra or LibraRisk admission on a time-shared cluster (§3)."""

    def __init__(self, model, name, policy: TimeSharing, resource_provider) -> None:
        super().__init__(model, name, policy, resource_provider)
        self.cluster = TimeSharedCluster(self.size, policy.unused_share)
        self._leases: dict[int, Lease] = {}  # node -> its lease while it runs a job
        self._charged: dict[int, float] = {}  # node -> until when its rent is shared out
        self._quoted: tuple[int, tuple[int, ...]] | None = None
        self._event = None

    def quote(self, job: Job) -> Decision:
        """Run Libra/LibraRisk on ``job`` now (recorded whatever the client does)."""
        now = self.model.clock.now
        n = self._width(job)
        choice = self.policy.choose(self.cluster, now, job)
        if choice.nodes is None:
            decision = Decision(False, choice.reason, choice.detail)
        else:
            estimate = job.predicted_runtime(n)
            end = max(job.deadline, now + estimate)  # at its share, or alone on its nodes
            value = job.utility(end)
            decision = Decision(True, choice.reason, choice.detail, n, now, end, value, value)
            self._quoted = (job.id, choice.nodes)
        self.records[job.id] = JobRecord(job, decision)
        return decision

    def commit(self, job: Job) -> None:
        """Start ``job`` on the nodes its quote chose (the cluster is unchanged since)."""
        record = self.records[job.id]
        quoted, self._quoted = self._quoted, None
        if not record.decision.accepted or quoted is None or quoted[0] != job.id:
            raise ValueError(f"{self.name} did not just accept job {job.id}")
        now, nodes = self.model.clock.now, quoted[1]
        n = len(nodes)
        for j in nodes:  # the rent so far goes to the jobs there before this one
            self._share_rent(j, self.cluster.on_node[j], now)
        self.cluster.admit(now, job.id, nodes, job.runtime(n), job.predicted_runtime(n),
                           job.deadline)  # fmt: skip
        record.committed, record.processors, record.start, record.rent = True, n, now, 0.0
        self.accepted += 1
        self.running += 1
        rp = self.resource_provider
        for j in nodes:
            if j not in self._leases:
                self._leases[j] = rp.rent(self.name, 1, job.deadline, job.id)
                self._charged[j] = now
        self.busy = len(self._leases)
        self._expect_completion()

    def _share_rent(self, node: int, jobs, now: float) -> None:
        """Share the rent of ``node`` since it was last shared out equally among ``jobs`` (the
        ids of the jobs on it all that time)."""
        lease, since = self._leases.get(node), self._charged.get(node)
        if lease is None or since is None or now <= since or not jobs:
            return
        part = lease.factor * self.resource_provider.schedule.cost(1, since, now) / len(jobs)
        for job_id in jobs:
            self.records[job_id].rent += part
        self._charged[node] = now

    def _expect_completion(self) -> None:
        """One event, at the cluster's next completion (moved when rates change)."""
        at = self.cluster.next_completion()
        if self._event is not None:
            if self._event.time == at:
                return
            self._event.cancel()
            self._event = None
        if at is not None:
            self._event = self.model.clock.at(at, self._complete_due, Priority.HIGH)

    def _complete_due(self) -> None:
        self._event = None
        now = self.model.clock.now
        rp = self.resource_provider
        done = self.cluster.complete_due(now)
        ended: dict[int, list[int]] = {}  # node -> the jobs that ended on it, in order
        for shared in done:
            for j in shared.nodes:
                ended.setdefault(j, []).append(shared.id)
        for j in sorted(ended):  # their rent, shared out
            self._share_rent(j, [*self.cluster.on_node[j], *ended[j]], now)
        for shared in done:
            record = self.records[shared.id]
            self._finish(record, now, record.rent)
            for j in shared.nodes:
                if not self.cluster.on_node[j]:
                    rp.release(self._leases.pop(j))
        self.busy = len(self._leases)
        self.model.note_progress(now)
        self._expect_completion()
        if self.idle:
            self.model.check_finished()


class EDFProvider(ClusterProvider):
    """Earliest deadline first on space-shared processors, with or without admission control."""

    def __init__(self, model, name, policy: SpaceSharing, resource_provider) -> None:
        super().__init__(model, name, policy, resource_provider)
        self._leases: dict[int, Lease] = {}  # job id -> lease
        self.completions = model.clock.completions(self._complete)

    def quote(self, job: Job) -> Decision:
        """Queue every job (EDF decides when it selects it)."""
        self._width(job)
        decision = Decision(True, "queued", "earliest deadline first: decided when selected")
        self.records[job.id] = JobRecord(job, decision)
        return decision

    def commit(self, job: Job) -> None:
        """Queue ``job`` in deadline order and start what can start."""
        record = self.records[job.id]
        record.committed = True
        self.accepted += 1
        heapq.heappush(self._waiting, (*self.policy.priority(job), job))
        self._select()

    def _select(self) -> None:
        """Start or reject from the head of the queue while the head can start (§4)."""
        now = self.model.clock.now
        queue = self._waiting
        while queue:
            job = queue[0][-1]
            n = job.max_shape
            if not self.policy.admits(job, now):
                heapq.heappop(queue)
                record = self.records[job.id]
                record.committed = False
                self.accepted -= 1
                client = self.model.clients.get(job.client or "client")
                if client is not None:  # the client placed it here: it is rejected after all
                    client.withdrawn(job)
                record.decision = Decision(
                    False, "deadline-unreachable",
                    f"selected at {now:.3f} h: estimate ends after the deadline {job.deadline:.3f}",
                )  # fmt: skip
                continue
            if n > self.size - self.busy:
                return  # the head waits for processors (no backfilling)
            heapq.heappop(queue)
            self._start(job, n, now)

    def _start(self, job: Job, n: int, now: float) -> None:
        record = self.records[job.id]
        end = now + job.runtime(n)
        lease = self.resource_provider.rent(self.name, n, now + job.predicted_runtime(n), job.id)
        self._leases[job.id] = lease
        record.processors, record.start = n, now
        self.busy += n
        self.running += 1
        self.completions.add(end, job.id)

    def _complete(self, job_ids: list[int], now: float) -> None:
        for job_id in job_ids:
            record = self.records[job_id]
            self.busy -= record.processors
            self._finish(record, now, self.resource_provider.release(self._leases.pop(job_id)))
        self.model.note_progress(now)
        self._select()
        if self.idle:
            self.model.check_finished()


def cluster_provider(model, name: str, policy: ClusterPolicy, resource_provider):
    """The provider that runs ``policy``: time-shared for Libra and LibraRisk, space-shared for
    EDF."""
    if resource_provider.varies:
        raise ScenarioError(
            f"service provider {name}: a deadline cluster needs a resource provider without "
            "uncertainty"
        )
    if isinstance(policy, TimeSharing):
        return TimeSharedProvider(model, name, policy, resource_provider)
    if isinstance(policy, SpaceSharing):
        return EDFProvider(model, name, policy, resource_provider)
    raise TypeError(f"{type(policy).__name__} is neither a TimeSharing nor a SpaceSharing policy")
