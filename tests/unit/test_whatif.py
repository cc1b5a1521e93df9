"""The what-ifs of DVQoPS run together (:func:`agents.policies.whatif.whatif_revenues`, VQoPS TR
§4.3) give the same numbers and choices as each run on its own (:func:`whatif_revenue`, the
reference path, ``DVQoPS(incremental=False)``), on random histories (hypothesis)."""

from __future__ import annotations

from bisect import bisect_right

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.policies.backfill import Conservative
from agents.policies.dvqops import DVQoPS
from agents.policies.vqops import VQoPS
from agents.policies.whatif import Start, whatif_revenue, whatif_revenues
from market.core.capacity import CapacityProfile
from tests.unit.test_backfill import replay
from tests.unit.test_vqops import priced

SCHEDULER = Conservative()
OCS = (0.0, 0.05, 0.1, 0.2, 0.4)

specs = st.lists(
    st.tuples(
        st.integers(0, 24).map(lambda k: k / 4),  # arrival (h)
        st.sampled_from([1, 2, 4, 8]),  # processors
        st.integers(1, 8).map(lambda k: k / 4),  # runtime (h)
        st.integers(1, 6),  # deadline factor
        st.sampled_from([1, 2, 10]),  # urgent cost
    ),
    min_size=1,
    max_size=24,
)


def history(specs):
    """Jobs by arrival, each worth 0.1 x C per processor-second at most (the paper's §3)."""
    return [
        priced(i, n, r, n * r * 360.0 * c, a + f * r, a, "urgent" if c > 1 else "normal")
        for i, (a, n, r, f, c) in enumerate(sorted(specs))
    ]


@settings(max_examples=60, deadline=None)
@given(specs=specs, cuts=st.lists(st.integers(1, 28).map(lambda k: k / 4), max_size=4))
def test_shared_whatifs_earn_what_each_earns_alone(specs, cuts):
    jobs = history(specs)
    vq = VQoPS()
    ends = sorted({*cuts, 7.0})
    # five constant OC-Factors and two that change over time (a DVQoPS replay)
    steps = [[(0.0, 0.4), (2.0, 0.0), (4.0, 0.1)], [(0.0, 0.0), (3.0, 0.2)]]
    params = [lambda t, oc=oc: oc for oc in OCS]
    params += [lambda t, s=s: s[bisect_right([t0 for t0, _ in s], t) - 1][1] for s in steps]
    got = whatif_revenues(jobs, 8, vq.appraise, vq.judge, SCHEDULER, params, ends)
    for i, param in enumerate(params):
        for k, end in enumerate(ends):

            def decide(job, queue, ctx, param=param):
                return vq.decide_with(job, queue, ctx, param(job.arrival))

            alone = whatif_revenue([j for j in jobs if j.arrival < end], 8, decide, SCHEDULER)
            assert got[i][k] == alone  # exactly: the same decisions, summed by fsum


@settings(max_examples=40, deadline=None)
@given(specs=specs, now=st.integers(4, 28).map(lambda k: k / 4))
def test_incremental_dvqops_scores_as_the_reference(specs, now):
    # every window's and OC-Factor's score, exactly, at a time after the history's start
    jobs = history(specs)
    scores = []
    for incremental in (True, False):
        dv = DVQoPS(windows=(0.5, 1.0, 2.0, 4.0), max_window=4.0, incremental=incremental)
        dv.history = jobs
        scores.append((dv.window_scores(now, 8, SCHEDULER), dv.oc_scores(now, 1.0, 8, SCHEDULER)))
    assert scores[0] == scores[1]


@pytest.mark.parametrize("start", ["empty", "live"])
@settings(max_examples=25, deadline=None)
@given(specs=specs)
def test_incremental_dvqops_decides_as_the_reference(start, specs):
    jobs = history(specs)

    def run(incremental):
        dv = DVQoPS(
            windows=(0.5, 1.0, 2.0), max_window=2.0, incremental=incremental, whatif_start=start
        )
        out = replay(jobs, 8, SCHEDULER, dv)
        return [(o.decision.accepted, o.decision.params, o.start, o.end) for o in out.values()]

    assert run(True) == run(False)


