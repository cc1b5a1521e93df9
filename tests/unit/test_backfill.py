"""FCFS, EASY and conservative backfilling on hand-made queues whose schedules are worked out
below, their defining properties (hypothesis), and the standalone EASY simulation of
market.inputs.workloads.deadlines against the ``easy`` scheduler run event by event.

:func:`replay` is a small event loop that runs a scheduler (and optionally an admission
policy) over a job stream the way :class:`agents.service_provider.ServiceProviderAgent` does,
without Mesa: at each instant completions first, then arrivals (each offered to admission with
the queue as it stands, its ``queue_order`` applied), then one re-plan that starts every
placement due now; the next wake-up is the next arrival, completion or planned start.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.policies import PlanContext, make_scheduler
from agents.policies.backfill import EASY, FCFS, Conservative
from agents.policies.base import Admission, Decision, Scheduler
from market.core.capacity import CapacityProfile
from market.core.jobs import Job
from market.core.utility import UtilityFunction
from tests.easy_oracle import easy_schedule


def rigid(
    id: int,
    processors: int,
    runtime: float,
    *,
    arrival: float = 0.0,
    estimate: float | None = None,
    deadline: float | None = None,
) -> Job:
    """A trace-like rigid job (``processors`` x ``runtime`` hours), worth nothing."""
    return Job(
        id,
        arrival,
        processors * runtime,
        UtilityFunction.constant(0.0),
        shapes=(processors,),
        work_estimate=None if estimate is None else processors * estimate,
        deadline=deadline,
    )


def ctx_for(capacity: int, now: float = 0.0, running: Sequence[tuple[float, int]] = ()):
    """A pool of ``capacity`` with ``running`` jobs as (planned end, processors)."""
    profile = CapacityProfile(capacity, origin=now)
    for end, n in running:
        if end > now:
            profile.reserve(now, end - now, n)
    return PlanContext(now, profile, 0.0)


@dataclass
class Outcome:
    """What happened to one job in a :func:`replay`."""

    job: Job
    decision: Decision | None = None
    start: float | None = None
    end: float | None = None


def replay(
    jobs: Sequence[Job],
    capacity: int,
    scheduler: Scheduler,
    admission: Admission | None = None,
    compress: bool = False,
) -> dict[int, Outcome]:
    """Run ``jobs`` (rigid, by arrival) through ``scheduler`` (and ``admission``, if given) on a
    pool of ``capacity``; every job's decision, actual start and end (see the module docstring).

    ``compress``: after every re-plan, keep the waiting jobs sorted by their planned starts (ties
    and unplanned jobs in queue order), as conservative backfilling compresses its schedule when
    a job ends early; the service provider itself keeps the queue as it is."""
    pending = sorted(jobs, key=lambda j: (j.arrival, j.id))
    out = {job.id: Outcome(job) for job in pending}
    queue: list[Job] = []
    running: dict[int, tuple[int, float]] = {}  # id -> (processors, planned end)
    completions: list[tuple[float, int]] = []
    free = capacity
    wake = math.inf
    i = 0
    while i < len(pending) or queue or completions:
        now = min(
            pending[i].arrival if i < len(pending) else math.inf,
            completions[0][0] if completions else math.inf,
            wake,
        )
        if now == math.inf:
            break  # only jobs that never fit are left
        while completions and completions[0][0] <= now:
            _, job_id = heapq.heappop(completions)
            free += running.pop(job_id)[0]

        def context() -> PlanContext:
            return ctx_for(capacity, now, [(end, n) for n, end in running.values()])  # noqa: B023

        while i < len(pending) and pending[i].arrival <= now:
            job = pending[i]
            i += 1
            if admission is not None:
                decision = admission.decide(job, queue, context(), scheduler)
                out[job.id].decision = decision
                if not decision.accepted:
                    continue
            queue.append(job)
            if admission is not None and decision.queue_order is not None:
                position = {job_id: k for k, job_id in enumerate(decision.queue_order)}
                assert sorted(position) == sorted(j.id for j in queue)
                queue.sort(key=lambda j: position[j.id])
        plan = scheduler.plan(context(), queue)
        started = set()
        for p in plan.due(now):
            if p.processors > free:
                continue  # planned on more than is free (only with overrunning estimates)
            free -= p.processors
            started.add(p.job.id)
            running[p.job.id] = (p.processors, now + p.job.predicted_runtime(p.processors))
            end = now + p.job.runtime(p.processors)
            heapq.heappush(completions, (end, p.job.id))
            out[p.job.id].start, out[p.job.id].end = now, end
        queue = [job for job in queue if job.id not in started]
        if compress:
            planned = {p.job.id: p.start for p in plan.placements}
            queue.sort(key=lambda j: planned.get(j.id, math.inf))  # stable: ties keep order
        wake = plan.next_start(now) or math.inf
    return out


def starts(plan) -> dict[int, float]:
    return {p.job.id: p.start for p in plan.placements}


# -- the hand-made queue --------------------------------------------------------------------------
# A pool of 4 processors, empty at time 0; the queue, in order: (processors, hours)
#   J1 (3, 4)  J2 (2, 2)  J3 (2, 3)  J4 (1, 5)  J5 (1, 1)
QUEUE = [rigid(1, 3, 4), rigid(2, 2, 2), rigid(3, 2, 3), rigid(4, 1, 5), rigid(5, 1, 1)]


def test_conservative_plan_by_hand():
    # J1 [0,4) leaves 1 free until 4.  J2 needs 2: at 4, [4,6).  J3 (2 for 3 h) fits at 4
    # beside J2: [4,7).  J4 (1 for 5 h) cannot start before 6 ([4,6) is full): [6,11).
    # J5 (1 for 1 h) backfills at 0 beside J1: [0,1).
    plan = Conservative().plan(ctx_for(4), QUEUE)
    assert starts(plan) == {1: 0, 2: 4, 3: 4, 4: 6, 5: 0}
    assert plan.unplaced == []
    result = replay(QUEUE, 4, Conservative())  # with exact estimates nothing changes
    assert {k: o.start for k, o in result.items()} == {1: 0, 2: 4, 3: 4, 4: 6, 5: 0}


def test_fcfs_plan_by_hand():
    # As conservative, but no job may start before the one queued before it: J5 waits for
    # J4's start at 6, and 1 processor is free on [6,7) beside J3 and J4: [6,7).
    plan = FCFS().plan(ctx_for(4), QUEUE)
    assert starts(plan) == {1: 0, 2: 4, 3: 4, 4: 6, 5: 6}
    result = replay(QUEUE, 4, FCFS())
    assert {k: o.start for k, o in result.items()} == {1: 0, 2: 4, 3: 4, 4: 6, 5: 6}


def test_easy_plan_and_run_by_hand():
    # Plan at 0: J1 starts; J2 (head) is reserved at 4 ([4,6)); J3 (2) does not fit now;
    # J4 (1 for 5 h) fits now: it runs past 4 but the reservation leaves 4 - 2 = 2 spare;
    # J5 finds nothing free now. The plan holds J1, J4 (now) and J2 (reserved) only.
    plan = EASY().plan(ctx_for(4), QUEUE)
    assert starts(plan) == {1: 0, 2: 4, 4: 0}
    assert plan.unplaced == [] and plan.next_start(0) == 4
    # Run: at 4 J1 ends, J2 starts (1 free); J3 is now the head, reserved at 5 when J4 ends;
    # J5 (1 h) ends by 5, so it backfills at 4. At 5 J3 starts.
    expected = {1: 0, 2: 4, 3: 5, 4: 0, 5: 4}
    result = replay(QUEUE, 4, EASY())
    assert {k: o.start for k, o in result.items()} == expected
    # the standalone EASY simulation used for deadlines agrees
    got = easy_schedule(np.zeros(5), [3, 2, 2, 1, 1], [4, 2, 3, 5, 1], [4, 2, 3, 5, 1], 4)
    assert got.tolist() == [expected[k] for k in range(1, 6)]


def test_easy_with_running_jobs_and_the_head_reservation():
    # Pool 8; running: 4 processors until 2, 2 until 5 (2 free now).
    # Queue: A (6, 1 h) head: 6 free only at 2 -> reserved [2,3), leaving 8 - 2 - 6 = 0 spare.
    # B (2, 3 h): fits now but would run past 2 on processors A needs -> waits.
    # C (2, 2 h): fits now and ends at 2 -> starts now.
    ctx = ctx_for(8, running=[(2.0, 4), (5.0, 2)])
    queue = [rigid(1, 6, 1), rigid(2, 2, 3), rigid(3, 2, 2)]
    assert starts(EASY().plan(ctx, queue)) == {1: 2, 3: 0}
    # conservative reserves B after A: at 3 ([3,6): 2 free beside the job running to 5)
    assert starts(Conservative().plan(ctx, queue)) == {1: 2, 2: 3, 3: 0}


def test_a_job_wider_than_the_pool_is_unplaced_and_blocks_nobody():
    queue = [rigid(1, 2, 1), rigid(9, 8, 1), rigid(2, 4, 1), rigid(3, 2, 1)]
    for scheduler in (FCFS(), EASY(), Conservative()):
        plan = scheduler.plan(ctx_for(4), queue)
        assert [j.id for j in plan.unplaced] == [9], scheduler.name
        assert starts(plan)[1] == 0 and starts(plan)[2] == 1, scheduler.name


def test_easy_behind_the_head_uses_a_moldable_jobs_pinned_shape():
    # Pool of 4: A (3 procs, 2 h) starts now, H (4 procs) is the head, reserved at 2; behind it
    # W (8 procs) never fits, M (1, 2 or 4 procs, 1.5 h on one) and N (2 or 4) wait for a
    # place. Pinned to one processor, M backfills now on the one processor A leaves, ending
    # at 1.5, before the head's reservation; N (2 at least) still waits; unpinned, M is run on
    # its widest shape and waits too.
    def moldable(id, shapes, work):
        return Job(id, 0.0, work, UtilityFunction.constant(0.0), shapes=shapes)

    queue = [rigid(1, 3, 2.0), rigid(2, 4, 1.0), rigid(9, 8, 1.0)]
    queue += [moldable(5, (1, 2, 4), 1.5), moldable(6, (2, 4), 1.0)]
    ctx = ctx_for(4)
    ctx.shapes = {5: 1}
    plan = EASY().plan(ctx, queue)
    assert starts(plan) == {1: 0.0, 2: 2.0, 5: 0.0}
    assert plan.placement_of(5).end == 1.5
    assert [j.id for j in plan.unplaced] == [9]
    ctx.shapes = {}
    assert starts(EASY().plan(ctx, queue)) == {1: 0.0, 2: 2.0}


def test_schedulers_plan_with_estimates_and_are_registered():
    job = rigid(1, 2, 1.0, estimate=3.0)
    for name in ("fcfs", "easy", "conservative"):
        plan = make_scheduler(name).plan(ctx_for(4), [job])
        assert plan.placements[0].end == 3.0
        assert make_scheduler(name).reward(plan, ctx_for(4)) == plan.profit


def test_a_pinned_shape_wins():
    job = Job(1, 0.0, 4.0, UtilityFunction.constant(1.0), shapes=(1, 2, 4))
    assert Conservative().plan(ctx_for(4), [job]).placements[0].processors == 4  # widest
    assert EASY().plan(ctx_for(4), [job], pinned={1: 2}).placements[0].processors == 2


# -- properties -----------------------------------------------------------------------------------
SIZES = st.sampled_from([1, 2, 4, 8])
HOURS = st.integers(1, 10).map(lambda k: k / 2)  # halves: exact in binary
queues = st.lists(st.tuples(SIZES, HOURS), min_size=1, max_size=12)
running = st.lists(st.tuples(HOURS, st.sampled_from([1, 2])), max_size=3)


def build(items) -> list[Job]:
    return [rigid(i, n, r) for i, (n, r) in enumerate(items)]


@settings(max_examples=150, deadline=None)
@given(queues, st.tuples(SIZES, HOURS), running)
def test_conservative_never_delays_an_existing_reservation(items, extra, busy):
    ctx = ctx_for(8, running=busy)
    queue = build(items)
    before = starts(Conservative().plan(ctx, queue))
    after = starts(Conservative().plan(ctx, [*queue, rigid(99, *extra)]))
    assert {k: v for k, v in after.items() if k != 99} == before


@settings(max_examples=150, deadline=None)
@given(queues, running)
def test_fcfs_starts_follow_the_queue_order(items, busy):
    plan = FCFS().plan(ctx_for(8, running=busy), build(items))
    planned = [p.start for p in plan.placements]
    assert planned == sorted(planned)


@settings(max_examples=150, deadline=None)
@given(queues, running)
def test_easy_starts_now_or_is_the_one_reservation(items, busy):
    ctx = ctx_for(8, running=busy)
    plan = EASY().plan(ctx, build(items))
    later = [p for p in plan.placements if p.start > 0]
    assert len(later) <= 1
    if later:  # the head: the first job not starting now, at its conservative start
        head = later[0].job
        before = [j for j in build(items) if j.id < head.id]
        assert all(plan.placement_of(j.id) is not None for j in before)
        solo = Conservative().plan(ctx, [*(p.job for p in plan.placements if p.start == 0
                                           and p.job.id < head.id), head])  # fmt: skip
        assert later[0].start == solo.placement_of(head.id).start


arrivals = st.lists(
    st.tuples(st.integers(0, 12).map(lambda k: k / 2), SIZES, HOURS), min_size=1, max_size=25
)


@settings(max_examples=150, deadline=None)
@given(arrivals)
def test_standalone_easy_matches_the_easy_scheduler_event_by_event(items):
    jobs = [rigid(i, n, r, arrival=a) for i, (a, n, r) in enumerate(items)]
    result = replay(jobs, 8, EASY())
    a, n, r = (np.array(x, dtype=float) for x in zip(*items, strict=True))
    got = easy_schedule(a, n.astype(int), r, r, 8)
    assert got.tolist() == [result[i].start for i in range(len(jobs))]


@settings(max_examples=100, deadline=None)
@given(arrivals)
def test_replayed_schedules_respect_arrivals_and_capacity(items):
    jobs = [rigid(i, n, r, arrival=a) for i, (a, n, r) in enumerate(items)]
    for scheduler in (FCFS(), EASY(), Conservative()):
        result = replay(jobs, 8, scheduler)
        events = []
        for o in result.values():
            assert o.start is not None and o.start >= o.job.arrival
            events += [(o.start, o.job.max_shape), (o.end, -o.job.max_shape)]
        used = 0
        for _, delta in sorted(events, key=lambda e: (e[0], e[1])):
            used += delta
            assert used <= 8
