"""Libra, LibraRisk and EDF (agents/policies/libra.py; Yeo & Buyya ICPP'06 §3-4) on hand-made
clusters whose answers are worked out below, and LibraRisk's shortcut against its projection."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.policies import make_cluster
from agents.policies.libra import (
    EDF,
    Libra,
    LibraRisk,
    deadline_delay_risk,
    deadline_delays,
)
from market.core.jobs import Job
from market.core.timeshare import TimeSharedCluster
from market.core.utility import UtilityFunction


def rigid(id: int, arrival: float, runtime: float, deadline: float, n: int = 1, estimate=None):
    """A rigid job of ``n`` processors: ``runtime`` h (``estimate`` h believed), due at
    ``deadline``."""
    est = runtime if estimate is None else estimate
    return Job.rigid(id, arrival, n * runtime, UtilityFunction.constant(0.0), n, n * est, deadline)


def test_shares_and_suitability_on_one_node():
    # A: 2 h due in 4 h -> share 0.5 (Eq. 1); B: 1 h due in 2 h -> share 0.5; total 1 (Eq. 2)
    cluster = TimeSharedCluster(1)
    a = Libra().choose(cluster, 0.0, rigid(1, 0.0, 2.0, 4.0))
    assert a.share == pytest.approx(0.5) and a.nodes == (0,)
    cluster.admit(0.0, 1, a.nodes, 2.0, 2.0, 4.0)
    b = Libra().choose(cluster, 0.0, rigid(2, 0.0, 1.0, 2.0))
    assert b.nodes == (0,), "0.5 + 0.5 = 1 is still suitable"
    cluster.admit(0.0, 2, b.nodes, 1.0, 1.0, 2.0)
    # C: 1 h due in 10 h -> share 0.1: 1.1 > 1, not suitable
    c = Libra().choose(cluster, 0.0, rigid(3, 0.0, 1.0, 10.0))
    assert c.nodes is None and c.reason == "no-share"
    # at t = 1 the shares are still 0.5 each: Eq. 1 again gives (2 - 0.5) / 3 and (1 - 0.5) / 1
    assert cluster.jobs[1].remaining_estimate(1.0) / (4.0 - 1.0) == pytest.approx(0.5)
    assert cluster.jobs[2].remaining_estimate(1.0) / (2.0 - 1.0) == pytest.approx(0.5)


def test_best_fit_takes_the_fullest_suitable_nodes():
    # nodes at total share 0.2, 0.6, 0.9 and 0; new share 0.3: node 2 (1.2) is unsuitable;
    # left after accepting: node 0 0.5, node 1 0.1, node 3 0.7 -> one node: 1; two: 1 and 0.
    cluster = TimeSharedCluster(4)
    for i, (node, share) in enumerate([(0, 0.2), (1, 0.6), (2, 0.9)]):
        cluster.admit(0.0, i, (node,), share * 10, share * 10, 10.0)
    assert Libra().choose(cluster, 0.0, rigid(9, 0.0, 3.0, 10.0)).nodes == (1,)
    assert Libra().choose(cluster, 0.0, rigid(9, 0.0, 3.0, 10.0, n=2)).nodes == (0, 1)
    assert Libra().choose(cluster, 0.0, rigid(9, 0.0, 3.0, 10.0, n=4)).nodes is None
    # LibraRisk takes the first zero-risk nodes in node order instead (Algorithm 1)
    assert LibraRisk().choose(cluster, 0.0, rigid(9, 0.0, 3.0, 10.0, n=2)).nodes == (0, 1)
    assert LibraRisk().choose(cluster, 0.0, rigid(9, 0.0, 3.0, 10.0)).nodes == (0,)


def test_libra_risk_rejects_a_job_libra_accepts_because_a_node_would_carry_risk():
    # A (share 0.5: 1 h due at 2) on nodes 0 and 1; B (share 0.75: 1.5 h due at 2) on node 1:
    # node 1 is over-committed (1.25), A runs at 0.5 / 1.25 = 0.4 everywhere. At t = 1, A has
    # 0.6 h left for 1 h of deadline: projected alone at its share it ends 0.2 h late.
    cluster = TimeSharedCluster(2)
    cluster.admit(0.0, 1, (0, 1), 1.0, 1.0, 2.0)
    cluster.admit(0.0, 2, (1,), 1.5, 1.5, 2.0)
    job = rigid(3, 1.0, 0.3, 2.0)  # share 0.3 / 1 = 0.3
    # Libra: node 0 has 0.5 + 0.3 = 0.8 <= 1: accepted there
    assert Libra().choose(cluster, 1.0, job).nodes == (0,)
    # LibraRisk, node 0: A's deadline delay (0.2 + 1) / 1 = 1.2, the new job's 1 (on time):
    # sigma = 0.1 > 0. Node 1: over-committed further, delays differ. Rejected.
    risk = LibraRisk()
    assert not risk.zero_risk(cluster, 0, 1.0, 0.3, 0.3, 1.0)
    assert not risk.zero_risk(cluster, 1, 1.0, 0.3, 0.3, 1.0)
    assert risk.choose(cluster, 1.0, job).reason == "deadline-risk"


def test_libra_risk_admits_a_job_alone_on_an_empty_node_even_if_its_estimate_is_too_long():
    # estimate 6 h due in 4 h: share 1.5. Libra: no node has 1.5 free. LibraRisk: alone on an
    # empty node its deadline delay is the only one, so sigma = 0 (Eq. 6).
    cluster = TimeSharedCluster(2)
    job = rigid(1, 0.0, 1.0, 4.0, estimate=6.0)
    assert Libra().choose(cluster, 0.0, job).nodes is None
    assert LibraRisk().choose(cluster, 0.0, job).nodes == (0,)


def test_deadline_delay_and_its_risk_follow_eq_4_to_6():
    # §3.2's example: delay 20 s with 5 s left -> 5; delay 20 s with 10 s left -> 3
    assert deadline_delays([20.0, 20.0], [5.0, 10.0]) == pytest.approx([5.0, 3.0])
    mu, sigma = deadline_delay_risk([5.0, 3.0])
    assert (mu, sigma) == pytest.approx((4.0, 1.0))  # population sd: sqrt(((5-4)^2+(3-4)^2)/2)
    assert deadline_delay_risk([1.0, 1.0, 1.0]) == (1.0, 0.0)
    assert deadline_delays([1.0], [0.0]) == [], "past its deadline: no Eq. 4 value"


def test_edf_rejects_a_selected_job_only_with_admission_control():
    job = rigid(1, 0.0, 2.0, 5.0)  # estimate 2 h, due at 5
    assert EDF().admits(job, 3.0)  # 3 + 2 = 5: just in time
    assert not EDF().admits(job, 3.5)
    assert EDF(admission_control=False).admits(job, 9.0)
    late = [rigid(2, 0.0, 1.0, 9.0), rigid(3, 1.0, 1.0, 4.0), rigid(4, 0.5, 1.0, 4.0)]
    assert sorted(late, key=EDF.priority) == [late[2], late[1], late[0]]


def test_bad_parameters_name_the_field():
    with pytest.raises(ValueError, match="unused_share"):
        make_cluster("libra", unused_share="spread")
    with pytest.raises(ValueError, match="tolerance"):
        make_cluster("libra_risk", tolerance=2.0)
    with pytest.raises(ValueError, match="admission_control"):
        make_cluster("edf", admission_control="sometimes")
    with pytest.raises(ValueError, match="no parameter 'risk'"):
        make_cluster("libra", risk=0.1)


@st.composite
def loaded_clusters(draw):
    """A 3-node cluster after random admissions (some over-committed) and completions."""
    rule = draw(st.sampled_from(["idle", "redistribute"]))
    cluster = TimeSharedCluster(3, rule)
    t = 0.0
    for i in range(draw(st.integers(0, 8))):
        t += draw(st.floats(0.0, 1.0))
        while (at := cluster.next_completion()) is not None and at <= t:
            cluster.complete_due(at)
        nodes = tuple(sorted(draw(st.permutations(range(3)))[: draw(st.integers(1, 3))]))
        work = draw(st.floats(0.1, 3.0))
        estimate = work * draw(st.floats(0.5, 2.0))
        deadline = t + estimate * draw(st.floats(0.5, 4.0))
        cluster.admit(t, i, nodes, work, estimate, deadline)
    t += draw(st.floats(0.0, 1.0))
    while (at := cluster.next_completion()) is not None and at <= t:
        cluster.complete_due(at)
    estimate = draw(st.floats(0.1, 3.0))
    remaining = estimate * draw(st.floats(0.5, 4.0))
    return cluster, rule, t, estimate, remaining


@settings(max_examples=150, deadline=None)
@given(loaded_clusters())
def test_libra_risk_shortcut_agrees_with_its_projection(case):
    """Where LibraRisk decides a node's risk without projecting, the projection agrees."""
    cluster, rule, now, estimate, remaining = case
    policy = LibraRisk(rule)
    share = estimate / remaining
    zero, unknown = policy.known_risk(cluster, now, now + remaining, share)
    for j in range(cluster.size):
        if not unknown[j]:
            assert bool(zero[j]) == policy.zero_risk(cluster, j, now, estimate, share, remaining)


