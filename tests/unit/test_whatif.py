"""The what-ifs of DVQoPS run together (:func:`agents.policies.whatif.whatif_revenues`, VQoPS TR
§4.3) give the same numbers and choices as each run on its own (:func:`whatif_revenue`, the
reference path, ``DVQoPS(incremental=False)``), on random histories (hypothesis)."""

from __future__ import annotations

from bisect import bisect_right

from hypothesis import given, settings
from hypothesis import strategies as st

from agents.policies.backfill import Conservative
from agents.policies.dvqops import DVQoPS
from agents.policies.vqops import VQoPS
from agents.policies.whatif import whatif_revenue, whatif_revenues
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


@settings(max_examples=25, deadline=None)
@given(specs=specs)
def test_incremental_dvqops_decides_as_the_reference(specs):
    jobs = history(specs)

    def run(incremental):
        dv = DVQoPS(windows=(0.5, 1.0, 2.0), max_window=2.0, incremental=incremental)
        out = replay(jobs, 8, SCHEDULER, dv)
        return [(o.decision.accepted, o.decision.params, o.start, o.end) for o in out.values()]

    assert run(True) == run(False)
