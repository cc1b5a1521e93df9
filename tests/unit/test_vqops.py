"""VQoPS and DVQoPS (Islam, Balaji, Sabin & Sadayappan, OSU-CISRC-3/07-TR17 §3, §4.2-4.3) on
hand-made cases whose answers are worked out below, and the guarantee (hypothesis): with exact
estimates and the conservative scheduler, no admitted deadline is missed."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.policies import make_admission
from agents.policies.backfill import Conservative
from agents.policies.dvqops import DVQoPS, best_of
from agents.policies.qops import QoPS
from agents.policies.vqops import VQoPS
from agents.policies.whatif import whatif_revenue
from market.core.jobs import Job
from market.inputs.workloads.priced import to_deadline_price
from tests.unit.test_backfill import ctx_for, replay
from tests.unit.test_qops import (
    check_guarantee,
    queued_not_started,  # noqa: F401  (autouse here too)
)

SCHEDULER = Conservative()


def priced(id, processors, hours, top, deadline, arrival=0.0, kind="normal"):
    """A rigid job worth ``top`` until arrival + hours, nothing at ``deadline`` (Figure 2)."""
    price = to_deadline_price(top, arrival, hours, deadline)
    return Job.rigid(id, arrival, processors * hours, price, processors, processors * hours,
                     deadline, None, kind)  # fmt: skip


def test_the_price_decays_linearly_to_zero_at_the_deadline():
    # Max 100 until 0 + 2 h (the earliest completion), 0 at the deadline 10: 12.5 per hour.
    price = to_deadline_price(100.0, 0.0, 2.0, 10.0)
    assert price(1.0) == 100.0 and price(2.0) == 100.0
    assert price(6.0) == pytest.approx(50.0)  # 100 - 4 h x 12.5
    assert price(9.0) == pytest.approx(12.5)
    assert price(10.0) == 0.0 and price(12.0) == 0.0
    assert to_deadline_price(7.0, 0.0, 1.0, None)(99.0) == 7.0  # no deadline: no decay


# One job, 4 processors for 1 h, on an empty pool of 4: it runs [0,1) and earns its maximum, so
# the gain is that maximum. Size 4 x 1 h x 3600 = 14,400 processor-seconds; at OC-Factor 0.1
# the opportunity cost is 1,440.
@pytest.mark.parametrize(("top", "accepted"), [(1439.99, False), (1440.0, True), (1440.01, True)])
def test_vqops_admits_when_the_gain_covers_oc_factor_times_size(top, accepted):
    d = VQoPS(oc_factor=0.1).decide(priced(1, 4, 1.0, top, 5.0), [], ctx_for(4), SCHEDULER)
    assert d.accepted is accepted
    assert d.gain == pytest.approx(top)
    assert d.reason == ("meets-deadlines" if accepted else "opportunity-cost")
    assert d.params == {"oc_factor": 0.1}


def test_vqops_takes_the_feasible_schedule_earning_most():
    # Queue: U (4 procs, 1 h, worth 1000 until 1, 0 at 5: -250/h). New N (4, 1 h, worth 10
    # until 1, 0 at its deadline 2). QoPS's points 0 and 1 are both feasible:
    #   N [0,1), U [1,2): 10 + 750 = 760;   U [0,1), N [1,2): 1000 + 0 = 1000.
    # Current revenue 1000: gains -240 and 0. QoPS takes point 0; VQoPS the second, gain 0.
    u, n = priced(1, 4, 1.0, 1000.0, 5.0, kind="urgent"), priced(2, 4, 1.0, 10.0, 2.0)
    assert QoPS().decide(n, [u], ctx_for(4), SCHEDULER).queue_order == (2, 1)
    d = VQoPS(oc_factor=0.0).decide(n, [u], ctx_for(4), SCHEDULER)
    assert d.accepted and d.queue_order == (1, 2) and d.gain == pytest.approx(0.0)
    assert (d.start, d.end) == (1.0, 2.0)
    # Any positive OC-Factor rejects it: 0.01 x 14,400 = 144 > 0.
    d = VQoPS(oc_factor=0.01).decide(n, [u], ctx_for(4), SCHEDULER)
    assert (d.accepted, d.reason) == (False, "opportunity-cost")


def test_vqops_favours_urgent_jobs_when_reordering_keeps_every_deadline():
    # Pool 4, every job 4 procs for 1 h. Queue (EDF): N1 (normal, worth 10 until 1, 0 at 3),
    # U1 (urgent, 1000 until 1, 0 at 5). Current: N1 [0,1) 10 + U1 [1,2) 750 = 760.
    # New X (normal, 10 until 1, 0 at 10). QoPS's points (X at 0, 1, 2, the rest in EDF):
    #   X N1 U1: 10 + 5 + 500 = 515;  N1 X U1: 10 + 8.89 + 500;  N1 U1 X: 10 + 750 + 7.78.
    # Urgent first (U1, then N1, X by EDF): 1000 + 5 + 7.78 = 1012.78, N1 still ends by 3.
    n1 = priced(1, 4, 1.0, 10.0, 3.0)
    u1 = priced(2, 4, 1.0, 1000.0, 5.0, kind="urgent")
    x = priced(3, 4, 1.0, 10.0, 10.0)
    d = VQoPS(oc_factor=0.0).decide(x, [n1, u1], ctx_for(4), SCHEDULER)
    assert d.accepted and d.queue_order == (2, 1, 3)
    assert d.gain == pytest.approx(1000.0 + 5.0 + 10.0 * 7 / 9 - 760.0)
    d = VQoPS(oc_factor=0.0, favour_urgent=False).decide(x, [n1, u1], ctx_for(4), SCHEDULER)
    assert d.queue_order == (1, 2, 3) and d.gain == pytest.approx(10.0 * 7 / 9)


# DVQoPS on a hand-made history, pool of 4:
#   A (t=0): normal, 4 procs, 2 h, worth 100 (until 2), deadline 10;
#   B (t=0.5): urgent, 4 procs, 1 h, worth 10,000 (until 1.5), deadline 2.
# OC 0:    A is admitted (gain 100 >= 0) and runs [0,2); B cannot end by 2: revenue 100.
# OC 0.05: A's cost 0.05 x 28,800 = 1,440 > 100: rejected; B runs [0.5,1.5), gain 10,000 >=
#          0.05 x 14,400 = 720: revenue 10,000.
# OC 1:    A rejected; B's cost 14,400 > 10,000: rejected. Revenue 0.
HISTORY = [
    priced(1, 4, 2.0, 100.0, 10.0),
    priced(2, 4, 1.0, 10_000.0, 2.0, arrival=0.5, kind="urgent"),
]


def test_whatif_revenue_per_oc_factor():
    vq = VQoPS()
    for oc, earned in ((0.0, 100.0), (0.05, 10_000.0), (1.0, 0.0)):

        def decide(job, queue, ctx, oc=oc):
            return vq.decide_with(job, queue, ctx, oc)

        assert whatif_revenue(HISTORY, 4, decide, SCHEDULER) == pytest.approx(earned), oc


def test_dvqops_chooses_the_oc_factor_that_earned_most():
    dv = DVQoPS(oc_factors=(0.0, 0.05, 1.0))
    dv.history = list(HISTORY)
    assert dv.choose_oc_factor(1.0, 1.0, 4, SCHEDULER) == 0.05
    # A window of 0.4 h holds only A: OC 0 earns 100, the others 0.
    assert dv.choose_oc_factor(0.45, 0.45, 4, SCHEDULER) == 0.0


def test_dvqops_records_its_changes_in_the_decisions():
    # Window 1 h from the first arrival: the decision at 0 and 0.5 use the initial OC 0 (A is
    # admitted, so B cannot be); at 1.2 the OC-Factor is re-chosen over [0.2, 1.2), which holds
    # B only: 0 and 0.05 both earn 10,000 there, and a tie keeps the current value, 0.
    dv = DVQoPS(oc_factors=(0.0, 0.05, 1.0), initial_window=1.0, windows=(1.0,))
    jobs = [*HISTORY, priced(3, 1, 0.1, 1.0, 5.0, arrival=1.2)]
    result = replay(jobs, 4, SCHEDULER, dv)
    params = [result[i].decision.params for i in (1, 2, 3)]
    assert params[0] == {"oc_factor": 0.0, "rollback_window": 1.0}
    assert result[1].decision.accepted and not result[2].decision.accepted
    assert params[2]["oc_factor"] == 0.0


def test_best_of_keeps_the_current_value_on_a_tie():
    assert best_of({0.0: 5.0, 0.1: 7.0, 0.2: 7.0}, 0.2) == 0.2
    assert best_of({0.0: 5.0, 0.1: 7.0, 0.2: 7.0}, 0.0) == 0.1


def test_bad_parameters_get_one_line_errors_naming_the_field():
    with pytest.raises(ValueError, match="oc_factor must be >= 0"):
        make_admission("vqops", oc_factor=-0.1)
    with pytest.raises(ValueError, match="oc_factors must list at least one"):
        make_admission("dvqops", oc_factors=[])
    with pytest.raises(ValueError, match="oc_factors must be >= 0"):
        make_admission("dvqops", oc_factors=[0.1, -1])
    with pytest.raises(ValueError, match="windows must"):
        make_admission("dvqops", windows=[])


# -- the guarantee ---------------------------------------------------------------------------
# A priced job: (processors, runtime, deadline factor, urgent)
JOB = (
    st.sampled_from([1, 2, 4, 8]),
    st.integers(1, 8).map(lambda k: k / 2),
    st.integers(1, 6),
    st.booleans(),
)
specs = st.lists(
    st.tuples(st.integers(0, 16).map(lambda k: k / 2), *JOB),  # arrival first
    min_size=1,
    max_size=16,
)


@pytest.mark.parametrize(
    "policy",
    [VQoPS(0.0), VQoPS(0.1), DVQoPS(windows=(1.0, 2.0), max_window=4.0, initial_window=1.0)],
    ids=["vqops-0", "vqops-0.1", "dvqops"],
)
@settings(max_examples=60, deadline=None)
@given(specs=specs)
def test_admitted_deadlines_are_met_with_exact_estimates(policy, specs):
    jobs = [
        priced(i, n, r, n * r * 360.0 * (10 if hot else 1), a + f * r, arrival=a)
        for i, (a, n, r, f, hot) in enumerate(sorted(specs))
    ]
    if isinstance(policy, DVQoPS):  # a fresh learner per example
        policy = DVQoPS(windows=(1.0, 2.0), max_window=4.0, initial_window=1.0)
    result = replay(jobs, 8, SCHEDULER, policy)
    for o in result.values():
        if o.decision.accepted:
            assert o.end is not None and o.end <= o.job.deadline + 1e-9
    check_guarantee({i: o for i, o in result.items() if o.decision.accepted}, QoPS())


# -- what the what-ifs take from an appraisal -----------------------------------------------------
RUNNING = st.tuples(st.integers(1, 8).map(lambda k: k / 2), st.sampled_from([1, 2, 4]))
offers = st.tuples(
    st.lists(st.tuples(*JOB), min_size=1, max_size=10),
    st.lists(RUNNING, max_size=3).filter(lambda r: sum(n for _, n in r) <= 8),
)


def appraised(policy, specs, running, compressed):
    """The last of ``specs`` offered to ``policy`` behind the others on a pool of 8 with
    ``running`` jobs; the queue as given or in planned-start order."""
    jobs = [
        priced(i, n, r, n * r * 360.0 * (10 if hot else 1), f * r)
        for i, (n, r, f, hot) in enumerate(specs)
    ]
    job, queue, ctx = jobs[-1], jobs[:-1], ctx_for(8, running=running)
    if compressed:
        start = {p.job.id: p.start for p in SCHEDULER.plan(ctx, queue).placements}
        queue.sort(key=lambda j: start.get(j.id, float("inf")))
    return job, queue, ctx, policy.appraise(job, queue, ctx)


@pytest.mark.parametrize("oc_factor", [0.0, 0.1])
@pytest.mark.parametrize("compressed", [False, True], ids=["as-given", "compressed"])
@settings(max_examples=80, deadline=None)
@given(offer=offers)
def test_the_whatif_verdict_and_plan_are_the_live_decision_and_the_scheduler_plan(
    oc_factor, compressed, offer
):
    # verdict() is judge() without its words; plan_of(), when it gives a plan, is the
    # conservative scheduler's plan of the queue in the admitted order (what a what-if re-plans).
    policy = VQoPS(oc_factor=oc_factor)
    job, queue, ctx, appraisal = appraised(policy, *offer, compressed)
    full, short = policy.judge(appraisal, oc_factor, ctx), policy.verdict(appraisal, oc_factor, ctx)
    said = (full.accepted, full.processors, full.queue_order)
    assert (short.accepted, short.processors, short.queue_order) == said
    if not full.accepted or isinstance(appraisal, type(full)):
        return
    plan = policy.plan_of(appraisal, full, ctx)
    if plan is None:  # reordered: the what-if re-plans
        return
    by_id = {j.id: j for j in [*queue, job]}
    expected = SCHEDULER.plan(ctx, [by_id[i] for i in full.queue_order]).placements
    assert [tuple(p) for p in plan] == [tuple(p) for p in expected]


def test_the_time_series_samples_each_policys_own_parameters():
    """VQoPS's fixed OC-Factor, DVQoPS's current OC-Factor and rollback window; a policy
    without such a parameter, or a provider without an admission policy, samples NaN."""
    from types import SimpleNamespace

    from market.results.value_metrics import admission_param

    assert VQoPS(oc_factor=0.2).parameters() == {"oc_factor": 0.2}
    dvqops = DVQoPS(max_window=32.0, initial_oc_factor=0.1)
    assert dvqops.parameters() == {"oc_factor": 0.1, "rollback_window": 32.0}
    assert QoPS().parameters() == {}
    assert admission_param(SimpleNamespace(admission=dvqops), "rollback_window") == 32.0
    assert admission_param(SimpleNamespace(admission=dvqops), "oc_factor") == 0.1
    for admission in (QoPS(), None):
        assert math.isnan(admission_param(SimpleNamespace(admission=admission), "oc_factor"))
