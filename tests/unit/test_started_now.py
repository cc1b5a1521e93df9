"""A waiting job whose reservation starts now has started (agents/policies/deadline_schedule.py,
``start_due``): QoPS reorders only jobs "not yet started" (QoPS TR §3), and a job admitted
with a reservation at its arrival runs from then, so a job arriving in the same instant (a
duplicate submitted with its original, as the VQoPS paper's load rule makes them) cannot push
it back. Found comparing QoPS with an implementation that starts jobs as each decision is made:
the two parted at the first such pair of arrivals on CTC-SP2 at load 1.6."""

from __future__ import annotations

from hypothesis import given, settings

from agents.policies.backfill import Conservative
from agents.policies.deadline_schedule import entries, start_due
from agents.policies.mrt import MRT
from agents.policies.msb import MSB
from agents.policies.qops import QoPS
from agents.policies.vqops import VQoPS
from tests.unit.test_backfill import ctx_for, replay, rigid
from tests.unit.test_qops import POLICIES, check_guarantee, job_specs, stream
from tests.unit.test_vqops import priced

SCHEDULER = Conservative()

# Pool of 2, empty at 0. A (2 processors, 1 h, deadline 3) was admitted at 0 and is due to
# start now; B (2, 1 h, deadline 2) arrives in the same instant.
A, B = rigid(1, 2, 1.0, deadline=3.0), rigid(2, 2, 1.0, deadline=2.0)


def test_a_job_due_now_keeps_its_start_against_a_same_instant_arrival():
    for policy in (QoPS(), MSB(), MRT()):
        d = policy.decide(B, [A], ctx_for(2), SCHEDULER)
        # without the rule: B first [0, 1), A pushed to [1, 2) (still within its deadline)
        assert d.accepted and d.queue_order == (1, 2), type(policy).__name__
        assert (d.start, d.end) == (1.0, 2.0)


def test_a_job_waiting_for_processors_can_still_be_moved():
    # The pool is busy until 1: A is planned at [1, 2), not started; B takes its place.
    ctx = ctx_for(2, running=[(1.0, 2)])
    d = QoPS().decide(B, [A], ctx, SCHEDULER)
    assert d.accepted and d.queue_order == (2, 1) and (d.start, d.end) == (1.0, 2.0)


def test_start_due_takes_out_only_the_jobs_starting_now():
    ctx = ctx_for(4)
    c = rigid(3, 4, 1.0, deadline=9.0)  # placed after A: starts at 1
    d = rigid(4, 2, 1.0, deadline=9.0)  # fits beside A now: backfilled, starts now
    reduced, rest, started = start_due(ctx, entries([A, c, d], None))
    assert [slot[0].id for slot in started] == [1, 4]
    assert [entry[0].id for entry in rest] == [3]
    assert reduced.capacity.free_at(0.0) == 0 and reduced.capacity.free_at(1.0) == 4
    assert ctx.capacity.free_at(0.0) == 4  # the context itself is not changed


def test_start_due_places_nothing_when_no_waiting_job_fits_now():
    ctx = ctx_for(2, running=[(1.0, 1)])
    wide = entries([rigid(5, 2, 1.0, deadline=5.0)], None)
    reduced, rest, started = start_due(ctx, wide)
    assert reduced is ctx and rest is wide and started == []


def test_vqops_keeps_a_job_due_now_first():
    a = priced(1, 2, 1.0, 10.0, 3.0)
    b = priced(2, 2, 1.0, 100.0, 2.0, kind="urgent")
    d = VQoPS(oc_factor=0.0).decide(b, [a], ctx_for(2), SCHEDULER)
    assert d.accepted and d.queue_order == (1, 2)


@POLICIES
@settings(max_examples=60, deadline=None)
@given(specs=job_specs)
def test_admitted_deadlines_are_met_with_same_instant_arrivals(policy, specs):
    # job_specs arrive on a half-hour grid: many arrive together
    jobs = stream([(a, n, r, 1.0, slack) for a, n, r, _, slack in specs])
    check_guarantee(replay(jobs, 8, SCHEDULER, policy), policy)
