"""Deadline-guaranteeing admission control: QoPS and its two baselines, MSB and MRT, from Islam,
Balaji, Sadayappan & Panda, "QoPS: a QoS based scheme for parallel job scheduling"
(OSU-CISRC-4/03-TR21) §2.2 and §3.

Each policy admits a job only if it finds a schedule of the waiting jobs plus the new one in
which every job meets its deadline, and then returns that schedule's order as
``Decision.queue_order``; the service provider keeps its queue in that order. A schedule is an
*order*: the jobs are placed in it, each at its earliest start on what the jobs before it left of
``ctx.capacity`` (the running jobs already taken out), which is conservative backfilling
(:func:`agents.policies.list_scheduling.place`) and exactly what the ``conservative`` scheduler
runs on the same order. So pair these policies with ``scheduler: conservative``; the scheduler
given to :meth:`decide` is not used.

The guarantee. With exact estimates, re-planning the same order as time passes and jobs start
gives the same schedule, and a later admission only accepts a new order whose schedule meets
every deadline, so every admitted job meets its deadline (the paper's setting: "The simulation
studies reported in this paper assumed accurate user estimates", §6; tested with hypothesis in
``tests/unit/test_qops.py``). With estimates longer than the runtimes, jobs end early and an
order can misbehave: a job placed early in the order but planned late may move forward onto the
slot of a job placed after it that had backfilled ahead of it, and push it past its deadline
(``test_without_compression_an_early_end_can_cost_a_deadline``). Keeping the waiting jobs sorted
by their planned starts after every re-plan (the *compression* of conservative backfilling:
placing jobs in the order of their planned starts never delays any of them) restores the
guarantee; the service provider does not do that yet.

Common rules (ours where the paper is silent):

- Jobs are rigid, on :func:`agents.policies.backfill.rigid_shape`; plans use runtime estimates.
- A job misses its deadline if its planned end is later than the deadline (by more than
  1e-9 h). A job without a deadline (``deadline=None``) never misses.
- A waiting job that already misses its deadline in the current schedule (possible only if
  estimates were wrong) is not held against the new job: it is placed like any other job, but
  its lateness does not count as a violation.
- Heuristic orders (``order``): ``edf`` earliest deadline first, ``llf`` least laxity first
  (deadline minus estimated runtime; at one instant the same order as laxity); jobs without a
  deadline last, ties by arrival then id.
- Reasons: ``meets-deadlines`` (admitted), ``deadline-miss`` (no schedule found, or the job
  cannot meet its deadline even alone at its earliest start), ``no-fit`` (wider than the pool).
  The decision carries the new job's planned shape, start and end, its value there and profit.

The policies:

- :class:`QoPS` (``qops``, §3, Figure 3). The waiting jobs are taken in the current schedule's
  order of planned start. For each insertion point ``ts`` in ``0, N - N/2, N - N/4, ...,
  N - 1`` (the paper's ``{0, N/2, 3N/4, 7N/8, ...}``, about log2 N of them, in that order) and
  then ``N`` (appending the job, which delays nobody; our addition, so QoPS admits whatever
  conservative backfilling in arrival order could): the jobs before ``ts`` keep their order; the
  new job goes at ``ts`` (``new_job="first"``, the paper's "reservation for the newly arrived
  job", or sorted in with the others, ``"sorted"``) and the jobs from ``ts`` on follow in
  heuristic order. Jobs are placed in turn; when job ``J`` at position ``T`` misses its deadline
  (a violation), the jobs from ``mid = (ts + T) // 2`` on are re-sorted by the heuristic with
  ``J`` moved to the top, so ``J`` is placed at ``mid``, and placement restarts from there. More
  than ``k`` violations at one insertion point abandon it; the first point whose schedule meets
  every deadline is taken (§6: "looks at each of these options in a FCFS order"). Cost:
  O(k log N) schedules per arrival, each placing up to N jobs.
- :class:`MSB` (``msb``, §2.2.1, Figure 1): the waiting jobs keep one order (``order="start"``:
  their planned starts, as Figure 1 re-places removed jobs "in Ascending Scheduled Time order";
  or a heuristic order, as the text says) and the new job is tried at each of the N + 1
  positions; of the schedules meeting every deadline the cheapest is taken. The paper leaves the
  cost function open ("a pre-decided cost function"); ours, ``cost``: ``completion`` (the sum of
  the planned completion times of the waiting jobs and the new one, default) or ``makespan``
  (the last planned completion). Ties go to the earlier position. Cost: O(N) schedules.
- :class:`MRT` (``mrt``, §2.2.2, Figure 2): all waiting jobs and the new one are sorted by the
  heuristic and the schedule is rebuilt from empty, a depth-first search after Ramamritham et
  al.: the next job in heuristic order that keeps the partial schedule *strongly feasible*
  (every job in it meets its deadline, and so would each unscheduled job placed next on its own)
  is appended; a job that does not is a backtrack, and so is returning from a dead end to the
  previous partial schedule to try its next job. After ``max_backtracks`` backtracks the job is
  rejected and the old schedule kept. The paper gives no limit; 10 is our default.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

from agents.policies.backfill import rigid_shape
from agents.policies.base import Admission, Decision, PlanContext, Scheduler
from agents.policies.list_scheduling import place
from agents.policies.registry import register_admission
from market.capacity import CapacityProfile
from market.jobs import Job

TOLERANCE = 1e-9  # hours: a planned end this much past a deadline still meets it

Order = Literal["edf", "llf"]
# (job, shape, start, end) of a placed job
Slot = tuple[Job, int, float, float]


def heuristic(order: str) -> Callable[[Job], tuple[float, float, int]]:
    """The sort key of a heuristic order: ``edf`` or ``llf`` (see the module docstring)."""
    if order == "edf":

        def key(job: Job) -> tuple[float, float, int]:
            due = math.inf if job.deadline is None else job.deadline
            return due, job.arrival, job.id

    elif order == "llf":

        def key(job: Job) -> tuple[float, float, int]:
            if job.deadline is None:
                return math.inf, job.arrival, job.id
            return job.deadline - job.predicted_runtime(rigid_shape(job)), job.arrival, job.id

    else:
        raise ValueError(f"order must be 'edf' or 'llf', got {order!r}")
    return key


def insertion_points(n: int, append: bool = True) -> list[int]:
    """QoPS's insertion points for ``n`` waiting jobs: ``0, n - n//2, n - n//4, ..., n - 1``,
    then ``n`` if ``append``."""
    points = [0]
    shift = 1
    while (p := n - (n >> shift)) < n:
        if p > points[-1]:
            points.append(p)
        shift += 1
    if append and n > points[-1]:
        points.append(n)
    return points


class _Check:
    """The state one decision shares: the context, the jobs already late, and placement."""

    __slots__ = ("late", "now")

    def __init__(self, ctx: PlanContext, late: set[int]) -> None:
        self.now = ctx.now
        self.late = late

    def misses(self, job: Job, end: float) -> bool:
        due = job.deadline
        return due is not None and end > due + TOLERANCE and job.id not in self.late

    def fill(self, profile: CapacityProfile, jobs: Sequence[Job], slots: list[Slot]) -> int:
        """Place ``jobs`` in order on ``profile``, appending to ``slots``; the index of the first
        job that misses its deadline (then stop), or -1 if none does."""
        now = self.now
        for i, job in enumerate(jobs):
            n = rigid_shape(job)
            runtime = job.predicted_runtime(n)
            start = profile.earliest_start(n, runtime, now)
            end = start + runtime
            if self.misses(job, end):
                return i
            if start == math.inf:
                continue  # cannot run at all (and is late or has no deadline)
            profile.reserve(start, runtime, n)
            slots.append((job, n, start, end))
        return -1


def _current(ctx: PlanContext, queue: Sequence[Job]) -> tuple[list[Job], set[int]]:
    """The waiting jobs in order of planned start in the current schedule (the queue's order
    placed conservatively; ties and never-placed jobs keep queue order, the latter last), and
    the ids of those already missing their deadlines in it."""
    plan = place(ctx, [(job, rigid_shape(job)) for job in queue])
    start = {p.job.id: p.start for p in plan.placements}
    late = {
        p.job.id
        for p in plan.placements
        if p.job.deadline is not None and p.end > p.job.deadline + TOLERANCE
    }
    late |= {job.id for job in plan.unplaced if job.deadline is not None}
    position = {job.id: i for i, job in enumerate(queue)}
    arranged = sorted(queue, key=lambda j: (start.get(j.id, math.inf), position[j.id]))
    return arranged, late


def _precheck(job: Job, ctx: PlanContext) -> Decision | None:
    """Reject a job that can never run on the pool, or cannot meet its deadline even alone."""
    n = rigid_shape(job)
    runtime = job.predicted_runtime(n)
    start = ctx.capacity.earliest_start(n, runtime, ctx.now)
    if start == math.inf:
        return Decision(
            False, "no-fit", f"{n} processors for {runtime:.4g} h never fit the capacity"
        )
    end = start + runtime
    if job.deadline is not None and end > job.deadline + TOLERANCE:
        detail = (
            f"even at its earliest start ({start:.4g} h) it would end at {end:.4g} h, after its "
            f"deadline {job.deadline:.4g} h"
        )
        return Decision(False, "deadline-miss", detail, processors=n, start=start, end=end)
    return None


def _accept(job: Job, ctx: PlanContext, slots: list[Slot], order: list[Job], why: str) -> Decision:
    _, n, start, end = next(slot for slot in slots if slot[0] is job)
    value = job.utility(end)
    due = "no deadline" if job.deadline is None else f"deadline {job.deadline:.4g} h"
    detail = f"{why}; it runs {start:.4g}-{end:.4g} h ({due})"
    return Decision(
        True,
        "meets-deadlines",
        detail,
        processors=n,
        start=start,
        end=end,
        expected_value=value,
        expected_profit=value - ctx.rent(n, start, end),
        queue_order=tuple(j.id for j in order),
    )


@register_admission("qops")
class QoPS(Admission):
    """QoPS (§3, Figure 3): try log2 N insertion points, reordering at most ``k`` times each.

    Args:
        k: the K-factor, violations allowed per insertion point before it is abandoned. The
            paper gives no value; 5 is our choice.
        order: the heuristic, ``edf`` (default) or ``llf``.
        new_job: ``first`` puts the new job at the insertion point (the paper's reading, our
            default); ``sorted`` sorts it in with the jobs after the point.
        append: also try appending the job at the end (our addition; see the module docstring).
    """

    def __init__(
        self,
        k: int = 5,
        order: Order = "edf",
        new_job: Literal["first", "sorted"] = "first",
        append: bool = True,
    ) -> None:
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        if new_job not in ("first", "sorted"):
            raise ValueError(f"new_job must be 'first' or 'sorted', got {new_job!r}")
        self.k = k
        self.order = order
        self.key = heuristic(order)
        self.new_job = new_job
        self.append = append

    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        rejected = _precheck(job, ctx)
        if rejected is not None:
            return rejected
        arranged, late = _current(ctx, queue)
        check = _Check(ctx, late)
        key = self.key
        points = insertion_points(len(arranged), self.append)
        prefix = ctx.capacity.copy()
        prefix_slots: list[Slot] = []
        placed = 0
        for ts in points:
            if check.fill(prefix, arranged[placed:ts], prefix_slots) >= 0:
                break  # cannot happen with a feasible schedule: keeping a prefix delays nobody
            placed = ts
            if self.new_job == "first":
                tail = [job, *sorted(arranged[ts:], key=key)]
            else:
                tail = sorted([*arranged[ts:], job], key=key)
            for violations in range(self.k + 1):
                slots = prefix_slots.copy()
                miss = check.fill(prefix.copy(), tail, slots)
                if miss < 0:
                    why = f"inserted at position {ts} of {len(arranged)} waiting jobs" + (
                        f" after {violations} reordering(s)" if violations else ""
                    )
                    return _accept(job, ctx, slots, [*arranged[:ts], *tail], why)
                if violations == self.k:
                    break
                failed, mid = tail[miss], miss // 2
                tail = [*tail[:mid], failed, *sorted(tail[mid:miss] + tail[miss + 1 :], key=key)]
        detail = (
            f"no schedule meets every deadline at {len(points)} insertion point(s) with up to "
            f"k={self.k} reordering(s) each"
        )
        return Decision(False, "deadline-miss", detail)


@register_admission("msb")
class MSB(Admission):
    """Modified Slack-Based (§2.2.1, Figure 1): the new job at each of the N + 1 positions of a
    fixed order, the cheapest schedule meeting every deadline.

    Args:
        order: the fixed order of the waiting jobs: ``start`` (their planned starts, default),
            ``edf`` or ``llf``.
        cost: ``completion`` (sum of planned completions, default) or ``makespan``.
    """

    def __init__(
        self,
        order: Literal["start", "edf", "llf"] = "start",
        cost: Literal["completion", "makespan"] = "completion",
    ) -> None:
        if cost not in ("completion", "makespan"):
            raise ValueError(f"cost must be 'completion' or 'makespan', got {cost!r}")
        self.order = order
        self.key = None if order == "start" else heuristic(order)
        self.cost = cost

    def _cost(self, slots: list[Slot]) -> float:
        ends = [end for _, _, _, end in slots]
        if self.cost == "makespan":
            return max(ends)
        return math.fsum(ends)

    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        rejected = _precheck(job, ctx)
        if rejected is not None:
            return rejected
        arranged, late = _current(ctx, queue)
        if self.key is not None:
            arranged = sorted(arranged, key=self.key)
        check = _Check(ctx, late)
        prefix = ctx.capacity.copy()
        prefix_slots: list[Slot] = []
        best: tuple[float, int, list[Slot]] | None = None
        for ts in range(len(arranged) + 1):
            if ts and check.fill(prefix, arranged[ts - 1 : ts], prefix_slots) >= 0:
                break  # the fixed order itself misses a deadline before the job
            slots = prefix_slots.copy()
            if check.fill(prefix.copy(), [job, *arranged[ts:]], slots) >= 0:
                continue
            cost = self._cost(slots)
            if best is None or cost < best[0]:
                best = (cost, ts, slots)
        if best is None:
            detail = f"the job misses a deadline at each of the {len(arranged) + 1} positions"
            return Decision(False, "deadline-miss", detail)
        cost, ts, slots = best
        why = f"position {ts} of {len(arranged) + 1} is the cheapest ({self.cost} {cost:.4g} h)"
        return _accept(job, ctx, slots, [*arranged[:ts], job, *arranged[ts:]], why)


@register_admission("mrt")
class MRT(Admission):
    """Modified Real-Time (§2.2.2, Figure 2): rebuild the schedule in heuristic order, keeping
    it strongly feasible, backtracking at most ``max_backtracks`` times.

    Args:
        order: the heuristic, ``edf`` (default) or ``llf``.
        max_backtracks: backtracks allowed before the job is rejected (the paper gives no
            value; 10 is our choice).
    """

    def __init__(self, order: Order = "edf", max_backtracks: int = 10) -> None:
        if max_backtracks < 0:
            raise ValueError(f"max_backtracks must be >= 0, got {max_backtracks}")
        self.order = order
        self.key = heuristic(order)
        self.max_backtracks = max_backtracks

    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        rejected = _precheck(job, ctx)
        if rejected is not None:
            return rejected
        _, late = _current(ctx, queue)
        check = _Check(ctx, late)
        now = ctx.now
        profile = ctx.capacity.copy()
        remaining = sorted([*queue, job], key=self.key)
        chosen: list[Slot] = []
        frames: list[tuple[list[Job], int]] = []  # (remaining before, index chosen) per level
        backtracks = 0
        index = 0

        def strongly_feasible(rest: list[Job]) -> bool:
            for other in rest:
                if other.deadline is None or other.id in late:
                    continue
                n = rigid_shape(other)
                runtime = other.predicted_runtime(n)
                if check.misses(other, profile.earliest_start(n, runtime, now) + runtime):
                    return False
            return True

        while remaining:
            extended = False
            while index < len(remaining):
                candidate = remaining[index]
                n = rigid_shape(candidate)
                runtime = candidate.predicted_runtime(n)
                start = profile.earliest_start(n, runtime, now)
                rest = [*remaining[:index], *remaining[index + 1 :]]
                if start == math.inf and not check.misses(candidate, start):
                    frames.append((remaining, index))  # never runs; no deadline to keep
                    chosen.append((candidate, n, start, start))
                    remaining, index, extended = rest, 0, True
                    break
                if not check.misses(candidate, start + runtime):
                    profile.reserve(start, runtime, n)
                    if strongly_feasible(rest):
                        frames.append((remaining, index))
                        chosen.append((candidate, n, start, start + runtime))
                        remaining, index, extended = rest, 0, True
                        break
                    profile.release(start, runtime, n)
                backtracks += 1
                if backtracks > self.max_backtracks:
                    return self._reject(backtracks)
                index += 1
            if extended:
                continue
            if not frames:  # every first job fails: no schedule
                return self._reject(backtracks)
            remaining, index = frames.pop()  # dead end: back to the previous partial schedule
            _, n, start, end = chosen.pop()
            if start != math.inf:
                profile.release(start, end - start, n)
            index += 1
            backtracks += 1
            if backtracks > self.max_backtracks:
                return self._reject(backtracks)
        slots = [s for s in chosen if s[2] != math.inf]
        why = f"rebuilt in {self.order.upper()} order" + (
            f" with {backtracks} backtrack(s)" if backtracks else ""
        )
        return _accept(job, ctx, slots, [s[0] for s in chosen], why)

    def _reject(self, backtracks: int) -> Decision:
        detail = (
            f"no strongly feasible schedule within {self.max_backtracks} backtrack(s) "
            f"({backtracks} tried)"
        )
        return Decision(False, "deadline-miss", detail)
