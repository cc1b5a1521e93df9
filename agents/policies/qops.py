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
guarantee; the service provider does that for schedulers that ``compress`` (``conservative``).

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
  O(k log N) schedules per arrival, each placing up to N jobs. (Work saved, same decisions: the
  first placement at point 0 needs no current schedule unless a job is late there, so it comes
  first; later points start from copies of the profile taken while the current schedule is
  placed; a reordering takes back the reservations from ``mid`` on instead of placing the jobs
  before ``mid`` again.)
- :class:`MSB` (``msb``, §2.2.1, Figure 1): the waiting jobs keep one order (``order="start"``:
  their planned starts, as Figure 1 re-places removed jobs "in Ascending Scheduled Time order";
  or a heuristic order, as the text says) and the new job is tried at each of the N + 1
  positions; of the schedules meeting every deadline the cheapest is taken. The paper leaves the
  cost function open ("a pre-decided cost function"); ours, ``cost``: ``completion`` (the sum of
  the planned completion times of the waiting jobs and the new one, default) or ``makespan``
  (the last planned completion). Ties go to the earlier position. Cost: O(N) schedules. (Work
  saved, same decisions: at a position, while the jobs after the new one keep their slots of
  the schedule without it, once the rest all start after it ends they keep theirs too.)
- :class:`MRT` (``mrt``, §2.2.2, Figure 2): all waiting jobs and the new one are sorted by the
  heuristic and the schedule is rebuilt from empty, a depth-first search after Ramamritham et
  al.: the next job in heuristic order that keeps the partial schedule *strongly feasible*
  (every job in it meets its deadline, and so would each unscheduled job placed next on its own)
  is appended; a job that does not is a backtrack, and so is returning from a dead end to the
  previous partial schedule to try its next job. After ``max_backtracks`` backtracks the job is
  rejected and the old schedule kept. The paper gives no limit; 10 is our default. (Work
  saved: a job that would meet its deadline starting at the profile's last breakpoint needs no
  search in the strong feasibility check.)

Reading Figure 3, checked against §5.1. % of jobs unadmitted on the full 5,000-job SDSC-SP2
subset (``scenarios/qops/sdsc_load.yaml``, exact estimates; load 1.6: mean of seeds 1-3, which
alone move a policy by up to 4 points; load 1.0: seed 1; variants that are not parameters were
measured with a scratch subclass):

    load / stringency                     1.6/0.2  1.6/0.5  1.0/0.2  1.0/0.5
    QoPS (defaults: new job first, k=5)      16.2     17.4      7.3      8.7
      new job sorted in at point 0 only      18.0     17.9      7.1      8.6
      new job sorted in everywhere           16.7     18.4      7.1      8.6
      k = 0 / 2 / 10 / 20                 16.1/16.0/16.9/15.6  (1.6/0.5: 18.0/17.1/16.3/17.5)
      violating job to ts, not mid           17.0     17.4
      one k for all points together          15.3     16.4
      reject once a point exceeds k           7.1     12.2      7.2      8.7
    MSB                                      17.9     19.4      6.9      8.9
    MRT (max_backtracks=10)                  11.5     14.4      7.1      8.6
      0 / 2 / 50 backtracks (seeds 1-2)   14.8/14.4/11.9 (10: 11.6)

The defaults are the best-supported reading, not the best-scoring one: the new job first at every
point is what "points in time where its insertion into the schedule is attempted" and option 2's
"create a reservation for the newly arrived job" say (the text's option 1 does not place it; sorting
it in there admits fewer at load 1.6, 0.2 points more at 1.0); ``k`` per point with the next point
after ``k`` is what the cost O(K log N) and §6's FCFS options say, while Figure 3 step 5 read
literally (reject when one point exceeds K) never reaches a second point. That reading admits the
most jobs by rejecting big ones: it leaves 10.8 % of the processor-hours unadmitted (defaults 6.0,
MSB 7.0, MRT 8.1) at 90.0 % utilization (defaults 93.4, MSB 94.2, MRT 91.9), against §5.1's "QoPS
and MSB perform comparably". Appending never decided a job here. So §5.1's ranking reproduces only
in part at full size: QoPS admits more jobs than MSB at load 1.6 and leaves the least work
unadmitted at 0.2, and MRT has the lowest utilization (1.5-2.5 points below; the paper: 3-5 %), but
MRT admits the most jobs, and not for its backtracking; at load 1.0 all are within 0.4 points. (On
the first 600 jobs QoPS admits the most: ``tests/model/test_qops_paper.py``.)
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from operator import itemgetter
from typing import Literal, NamedTuple