# A what-if from the live machine (pool of 8, one OC-Factor window of 1 h, candidates 0, 0.05, 1):
#   X (t=9): 4 procs for 3 h, worth 50,000: admitted at any OC-Factor, runs [9, 12);
#   C (t=10): normal, 4 procs, 1 h, worth 100, deadline 20: admitted (OC 0), runs [10, 11);
#   D (t=10.5): urgent, 4 procs, 1 h, worth 10,000 until 11.5, deadline 11.9: X and C hold all
#     8 until 11, so it cannot end by 11.9: turned away;
#   P (t=11) is decided with the OC-Factor re-chosen over [10, 11), which holds C and D.
# From an empty machine C and D both fit: OC 0 earns 10,100, 0.05 turns C away (720 > 100) and
# earns 10,000: 0 stays. From the live machine at 10 (X running on 4 until 12) they do not: OC 0
# earns 100, 0.05 earns 10,000: 0.05 is chosen.
@pytest.mark.parametrize(("start", "chosen"), [("empty", 0.0), ("live", 0.05)])
def test_live_whatifs_start_from_the_machine_at_the_window_start(start, chosen):
    jobs = [
        priced(1, 4, 3.0, 50_000.0, 30.0, arrival=9.0),
        priced(2, 4, 1.0, 100.0, 20.0, arrival=10.0),
        priced(3, 4, 1.0, 10_000.0, 11.9, arrival=10.5, kind="urgent"),
        priced(4, 1, 0.1, 1.0, 30.0, arrival=11.0),
    ]
    for incremental in (True, False):
        dv = DVQoPS(
            oc_factors=(0.0, 0.05, 1.0), windows=(1.0,), max_window=1.0, initial_window=1.0,
            incremental=incremental, whatif_start=start,
        )  # fmt: skip
        out = replay(jobs, 8, SCHEDULER, dv)
        assert [out[i].decision.accepted for i in (1, 2, 3)] == [True, True, False]
        assert out[4].decision.params["oc_factor"] == chosen


def test_whatif_start_must_be_empty_or_live():
    with pytest.raises(ValueError, match="whatif_start must be 'empty' or 'live'"):
        DVQoPS(whatif_start="full")


def test_a_start_queue_takes_its_processors_but_is_not_counted():
    # Pool of 4, busy until 1; Q (4 procs, 2 h, worth 1,000, deadline 3) waits, planned [1, 3).
    # C (4 procs, 1 h, worth 100 until 1, nothing at 10) goes after Q, [3, 4): 100 x 6/9.
    # From an empty machine C runs [0, 1) and earns 100. Q's 1,000 is never counted.
    pool = CapacityProfile(4)
    pool.reserve(0.0, 1.0, 4)
    start = Start(0.0, pool, (priced(1, 4, 2.0, 1000.0, 3.0),), {})
    c = priced(2, 4, 1.0, 100.0, 10.0)
    vq = VQoPS(0.0)

    def decide(job, queue, ctx):
        return vq.decide_with(job, queue, ctx, 0.0)

    assert whatif_revenue([c], 4, decide, SCHEDULER) == 100.0
    assert whatif_revenue([c], 4, decide, SCHEDULER, 0.0, start) == pytest.approx(200 / 3)
    shared = whatif_revenues([c], 4, vq.appraise, vq.judge, SCHEDULER, [lambda t: 0.0], [1.0],
                             start=start)  # fmt: skip
    assert shared == [[whatif_revenue([c], 4, decide, SCHEDULER, 0.0, start)]]
    assert pool.free_at(0.5) == 0  # the start is copied, not used up
