"""The QoPS family's decisions carry their schedule (``Decision.schedule``) when they placed it
as conservative backfilling plans the queue in the decision's order, and the planner follows it
at the dispatch of the same instant instead of planning again (agents/planner.py). Both are
only right if that schedule is exactly the scheduler's plan: checked here on random queues,
with jobs due now taken as started (deadline_schedule.start_due) as in a run."""

from __future__ import annotations

from hypothesis import given, settings

from agents.planner import Planner
from agents.policies.admission import AcceptAll
from agents.policies.backfill import Conservative
from agents.policies.mrt import MRT
from agents.policies.msb import MSB
from agents.policies.qops import QoPS
from agents.policies.vqops import VQoPS
from agents.replay import FixedPool
from tests.unit.test_backfill import ctx_for, rigid
from tests.unit.test_qops import POLICIES, QUEUES, offer
from tests.unit.test_vqops import priced

SCHEDULER = Conservative()


def followed(schedule):
    return [(job.id, n, start, end) for job, n, start, end in schedule]


def planned(ctx, jobs):
    plan = SCHEDULER.plan(ctx, jobs)
    placed = [(p.job.id, p.processors, p.start, p.end) for p in plan.placements]
    never = [(job.id, job.max_shape, float("inf"), float("inf")) for job in plan.unplaced]
    return placed + never


def test_a_schedule_placed_in_order_is_carried_and_one_reordered_is_not():
    # Pool of 4, busy until 1. A (4 wide, 1 h, deadline 3) is reserved at [1, 2). B (4 wide,
    # 1 h, deadline 2): QoPS at point 0 puts B first, [1, 2), and A after it, [2, 3), both in
    # time: a schedule placed in order, carried.
    ctx = ctx_for(4, running=[(1.0, 4)])
    a, b = rigid(1, 4, 1.0, deadline=3.0), rigid(2, 4, 1.0, deadline=2.0)
    d = QoPS().decide(b, [a], ctx, SCHEDULER)
    assert d.accepted and d.queue_order == (2, 1)
    assert followed(d.schedule) == [(2, 4, 1.0, 2.0), (1, 4, 2.0, 3.0)]
    # A reordering: C (deadline 3) first at point 0 would push A (deadline 2) past it; QoPS
    # re-sorts with A first (EDF) and C after it meets its deadline: accepted, not carried.
    a2, c = rigid(1, 4, 1.0, deadline=2.0), rigid(3, 4, 1.0, deadline=3.0)
    d = QoPS(append=False).decide(c, [a2], ctx, SCHEDULER)
    assert d.accepted and d.queue_order == (1, 3) and "reordering" in d.detail
    assert d.schedule is None


@POLICIES
@settings(max_examples=80, deadline=None)
@given(QUEUES)
def test_a_carried_schedule_is_the_conservative_plan_of_its_order(policy, queue_and_running):
    job, queue, ctx = offer(*queue_and_running)
    d = policy.decide(job, queue, ctx, SCHEDULER)
    if d.accepted and d.schedule is not None:
        by_id = {j.id: j for j in [*queue, job]}
        order = [by_id[i] for i in d.queue_order]
        assert [slot[0].id for slot in d.schedule] == list(d.queue_order)
        assert followed(d.schedule) == planned(ctx, order)


@settings(max_examples=80, deadline=None)
@given(QUEUES)
def test_vqops_carries_the_conservative_plan_of_its_order(queue_and_running):
    specs, running = queue_and_running
    jobs = [  # worth 10 per processor-hour until their earliest end, nothing at the deadline
        priced(i, n, r, 10.0 * n * r, r + (12.0 if slack is None else max(slack, 0.5)))
        for i, (n, r, slack) in enumerate(specs)
    ]
    job, queue, ctx = jobs[-1], jobs[:-1], ctx_for(8, running=running)
    d = VQoPS(oc_factor=0.0).decide(job, queue, ctx, SCHEDULER)
    if d.accepted and d.schedule is not None:
        by_id = {j.id: j for j in [*queue, job]}
        assert followed(d.schedule) == planned(ctx, [by_id[i] for i in d.queue_order])


class Counting(Conservative):
    plans = 0

    def plan(self, ctx, queue, pinned=None):
        self.plans += 1
        return super().plan(ctx, queue, pinned)


def test_the_planner_follows_the_schedule_admission_carried():
    # Pool of 4, 4 leased until 1. A (deadline 3) then B (deadline 2) offered at 0.5: each
    # decision carries its schedule, so no plan is made at either dispatch, and the plan
    # followed is B [1, 2), A [2, 3) as conservative backfilling plans that order.
    for policy in (QoPS(), MSB(), MRT()):
        pool = FixedPool(4)
        pool.lease(4, 1.0)
        scheduler = Counting()
        planner = Planner(scheduler, policy, pool)
        for job in (rigid(1, 4, 1.0, deadline=3.0), rigid(2, 4, 1.0, deadline=2.0)):
            decision = planner.quote(job, 0.5)
            assert decision.accepted and decision.schedule is not None
            planner.admit(job, decision, 0.5)
            plan = planner.plan(0.5)
        assert scheduler.plans == 0, type(policy).__name__
        placed = [(p.job.id, p.start, p.end) for p in plan.placements]
        assert placed == [(2, 1.0, 2.0), (1, 2.0, 3.0)]
    # Accept-all decisions carry none: the scheduler plans (or extends) as before.
    planner = Planner(Counting(), AcceptAll(), FixedPool(4))
    assert planner.quote(rigid(3, 1, 1.0), 0.0).schedule is None
