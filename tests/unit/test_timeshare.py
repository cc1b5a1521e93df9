"""The time-shared cluster (market/core/timeshare.py; Yeo & Buyya ICPP'06 §3.1): shares, rates and
completion times on hand-made cases, and invariants on random admissions."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from market.core.timeshare import TimeSharedCluster, project_node


def run_to_end(cluster: TimeSharedCluster) -> dict[int, float]:
    """Complete every job; their completion times by id."""
    ends = {}
    while (at := cluster.next_completion()) is not None:
        for job in cluster.complete_due(at):
            assert job.id not in ends, "a job completed twice"
            ends[job.id] = at
    return ends


def test_two_jobs_on_one_node_end_at_the_times_their_shares_imply():
    # A: estimate 2 h by 4 h -> share 0.5; B: 1 h by 2 h -> share 0.5; total 1.
    # Each runs at its share: B ends at 1 / 0.5 = 2 h, A at 2 / 0.5 = 4 h (its deadlines).
    cluster = TimeSharedCluster(1)
    cluster.admit(0.0, 1, (0,), work=2.0, estimate=2.0, deadline=4.0)
    cluster.admit(0.0, 2, (0,), work=1.0, estimate=1.0, deadline=2.0)
    assert cluster.total_share[0] == pytest.approx(1.0)
    assert run_to_end(cluster) == pytest.approx({2: 2.0, 1: 4.0})


def test_unused_share_idles_or_is_redistributed():
    # A: 1 h by 4 h -> share 0.25; B: 1 h by 2 h -> share 0.5; total 0.75.
    # idle: each gets its share only: B ends at 2, A at 4.
    idle = TimeSharedCluster(1, "idle")
    idle.admit(0.0, 1, (0,), 1.0, 1.0, 4.0)
    idle.admit(0.0, 2, (0,), 1.0, 1.0, 2.0)
    assert run_to_end(idle) == pytest.approx({2: 2.0, 1: 4.0})
    # redistribute: rates 0.25/0.75 = 1/3 and 2/3; B ends at 1.5 with A half done (0.5), then
    # A alone at rate 1 ends 0.5 h later, at 2.0.
    shared = TimeSharedCluster(1, "redistribute")
    shared.admit(0.0, 1, (0,), 1.0, 1.0, 4.0)
    shared.admit(0.0, 2, (0,), 1.0, 1.0, 2.0)
    assert run_to_end(shared) == pytest.approx({2: 1.5, 1: 2.0})


def test_an_over_committed_node_scales_every_share_down():
    # shares 0.5 and 0.75 (total 1.25): rates 0.4 and 0.6; both end at 1 / 0.4 = 1.5 / 0.6 = 2.5,
    # 1.25 x their common deadline 2; both fell behind their shares.
    cluster = TimeSharedCluster(1)
    cluster.admit(0.0, 1, (0,), 1.0, 1.0, 2.0)
    cluster.admit(0.0, 2, (0,), 1.5, 1.5, 2.0)
    assert [j.rate for j in cluster.jobs.values()] == pytest.approx([0.4, 0.6])
    assert cluster.behind_on[0] == 2
    assert run_to_end(cluster) == pytest.approx({1: 2.5, 2: 2.5})


def test_a_parallel_job_moves_at_its_slowest_node_and_speeds_up_when_it_clears():
    # A (share 0.5) on nodes 0 and 1; B alone would need share 1.5 on node 1 (estimate 3 h by
    # 2 h), total 2 there: A gets 0.5 / 2 = 0.25 on node 1, so 0.25 everywhere; B gets 0.75.
    # B (work 1.5) ends at 2.0; A has done 0.5 of its 1.0, then runs at 0.5: ends at 3.0.
    cluster = TimeSharedCluster(2)
    cluster.admit(0.0, 1, (0, 1), work=1.0, estimate=1.0, deadline=2.0)
    cluster.admit(0.0, 2, (1,), work=1.5, estimate=3.0, deadline=2.0)
    assert cluster.jobs[1].rate == pytest.approx(0.25)
    assert run_to_end(cluster) == pytest.approx({2: 2.0, 1: 3.0})


def test_a_job_running_past_its_estimate_keeps_its_share():
    # estimate 1 h by 2 h -> share 0.5; actual work 1.5 h at 0.5 ends at 3.0, past its deadline.
    cluster = TimeSharedCluster(1)
    job = cluster.admit(0.0, 1, (0,), work=1.5, estimate=1.0, deadline=2.0)
    assert job.remaining_estimate(2.5) == 0.0
    assert run_to_end(cluster) == pytest.approx({1: 3.0})


def test_project_node_delays_on_hand_made_nodes():
    # on time: shares 0.5 + 0.25, each ends at its remaining deadline (4 and 4): no delay
    assert project_node([2.0, 1.0], [0.5, 0.25], [4.0, 4.0]) == pytest.approx([0.0, 0.0])
    # over-committed: shares 0.5 and 0.75 (1.25), deadlines 2 and 4: rates 0.4 and 0.6. Job 0
    # (1 h) ends at 2.5 (delay 0.5); job 1 has done 1.5 of its 3 h, then alone at its share
    # 0.75 needs 2 h more: ends at 4.5 (delay 0.5).
    assert project_node([1.0, 3.0], [0.5, 0.75], [2.0, 4.0]) == pytest.approx([0.5, 0.5])
    # redistribute: the same node with shares 0.25 and 0.25 (0.5) runs each at 0.5
    assert project_node([1.0, 1.0], [0.25, 0.25], [4.0, 1.0], "redistribute") == pytest.approx(
        [0.0, 1.0]
    )


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="unused_share"):
        TimeSharedCluster(2, "share")
    with pytest.raises(ValueError, match="at least one node"):
        TimeSharedCluster(0)
    cluster = TimeSharedCluster(2)
    with pytest.raises(ValueError, match="nodes must lie in"):
        cluster.admit(0.0, 1, (2,), 1.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="not after now"):
        cluster.admit(1.0, 1, (0,), 1.0, 1.0, 1.0)


@st.composite
def admissions(draw):
    """Random jobs admitted at random times onto random nodes of a 4-node cluster."""
    jobs, t = [], 0.0
    for i in range(draw(st.integers(1, 12))):
        t += draw(st.floats(0.0, 2.0))
        width = draw(st.integers(1, 4))
        nodes = tuple(sorted(draw(st.permutations(range(4)))[:width]))
        work = draw(st.floats(0.1, 5.0))
        estimate = work * draw(st.floats(0.5, 3.0))
        factor = draw(st.floats(1.0, 6.0))
        jobs.append((t, i, nodes, work, estimate, t + factor * work))
    return jobs, draw(st.sampled_from(["idle", "redistribute"]))


@settings(max_examples=60, deadline=None)
@given(admissions())
def test_every_job_completes_once_after_exactly_its_work(case):
    """No job is lost or run twice, each one's work is done at its completion, and the nodes
    counted occupied are those with jobs."""
    jobs, rule = case
    cluster = TimeSharedCluster(4, rule)
    ends: dict[int, float] = {}
    for t, i, nodes, work, estimate, deadline in jobs:
        while (at := cluster.next_completion()) is not None and at <= t:
            for job in cluster.complete_due(at):
                assert job.id not in ends
                ends[job.id] = at
        cluster.admit(t, i, nodes, work, estimate, deadline)
        assert (cluster.total_share >= -1e-12).all()
        assert cluster.occupied().tolist() == [bool(jobs) for jobs in cluster.on_node]
    ends.update(run_to_end(cluster))
    assert not cluster.occupied().any()
    assert sorted(ends) == [i for _, i, *_ in jobs]
    for t, i, _, work, _, _ in jobs:
        assert ends[i] >= t + work - 1e-9  # never faster than the whole processor
    assert not cluster.jobs and cluster.total_share.max() == 0.0
    assert all(math.isfinite(e) for e in ends.values())
