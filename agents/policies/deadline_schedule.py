"""The deadline schedule that QoPS, MSB and MRT search (Islam et al., TR21 §2.2, §3).

A schedule is an order of the waiting jobs, each placed at its earliest start on what the jobs
before it left (conservative backfilling); a policy admits a job only on an order in which every
job meets its deadline, returned as ``Decision.queue_order``. Shared rules (ours where the paper
is silent): rigid jobs planned on their estimates; a miss is an end more than :data:`TOLERANCE`
past the deadline, and a job already late in the current schedule is no violation; heuristic
orders ``edf`` and ``llf``, jobs without a deadline last; reasons ``meets-deadlines``,
``deadline-miss``, ``no-fit``. A waiting job whose reservation starts now has started
(:func:`start_due`; §3 reorders only jobs not yet started). Each job's :data:`Entry` is computed
once per decision.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from itertools import pairwise
from operator import itemgetter
from typing import ClassVar, Literal, NamedTuple

from agents.policies.backfill import rigid_shape
from agents.policies.base import Admission, Decision, PlanContext, Scheduler
from market.core.capacity import CapacityProfile
from market.core.jobs import Job

TOLERANCE = 1e-9  # hours: a planned end this much past a deadline still meets it

Order = Literal["edf", "llf"]
Rank = tuple[float, float, int]
# A job as the planners see it in one decision: (job, shape, estimated runtime, latest end,
# heuristic rank). The latest end is the deadline plus TOLERANCE, or inf for a job without a
# deadline or already late in the current schedule.
Entry = tuple[Job, int, float, float, Rank | None]
# (job, shape, start, end) of a placed job; start and end are inf for one that can never run
Slot = tuple[Job, int, float, float]
RANK = itemgetter(4)
# The new job placed alone at its earliest start: a copy of the capacity with it reserved, and
# its slot (:func:`precheck`)
First = tuple[CapacityProfile, list[Slot]]


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


def entries(jobs: Iterable[Job], key: Callable[[Job], Rank] | None) -> list[Entry]:
    """The :data:`Entry` of each of ``jobs`` (ranked by ``key``, or unranked if None). The shape
    is :func:`~agents.policies.backfill.rigid_shape` unpinned, the widest (inlined: this runs for
    every waiting job at every decision)."""
    inf = math.inf
    out: list[Entry] = []
    append = out.append
    for job in jobs:
        n = job.shapes[-1]
        due = job.deadline
        due = inf if due is None else due + TOLERANCE
        append((job, n, job.predicted_runtime(n), due, None if key is None else key(job)))
    return out


def fill(profile: CapacityProfile, entries: Iterable[Entry], now: float, slots: list[Slot]) -> int:
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


def unfill(profile: CapacityProfile, entries: Iterable[Entry], slots: Iterable[Slot]) -> None:
    """Take the reservations of ``entries`` placed at ``slots`` back off ``profile``."""
    for (_, n, start, _), (_, _, runtime, _, _) in zip(slots, entries, strict=True):
        if start != math.inf:
            profile.release(start, runtime, n)


class Current(NamedTuple):
    """The current schedule, from :func:`current_schedule`."""

    entries: list[Entry]  # the waiting jobs in order of planned start
    slots: list[Slot]  # their slots, in that order
    snapshots: dict[int, CapacityProfile] | None  # the profile left by the first p of them
    late: bool  # whether any job misses its deadline there


def current_schedule(ctx: PlanContext, waiting: list[Entry], keep: Iterable[int] = ()) -> Current:
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
    placed: list[Entry] = []
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
        placed.append(entry)
        slots.append((job, n, start, start + runtime))
    if len(waiting) in keep:
        snapshots[len(waiting)] = profile
    if all(a[2] <= b[2] for a, b in pairwise(slots)):
        return Current(placed, slots, snapshots, late)
    order = sorted(range(len(placed)), key=lambda i: slots[i][2])  # stable: ties keep order
    return Current([placed[i] for i in order], [slots[i] for i in order], None, late)


def start_due(
    ctx: PlanContext, waiting: list[Entry]
) -> tuple[PlanContext, list[Entry], list[Slot]]:
    """The waiting jobs whose reservation in the current schedule (the queue placed in order)
    starts now, taken as started: ``ctx`` with them reserved on a copy of its capacity, the
    other waiting jobs (queue order), and the started jobs' slots. They are still queued only
    because the scheduler starts jobs at the end of the instant. Cheap when none can start:
    nothing is placed unless a waiting job fits what is free now, and placing stops once none
    left does."""
    now, capacity = ctx.now, ctx.capacity
    free = capacity.free_at(now)
    if not any(entry[1] <= free for entry in waiting):
        return ctx, waiting, []
    smallest = [math.inf] * (len(waiting) + 1)  # the narrowest job from each on
    for i in range(len(waiting) - 1, -1, -1):
        smallest[i] = min(waiting[i][1], smallest[i + 1])
    profile = capacity.copy()
    started: list[Slot] = []
    rest: list[Entry] = []
    for i, entry in enumerate(waiting):
        if smallest[i] > profile.free_at(now):  # nothing left can start now
            rest.extend(waiting[i:])
            break
        job, n, runtime, _, _ = entry
        start = profile.reserve_earliest(n, runtime, now)
        if start <= now:
            started.append((job, n, start, start + runtime))
        else:
            rest.append(entry)
    if not started:
        return ctx, waiting, []
    kept = capacity.copy()
    for _, n, start, end in started:
        kept.reserve(start, end - start, n)
    return replace(ctx, capacity=kept), rest, started


def with_started(decision: Decision, started: list[Slot]) -> Decision:
    """``decision`` with the ``started`` jobs first in its queue order and its schedule (see
    :func:`start_due`: placed first on the context's capacity, each starts now all the same)."""
    if not started or not decision.accepted or decision.queue_order is None:
        return decision
    ids = tuple(slot[0].id for slot in started)
    schedule = decision.schedule
    if schedule is not None:
        schedule = (*started, *schedule)
    return replace(decision, queue_order=ids + decision.queue_order, schedule=schedule)


def precheck(new: Entry, ctx: PlanContext) -> Decision | First:
    """Reject a job that can never run on the pool, or cannot meet its deadline even alone;
    else place it at its earliest start on a copy of ``ctx.capacity`` (where QoPS's point 0
    goes on), and return that profile and its slot."""
    job, n, runtime, due, _ = new
    profile = ctx.capacity.copy()
    start = profile.reserve_earliest(n, runtime, ctx.now, due)
    if start == math.inf:
        return Decision(
            False, "no-fit", f"{n} processors for {runtime:.4g} h never fit the capacity"
        )
    end = start + runtime
    if end > due:
        detail = (
            f"even at its earliest start ({start:.4g} h) it would end at {end:.4g} h, after its "
            f"deadline {job.deadline:.4g} h"
        )
        return Decision(False, "deadline-miss", detail, processors=n, start=start, end=end)
    return profile, [(job, n, start, end)]


def accept(
    job: Job, ctx: PlanContext, slots: list[Slot], why: str, in_order: bool = False, **extra
) -> Decision:
    """Admit ``job`` on the schedule ``slots`` (every waiting job's, in the order the queue
    takes): the conservative scheduler's plan of the queue in that order on the same context.
    ``in_order``: the slots were placed in that order, each at its earliest start, with no
    reservation taken back on the way (so the decision carries them as its ``schedule``).
    ``extra`` goes to the :class:`Decision` (e.g. ``gain``)."""
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
        schedule=tuple(slots) if in_order else None,
        **extra,
    )


class Guarantee(Admission):
    """What QoPS, MSB and MRT share: an order of the waiting jobs (``key``, None for their
    planned starts), the entries of one decision, and :func:`precheck` before the policy's own
    search (:meth:`search`)."""

    scheduler: ClassVar[str | None] = "conservative"  # the plan its guarantee is about

    def __init__(self, order: str, key: Callable[[Job], Rank] | None) -> None:
        self.order = order
        self.key = key

    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        new = entries((job,), self.key)[0]
        ctx, waiting, started = start_due(ctx, entries(queue, self.key))
        first = precheck(new, ctx)
        if isinstance(first, Decision):
            return first
        return with_started(self.search(new, waiting, ctx, first), started)

    @abstractmethod
    def search(self, new: Entry, waiting: list[Entry], ctx: PlanContext, first: First) -> Decision:
        """Admit the job of ``new`` if a schedule of it and ``waiting`` (the queue's entries, in
        queue order) meeting every deadline is found (it fits the pool, and meets its own
        deadline alone, placed so in ``first``, which the search may take over)."""
