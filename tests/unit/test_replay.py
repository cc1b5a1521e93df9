"""The Mesa-free replay (agents/replay.py): the market's EASY on a fixed pool, used for QoPS's
deadlines, agrees with the independent oracle (tests/easy_oracle.py) by hand, on random
streams and on a real trace in whole seconds."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.policies.backfill import EASY, Conservative
from agents.policies.qops import QoPS
from agents.replay import replay_starts
from market.inputs.workloads.deadlines import easy_response_times
from tests.conftest import require_trace
from tests.easy_oracle import easy_schedule
from tests.unit.test_backfill import rigid


def test_easy_by_hand():
    # Pool 4, all arrive at 0: J1 (3 x 4 h) starts; J2 (2 x 2 h) is the head, reserved at 4;
    # J4 (1 x 5 h) backfills at 0 on the spare processor; at 4 J1 ends, J2 starts, J3 (2 x 3 h)
    # becomes the head, reserved at 5 when J4 ends, and J5 (1 x 1 h) backfills at 4 (ends by 5).
    jobs = [rigid(1, 3, 4), rigid(2, 2, 2), rigid(3, 2, 3), rigid(4, 1, 5), rigid(5, 1, 1)]
    assert replay_starts(jobs, 4, EASY()) == [0, 4, 5, 0, 4]


def test_estimates_plan_and_runtimes_run():
    # Pool 2. J1 (2 x 1 h, estimate 3 h) blocks the pool; J2 (1 x 1 h) arrives at 0.5 and waits
    # as head. J1 really ends at 1 (not 3), so J2 starts then, not at the estimated 3.
    jobs = [rigid(1, 2, 1, estimate=3), rigid(2, 1, 1, arrival=0.5)]
    assert replay_starts(jobs, 2, EASY()) == [0, 1]


def test_a_job_admission_rejects_never_starts():
    # QoPS on a pool of 2, both 2 x 1 h with deadline 1.5: J2 behind J1 ends at 2, and ahead of
    # it J1 would: rejected, so it never starts (NaN). J1's reservation starts at once, so it has
    # started: a job arriving in the same instant cannot move it, whatever its deadline.
    jobs = [rigid(1, 2, 1, deadline=1.5), rigid(2, 2, 1, deadline=1.5)]
    start = replay_starts(jobs, 2, Conservative(), QoPS())
    assert start[0] == 0 and math.isnan(start[1])
    jobs[0] = rigid(1, 2, 1, deadline=10)
    start = replay_starts(jobs, 2, Conservative(), QoPS())
    assert start[0] == 0 and math.isnan(start[1])


def test_qops_puts_a_new_job_ahead_of_one_not_yet_started():
    # J0 holds the pool of 2 until 1; J1 (deadline 10) waits for it. J2 arrives at 0.5 with
    # deadline 2.5: behind J1 it would end at 3, so QoPS puts it ahead of the waiting J1 (J2
    # from 1 to 2, J1 from 2 to 3, both on time).
    jobs = [
        rigid(0, 2, 1, deadline=10),
        rigid(1, 2, 1, deadline=10),
        rigid(2, 2, 1, arrival=0.5, deadline=2.5),
    ]
    assert replay_starts(jobs, 2, Conservative(), QoPS()) == [0, 2, 1]


stream = st.lists(
    st.tuples(
        st.integers(0, 12).map(lambda k: k / 2),  # arrival
        st.integers(1, 8),  # processors
        st.integers(1, 8),  # runtime (h)
        st.integers(0, 3),  # estimate - runtime (h)
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(stream)
def test_replay_matches_the_oracle(items):
    jobs = [rigid(i, n, r, arrival=a, estimate=r + over) for i, (a, n, r, over) in enumerate(items)]
    a, n, r, over = (np.array(x, dtype=float) for x in zip(*items, strict=True))
    expected = easy_schedule(a, n.astype(int), r, r + over, 8)
    assert replay_starts(jobs, 8, EASY()) == expected.tolist()


def test_sdsc_sp2_deadlines_come_from_exact_whole_seconds():
    # The first 10,000 SDSC-SP2 jobs with user estimates: the replay on the second grid starts
    # every job at the second the integer-second oracle says.
    require_trace()
    from market.inputs.scenario import validate

    spec = (
        validate(
            {
                "name": "x",
                "resource_providers": [{"name": "pool", "capacity": 128, "price": 0.0}],
                "service_providers": [{"name": "site", "scheduler": "easy"}],
                "clients": [
                    {
                        "name": "users",
                        "workload": {
                            "kind": "swf",
                            "trace": "SDSC-SP2-1998-4.2-cln.swf.gz",
                            "estimates": "trace",
                            "first_jobs": 10_000,
                        },
                    }
                ],
            }
        )
        .clients[0]
        .workload
    )
    p = spec.prepare(np.random.default_rng(0))
    response = easy_response_times(p.arrival, p.processors, p.runtime, p.estimate, p.capacity, 3600)
    seconds = [np.rint(x * 3600) for x in (p.arrival, p.runtime, p.estimate)]
    oracle = easy_schedule(seconds[0], p.processors, seconds[1], seconds[2], p.capacity)
    assert (np.rint((p.arrival + response - p.runtime) * 3600) == oracle).all()