from agents.policies.backfill import rigid_shape
from agents.policies.base import (
    Admission,
    Decision,
    PlanContext,
    Scheduler,
)
from agents.policies.registry import register_admission
from market.capacity import CapacityProfile
from market.jobs import Job

TOLERANCE = 1e-9  # hours: a planned end this much past a deadline still meets it

Order = Literal["edf", "llf"]
Rank = tuple[float, float, int]
# A job as the planners see it, computed once per job: (job, shape, estimated runtime, latest
# end, heuristic rank). The latest end is the deadline plus TOLERANCE, or inf for a job without
# a deadline or (in one decision) already late in the current schedule.
Entry = tuple[Job, int, float, float, Rank | None]
# (job, shape, start, end) of a placed job; start and end are inf for one that can never run
Slot = tuple[Job, int, float, float]
RANK = itemgetter(4)


def heuristic(order: str) -> Callable[[Job], Rank]:
    """The sort key of a heuristic order: ``edf`` or ``llf`` (see the module docstring)."""
    if order == "edf":

        def key(job: Job) -> Rank:
            due = math.inf if job.deadline is None else job.deadline
            return due, job.arrival, job.id

    elif order == "llf":

        def key(job: Job) -> Rank:
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


def _fill(profile: CapacityProfile, entries: Iterable[Entry], now: float, slots: list[Slot]) -> int:
    """Place ``entries`` in order on ``profile``, each at its earliest start, appending their
    slots; the index of the first that misses its latest end (it is not placed, and placement
    stops), or -1 if none does."""
    reserve = profile.reserve_earliest
    append = slots.append
    for i, (job, n, runtime, due, _) in enumerate(entries):
        start = reserve(n, runtime, now, due)
        end = start + runtime
        if end > due:
            return i
        append((job, n, start, end))
    return -1


def _unfill(profile: CapacityProfile, entries: Iterable[Entry], slots: Iterable[Slot]) -> None:
    """Take the reservations of ``entries`` placed at ``slots`` back off ``profile``."""
    for (_, n, start, _), (_, _, runtime, _, _) in zip(slots, entries, strict=True):
        if start != math.inf:
            profile.release(start, runtime, n)


class _Entries:
    """The :data:`Entry` of each job a policy plans, computed once per job (its shape, runtime,
    deadline and rank never change) and kept while it waits."""

    __slots__ = ("_by_job", "key")

    def __init__(self, key: Callable[[Job], Rank] | None) -> None:
        self.key = key
        self._by_job: dict[Job, Entry] = {}

    def __call__(self, job: Job) -> Entry:
        entry = self._by_job.get(job)
        if entry is None:
            n = rigid_shape(job)
            due = math.inf if job.deadline is None else job.deadline + TOLERANCE
            rank = None if self.key is None else self.key(job)
            entry = self._by_job[job] = (job, n, job.predicted_runtime(n), due, rank)
        return entry

    def waiting(self, queue: Sequence[Job]) -> list[Entry]:
        """The entries of ``queue``, forgetting those of jobs no longer waiting."""
        by_job = self._by_job
        if len(by_job) > 2 * len(queue) + 64:
            by_job = self._by_job = {job: by_job[job] for job in queue if job in by_job}
        return [by_job.get(job) or self(job) for job in queue]


class _Current(NamedTuple):
    """The current schedule, from :func:`_current`."""

    entries: list[Entry]  # the waiting jobs in order of planned start
    slots: list[Slot]  # their slots, in that order
    snapshots: dict[int, CapacityProfile] | None  # the profile left by the first p of them
    late: bool  # whether any job misses its deadline there