@st.composite
def job_streams(draw):
    """Jobs arriving on a 4-node cluster, exact estimates; deadlines may coincide."""
    jobs, t = [], 0.0
    for i in range(draw(st.integers(1, 15))):
        t += draw(st.sampled_from([0.0, 0.25, 0.5, 1.0]))
        runtime = draw(st.sampled_from([0.5, 1.0, 2.0, 3.0]))
        factor = draw(st.sampled_from([1.0, 1.5, 2.0, 4.0]))
        jobs.append(rigid(i, t, runtime, t + factor * runtime, n=draw(st.integers(1, 4))))
    return jobs


@settings(max_examples=80, deadline=None)
@given(job_streams(), st.sampled_from(["libra", "libra_risk"]))
def test_admitted_jobs_never_over_commit_libra_and_meet_exact_deadlines(jobs, name):
    """Invariants: Libra never lets a node's total share pass 1 at admission; with exact
    estimates every job Libra or LibraRisk admits meets its deadline; none is lost."""
    policy, cluster, ends, admitted = make_cluster(name), TimeSharedCluster(4), {}, {}
    for job in jobs:
        while (at := cluster.next_completion()) is not None and at <= job.arrival:
            ends.update((j.id, at) for j in cluster.complete_due(at))
        choice = policy.choose(cluster, job.arrival, job)
        if choice.nodes is not None:
            n = job.max_shape
            cluster.admit(job.arrival, job.id, choice.nodes, job.runtime(n), job.runtime(n),
                          job.deadline)  # fmt: skip
            admitted[job.id] = job
            if name == "libra":
                assert cluster.total_share.max() <= 1.0 + 1e-9
    while (at := cluster.next_completion()) is not None:
        ends.update((j.id, at) for j in cluster.complete_due(at))
    assert sorted(ends) == sorted(admitted)
    for job_id, end in ends.items():
        assert end <= admitted[job_id].deadline + 1e-9, f"{name}: job {job_id} missed"