def _current(ctx: PlanContext, waiting: list[Entry], keep: Iterable[int] = ()) -> _Current:
    """The ``waiting`` jobs (in queue order) in order of planned start in the current schedule
    (the queue's order placed conservatively; ties and never-placed jobs keep queue order, the
    latter last), those already late there given no latest end, and their slots; if the queue
    is already in that order (the conservative scheduler's compression keeps it so), the profile
    left by its first ``p`` jobs for each ``p`` in ``keep`` (else None)."""
    profile = ctx.capacity.copy()
    reserve = profile.reserve_earliest
    now = ctx.now
    keep = set(keep)
    snapshots: dict[int, CapacityProfile] = {}
    entries: list[Entry] = []
    slots: list[Slot] = []
    late = False
    for i, entry in enumerate(waiting):
        if i in keep:
            snapshots[i] = profile.copy()
        job, n, runtime, due, rank = entry
        start = reserve(n, runtime, now)
        if start + runtime > due:
            entry = (job, n, runtime, math.inf, rank)
            late = True
        entries.append(entry)
        slots.append((job, n, start, start + runtime))
    if len(waiting) in keep:
        snapshots[len(waiting)] = profile
    if all(a[2] <= b[2] for a, b in pairwise(slots)):
        return _Current(entries, slots, snapshots, late)
    order = sorted(range(len(entries)), key=lambda i: slots[i][2])  # stable: ties keep order
    return _Current([entries[i] for i in order], [slots[i] for i in order], None, late)


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


def _accept(
    job: Job, ctx: PlanContext, slots: list[Slot], why: str, scheduler: Scheduler
) -> Decision:
    """Admit ``job`` on the schedule ``slots`` (every waiting job's, in the order the queue
    takes)."""
    _, n, start, end = next(slot for slot in slots if slot[0] is job)
    value = job.utility(end)
    due = "no deadline" if job.deadline is None else f"deadline {job.deadline:.4g} h"
    return Decision(
        True,
        "meets-deadlines",
        f"{why}; it runs {start:.4g}-{end:.4g} h ({due})",
        processors=n,
        start=start,
        end=end,
        expected_value=value,
        expected_profit=value - ctx.rent(n, start, end),
        queue_order=tuple(slot[0].id for slot in slots),
    )


class _Guarantee(Admission):
    """What QoPS, MSB and MRT share: an order of the waiting jobs (``key``, None for their
    planned starts), each job's :data:`Entry` computed once, and :func:`_precheck` before the
    policy's own search (:meth:`_search`)."""

    def __init__(self, order: str, key: Callable[[Job], Rank] | None) -> None:
        self.order = order
        self.key = key
        self._entries = _Entries(key)

    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        rejected = _precheck(job, ctx)
        if rejected is not None:
            return rejected
        return self._search(job, queue, ctx, scheduler)

    @abstractmethod
    def _search(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        """Admit ``job`` if a schedule meeting every deadline is found (it fits the pool, and
        meets its own deadline alone)."""


@register_admission("qops")
class QoPS(_Guarantee):
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
        super().__init__(order, heuristic(order))
        self.k = k
        self.new_job = new_job
        self.append = append

    def _search(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        new = self._entries(job)
        now = ctx.now
        # Option 1 (ts = 0) needs no current schedule unless a job is late there, so its first
        # placement comes first (at load 1.6 it alone admits a third of the jobs admitted).
        first = ctx.capacity.copy()
        waiting = self._entries.waiting(queue)
        tail = self._tail(new, waiting)
        slots: list[Slot] = []
        miss = _fill(first, tail, now, slots)
        if miss < 0:
            return self._accept(job, ctx, scheduler, slots, 0, 0)
        points = insertion_points(len(queue), self.append)
        current = _current(ctx, waiting, points)
        prefix = ctx.capacity.copy()
        kept: list[Slot] = []  # the slots of the jobs before the insertion point
        for ts in points:
            if ts == 0 and not current.late:
                found = self._reorder(first, tail, now, slots, miss)  # going on from above
            else:
                if current.snapshots is not None:
                    profile = current.snapshots[ts]  # the current schedule's first ts jobs
                    kept = current.slots[:ts]
                elif _fill(prefix, current.entries[len(kept) : ts], now, kept) >= 0:
                    break  # cannot happen with a feasible schedule: a kept prefix delays nobody
                else:
                    profile = prefix.copy()
                found = self._reorder(profile, self._tail(new, current.entries[ts:]), now)
            if found is not None:
                tail_slots, violations = found
                return self._accept(job, ctx, scheduler, kept[:ts] + tail_slots, ts, violations)
        detail = (
            f"no schedule meets every deadline at {len(points)} insertion point(s) with up to "
            f"k={self.k} reordering(s) each"
        )
        return Decision(False, "deadline-miss", detail)

    def _tail(self, new: Entry, rest: list[Entry]) -> list[Entry]:
        """The new job and the jobs after the insertion point, in heuristic order."""
        if self.new_job == "first":
            return [new, *sorted(rest, key=RANK)]
        return sorted([*rest, new], key=RANK)

    def _reorder(
        self,
        profile: CapacityProfile,
        tail: list[Entry],
        now: float,
        slots: list[Slot] | None = None,
        miss: int = -1,
    ) -> tuple[list[Slot], int] | None:
        """Figure 3 step 4: place ``tail`` on ``profile`` (or go on from ``slots``, its first
        placement, which missed at ``miss``); when job ``J`` at ``T`` misses its deadline,
        re-sort the jobs from ``mid = T // 2`` with ``J`` first and go on from there, at most
        ``k`` times. The slots of the order found and the violations, or None.

        Going on from ``mid`` takes back the reservations from ``mid`` to ``T`` rather than
        placing the jobs before ``mid`` again: the profile is then the same step function, so
        every later placement is the same."""
        if slots is None:
            slots = []
            miss = _fill(profile, tail, now, slots)
        violations = 0
        while miss >= 0:
            if violations == self.k:
                return None
            violations += 1
            done = miss // 2
            _unfill(profile, tail[done:miss], slots[done:])
            del slots[done:]
            rest = sorted(tail[done:miss] + tail[miss + 1 :], key=RANK)
            tail = [*tail[:done], tail[miss], *rest]
            miss = _fill(profile, tail[done:], now, slots)
            if miss >= 0:
                miss += done
        return slots, violations

    def _accept(
        self,
        job: Job,
        ctx: PlanContext,
        scheduler: Scheduler,
        slots: list[Slot],
        ts: int,
        violations: int,
    ) -> Decision:
        why = f"inserted at position {ts} of {len(slots) - 1} waiting jobs"
        if violations:
            why += f" after {violations} reordering(s)"
        return _accept(job, ctx, slots, why, scheduler)


@register_admission("msb")
class MSB(_Guarantee):
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
        super().__init__(order, None if order == "start" else heuristic(order))
        self.cost = cost

    def _cost(self, slots: list[Slot]) -> float:
        ends = [end for _, _, _, end in slots if end != math.inf]
        if self.cost == "makespan":
            return max(ends)
        return math.fsum(ends)

    def _search(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        arranged = _current(ctx, self._entries.waiting(queue)).entries
        if self.key is not None:
            arranged.sort(key=RANK)
        new = self._entries(job)
        now = ctx.now
        baseline: list[Slot] = []  # the fixed order without the job
        if _fill(ctx.capacity.copy(), arranged, now, baseline) >= 0:
            baseline = []  # it misses a deadline itself: no shortcut
        later = [math.inf] * (len(baseline) + 1)  # the earliest baseline start from each on
        for i in range(len(baseline) - 1, -1, -1):
            later[i] = min(baseline[i][2], later[i + 1])
        prefix = ctx.capacity.copy()
        prefix_slots: list[Slot] = []
        best: tuple[float, int, list[Slot]] | None = None
        for ts in range(len(arranged) + 1):
            if ts and _fill(prefix, arranged[ts - 1 : ts], now, prefix_slots) >= 0:
                break  # the fixed order itself misses a deadline before the job
            slots = prefix_slots.copy()
            if not _insert(prefix.copy(), new, arranged, ts, baseline, later, now, slots):
                continue
            cost = self._cost(slots)
            if best is None or cost < best[0]:
                best = (cost, ts, slots)
        if best is None:
            detail = f"the job misses a deadline at each of the {len(arranged) + 1} positions"
            return Decision(False, "deadline-miss", detail)
        cost, ts, slots = best
        why = f"position {ts} of {len(arranged) + 1} is the cheapest ({self.cost} {cost:.4g} h)"
        return _accept(job, ctx, slots, why, scheduler)


def _insert(
    profile: CapacityProfile,
    new: Entry,
    arranged: list[Entry],
    ts: int,
    baseline: list[Slot],
    later: list[float],
    now: float,
    slots: list[Slot],
) -> bool:
    """MSB's Figure 1 steps b-c: place ``new`` then ``arranged[ts:]`` on ``profile`` (the first
    ``ts`` placed), appending their slots; whether every deadline is met.

    An exact shortcut: while each job after the new one keeps its slot in ``baseline`` (all of
    ``arranged`` placed without it), the profile is the baseline's less the new job, so once the
    jobs left all start after the new job ends (``later[p]``: the earliest baseline start from
    ``p`` on), they keep their baseline slots too."""
    if _fill(profile, (new,), now, slots) >= 0:
        return False
    if not baseline:
        return _fill(profile, arranged[ts:], now, slots) < 0
    end = slots[-1][3]
    for p in range(ts, len(arranged)):
        if later[p] >= end:
            slots.extend(baseline[p:])
            return True
        if _fill(profile, arranged[p : p + 1], now, slots) >= 0:
            return False
        if slots[-1][2] != baseline[p][2]:  # moved: no shortcut from here on
            return _fill(profile, arranged[p + 1 :], now, slots) < 0
    return True


@register_admission("mrt")
class MRT(_Guarantee):
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
        super().__init__(order, heuristic(order))
        self.max_backtracks = max_backtracks

    def _search(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        arranged = _current(ctx, self._entries.waiting(queue)).entries
        now = ctx.now
        profile = ctx.capacity.copy()
        remaining = sorted([*arranged, self._entries(job)], key=RANK)
        chosen: list[Slot] = []
        frames: list[tuple[list[Entry], int]] = []  # (remaining before, index chosen) per level
        backtracks = 0
        index = 0

        while remaining:
            extended = False
            while index < len(remaining):
                _, n, runtime, due, _ = candidate = remaining[index]
                rest = [*remaining[:index], *remaining[index + 1 :]]
                start = profile.reserve_earliest(n, runtime, now, due)
                if start + runtime <= due:  # it meets its deadline, or never runs and has none
                    if start == math.inf or _strongly_feasible(profile, rest, now):
                        frames.append((remaining, index))
                        chosen.append((candidate[0], n, start, start + runtime))
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
            _, n, start, _ = chosen.pop()
            if start != math.inf:
                profile.release(start, remaining[index][2], n)
            index += 1
            backtracks += 1
            if backtracks > self.max_backtracks:
                return self._reject(backtracks)
        why = f"rebuilt in {self.order.upper()} order" + (
            f" with {backtracks} backtrack(s)" if backtracks else ""
        )
        return _accept(job, ctx, chosen, why, scheduler)

    def _reject(self, backtracks: int) -> Decision:
        detail = (
            f"no strongly feasible schedule within {self.max_backtracks} backtrack(s) "
            f"({backtracks} tried)"
        )
        return Decision(False, "deadline-miss", detail)


def _strongly_feasible(profile: CapacityProfile, rest: Iterable[Entry], now: float) -> bool:
    """Whether each of ``rest`` placed next on its own would meet its deadline (§2.2.2). A job
    that would meet it even starting when the profile has settled needs no search."""
    settled, room = profile.settled
    settled = max(settled, now)
    for _, n, runtime, due, _ in rest:
        if (
            due != math.inf
            and (n > room or settled + runtime > due)
            and profile.earliest_start(n, runtime, now) + runtime > due
        ):
            return False
    return True
