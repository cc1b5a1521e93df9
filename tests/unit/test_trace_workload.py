"""TraceWorkload: SWF records to rigid jobs in hours, subsets, load scaling (incremental
duplication), deadlines (stringency from EASY, factor, mixed), and its place in scenarios."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from market.core.jobs import Job
from market.inputs.scenario import ScenarioError, validate
from market.inputs.traces import TraceNotFoundError
from market.inputs.workloads import ProfitWorkload, TraceWorkload
from tests.conftest import synthetic_swf
from tests.easy_oracle import easy_schedule

SHARED_TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"
SDSC = SHARED_TRACES / "SDSC-SP2-1998-4.2-cln.swf.gz"


@pytest.fixture
def trace(tmp_path) -> str:
    return str(synthetic_swf(tmp_path / "synthetic.swf"))


def rng(seed: int = 7) -> np.random.Generator:
    return np.random.default_rng(seed)


def test_jobs_are_rigid_in_hours_from_time_zero(trace):
    w = TraceWorkload(trace=trace)
    jobs = w.generate(rng(), first_id=10, client="c")
    prepared = w.prepare(rng())
    assert len(jobs) == 299 == prepared.report.kept and prepared.report.no_runtime == 1
    assert prepared.capacity == 16
    records = pd.read_csv(trace, sep=r"\s+", comment=";", header=None)
    records = records[records[3] > 0]
    first = jobs[0]
    assert isinstance(first, Job) and first.id == 10 and first.client == "c"
    assert first.arrival == 0.0 and first.deadline is None and first.kind == ""
    n, runtime = int(records.iloc[0, 4]), records.iloc[0, 3] / 3600
    assert first.shapes == (n,) and first.serial_fraction == 0.0
    assert first.runtime(n) == pytest.approx(runtime)
    assert first.predicted_runtime(n) == pytest.approx(runtime)  # exact estimates
    second = jobs[1]
    assert second.arrival == pytest.approx((records.iloc[1, 1] - records.iloc[0, 1]) / 3600)
    assert [j.id for j in jobs] == list(range(10, 309))
    assert all(a.arrival <= b.arrival for a, b in pairwise(jobs))
    assert all(j.utility(1e9) == 0.0 for j in jobs)


def test_trace_estimates_are_the_requests_raised_to_the_runtime(trace):
    w = TraceWorkload(trace=trace, estimates="trace")
    prepared = w.prepare(rng())
    assert (prepared.estimate >= prepared.runtime).all()
    doubled = np.isclose(prepared.estimate, 2 * prepared.runtime)
    raised = prepared.estimate == prepared.runtime
    assert (doubled | raised).all() and prepared.estimates_raised == raised.sum() > 0


def test_price_gives_a_constant_value(trace):
    job = TraceWorkload(trace=trace, price_per_processor_hour=0.5).generate(rng())[0]
    n = job.max_shape
    assert job.utility(0) == job.utility(1e6) == pytest.approx(0.5 * n * job.runtime(n))


def test_subsets(trace):
    everything = TraceWorkload(trace=trace).prepare(rng())
    first = TraceWorkload(trace=trace, first_jobs=50).prepare(rng())
    last = TraceWorkload(trace=trace, last_jobs=40).prepare(rng())
    window = TraceWorkload(trace=trace, window=(10.0, 20.0)).prepare(rng())
    assert first.source.tolist() == everything.source[:50].tolist()
    assert last.source.tolist() == everything.source[-40:].tolist()
    assert last.arrival[0] == 0.0  # each subset starts at time 0
    inside = (everything.arrival >= 10.0) & (everything.arrival < 20.0)
    assert window.source.tolist() == everything.source[inside].tolist()
    with pytest.raises(ValueError, match="at most one of"):
        TraceWorkload(trace=trace, first_jobs=5, last_jobs=5)
    with pytest.raises(ValueError, match="window"):
        TraceWorkload(trace=trace, window=(5.0, 1.0))


def pairs(prepared) -> set[tuple[int, int, float]]:
    return set(zip(prepared.source.tolist(), prepared.copy.tolist(),
                   prepared.arrival.tolist(), strict=True))  # fmt: skip


@pytest.mark.parametrize("arrival", ["same", "random"])
def test_duplication_is_incremental(trace, arrival):
    sets = {}
    for load in (1.0, 1.2, 1.4, 1.6, 2.5):
        w = TraceWorkload(trace=trace, load_factor=load, duplicate_arrival=arrival)
        prepared = w.prepare(rng(11))
        assert len(prepared) == 299 + round((load - 1) * 299)
        sets[load] = pairs(prepared)
    loads = sorted(sets)
    for low, high in pairwise(loads):
        assert sets[low] < sets[high], (low, high)
    # above 2, every job has been copied once and some twice
    copies = TraceWorkload(trace=trace, load_factor=2.5).prepare(rng(11)).copy
    assert copies.max() == 2 and (copies == 1).sum() == 299


def test_duplicates_copy_their_original(trace):
    prepared = TraceWorkload(trace=trace, load_factor=1.5).prepare(rng())
    frame = prepared.frame()
    originals = frame[frame["copy"] == 0].set_index("source")
    for row in frame[frame["copy"] > 0].itertuples():
        o = originals.loc[row.source]
        assert (row.arrival, row.runtime, row.processors) == (o.arrival, o.runtime, o.processors)
    assert (np.diff(prepared.arrival) >= 0).all()


def test_expand_and_compress(trace):
    base = TraceWorkload(trace=trace).prepare(rng())
    expanded = TraceWorkload(trace=trace, load_factor=1.5, load_method="expand").prepare(rng())
    compressed = TraceWorkload(trace=trace, load_factor=1.5, load_method="compress").prepare(rng())
    # Scaled times are rounded to whole seconds (every event on the second grid: exact replay).
    second = 1 / 3600
    np.testing.assert_allclose(expanded.runtime, 1.5 * base.runtime, atol=second / 2)
    np.testing.assert_allclose(expanded.estimate, 1.5 * base.estimate, atol=second / 2)
    np.testing.assert_array_equal(expanded.arrival, base.arrival)
    np.testing.assert_allclose(compressed.arrival, base.arrival / 1.5, atol=second / 2)
    np.testing.assert_array_equal(compressed.runtime, base.runtime)
    for x in (expanded.runtime, compressed.arrival):
        np.testing.assert_array_equal(x, np.rint(x * 3600) / 3600)


def test_stringency_deadlines_come_from_the_easy_schedule(trace):
    loose = TraceWorkload(trace=trace, deadlines="stringency", stringency=0.0).prepare(rng())
    start = easy_schedule(loose.arrival, loose.processors, loose.runtime, loose.estimate, 16)
    # s = 0: the deadline is the EASY completion time
    np.testing.assert_allclose(loose.deadline, start + loose.runtime)
    tight = TraceWorkload(trace=trace, deadlines="stringency", stringency=0.5).prepare(rng())
    assert (tight.deadline <= loose.deadline + 1e-12).all()
    assert (tight.deadline - tight.arrival >= tight.runtime - 1e-12).all()
    expected = tight.arrival + np.maximum(
        tight.runtime, 0.5 * (start + tight.runtime - tight.arrival)
    )
    np.testing.assert_allclose(tight.deadline, expected)
    jobs = TraceWorkload(trace=trace, deadlines="stringency").generate(rng())
    assert all(j.deadline >= j.arrival + j.runtime(j.max_shape) - 1e-9 for j in jobs)
    assert {j.kind for j in jobs} == {"deadline"}


def test_stringency_deadlines_cover_the_scaled_trace(trace):
    w = TraceWorkload(trace=trace, deadlines="stringency", load_factor=1.6, estimates="trace")
    prepared = w.prepare(rng())
    assert not np.isnan(prepared.deadline).any()
    assert (prepared.deadline - prepared.arrival >= prepared.estimate - 1e-12).all()


def test_factor_deadlines(trace):
    prepared = TraceWorkload(trace=trace, deadlines="factor", estimates="trace").prepare(rng())
    np.testing.assert_allclose(prepared.deadline, prepared.arrival + 5 * prepared.estimate)


def test_urgency_deadlines_follow_libra_risk_classes(trace):
    # LibraRisk §4: 20 % high urgency with deadline/runtime mean 4, the rest 4 x 4 = 16 (normal
    # within a class, at least 1); copies share their original's factor. A narrow spread (sd
    # 0.1 x mean) keeps the two classes apart, so that a threshold of 10 tells them apart.
    workload = TraceWorkload(
        trace=trace, deadlines="urgency", load_factor=1.5, urgency_sd_ratio=0.1
    )
    prepared = workload.prepare(rng())
    factor = (prepared.deadline - prepared.arrival) / prepared.runtime
    assert (factor >= 1.0).all()
    urgent = factor < 10.0
    assert 0.1 < urgent.mean() < 0.3
    assert np.mean(factor[urgent]) == pytest.approx(4.0, rel=0.15)
    assert np.mean(factor[~urgent]) == pytest.approx(16.0, rel=0.1)
    copies = prepared.copy > 0
    assert copies.any()
    originals = {
        s: f for s, f, c in zip(prepared.source, factor, prepared.copy, strict=True) if c == 0
    }
    assert all(
        np.isclose(originals[s], f)
        for s, f in zip(prepared.source[copies], factor[copies], strict=True)
    )
    other = TraceWorkload(trace=trace, deadlines="urgency", urgency_ratio=8).prepare(rng())
    np.testing.assert_allclose(
        other.arrival, workload.model_copy(update={"load_factor": 1.0}).prepare(rng()).arrival
    )


def test_mixed_deadline_and_relaxed_jobs(trace):
    w = TraceWorkload(trace=trace, deadlines="factor", deadline_share=0.2, relaxation=10)
    prepared = w.prepare(rng())
    share = prepared.user_deadline.mean()
    assert 0.1 < share < 0.3
    relaxed = ~prepared.user_deadline
    expected = prepared.arrival + np.maximum(24.0, 10 * prepared.estimate)
    np.testing.assert_allclose(prepared.deadline[relaxed], expected[relaxed])
    # the 20 % deadline jobs are among the 80 % ones (one draw per job)
    more = TraceWorkload(trace=trace, deadlines="factor", deadline_share=0.8).prepare(rng())
    assert (more.user_deadline | ~prepared.user_deadline).all()
    jobs = w.generate(rng())
    assert {j.kind for j in jobs} == {"deadline", "no-deadline"}
    # a relaxed job carries a deadline but its client set none: it is measured as best-effort
    assert all(j.best_effort == (j.kind == "no-deadline") for j in jobs)
    assert all(j.deadline is not None for j in jobs)
    none = TraceWorkload(trace=trace, deadlines="factor", deadline_share=0.2, relaxation=None)
    jobs = none.generate(rng())
    assert all((j.deadline is None) == (j.kind == "no-deadline") for j in jobs)


def test_same_seed_same_stream(trace):
    w = TraceWorkload(trace=trace, load_factor=1.3, duplicate_arrival="random",
                      deadlines="stringency", deadline_share=0.5)  # fmt: skip
    a, b = w.generate(rng(5)), w.generate(rng(5))
    assert [(j.arrival, j.work, j.deadline) for j in a] == [
        (j.arrival, j.work, j.deadline) for j in b
    ]


def test_a_missing_trace_fails_when_generating(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIDMARKET_TRACES", str(tmp_path))
    w = TraceWorkload(trace="ABSENT-2001.swf")  # validating does not look for the file
    with pytest.raises(TraceNotFoundError, match="Parallel Workloads Archive"):
        w.generate(rng())


# -- in a scenario --------------------------------------------------------------------------------
def test_scenarios_take_either_kind_of_workload(trace):
    s = validate({"clients": [{"workload": {"kind": "swf", "trace": trace, "load_factor": 1.2}}]})
    assert isinstance(s.clients[0].workload, TraceWorkload)
    assert s.clients[0].workload.load_factor == 1.2
    assert isinstance(validate({}).clients[0].workload, ProfitWorkload)
    assert isinstance(validate({"clients": [{"workload": {"jobs": 3}}]}).clients[0].workload,
                      ProfitWorkload)  # fmt: skip
    again = s.with_overrides({"clients.0.workload.load_factor": 1.4})
    assert again.clients[0].workload.load_factor == 1.4


@pytest.mark.parametrize(
    ("workload", "message"),
    [
        ({"kind": "trace"}, "clients.0.workload.kind: input should be 'profit' or 'swf'"),
        ({"kind": "swf"}, "clients.0.workload.trace: Field required"),
        ({"kind": "swf", "trace": "x", "load_factor": 0.5},
         "clients.0.workload.load_factor: Input should be greater than or equal to 1"),
        ({"kind": "swf", "trace": "x", "jobs": 5}, "clients.0.workload.jobs: unknown field"),
        ({"jobs": -1}, "clients.0.workload.jobs: Input should be greater than or equal to 0"),
    ],
)  # fmt: skip
def test_workload_errors_name_the_field(workload, message):
    with pytest.raises(ScenarioError) as info:
        validate({"clients": [{"workload": workload}]}, "s.yaml")
    assert message in str(info.value)


# -- a real trace ---------------------------------------------------------------------------------
@pytest.mark.skipif(not SDSC.is_file(), reason=f"{SDSC.name} not in {SHARED_TRACES}")
def test_sdsc_sp2_subset_with_qops_deadlines():
    w = TraceWorkload(trace=SDSC.name, first_jobs=5000, deadlines="stringency", stringency=0.2,
                      load_factor=1.6)  # fmt: skip
    prepared = w.prepare(rng())
    assert prepared.capacity == 128 and len(prepared) == 8000
    assert (prepared.deadline - prepared.arrival >= prepared.runtime - 1e-9).all()
    jobs = w.generate(rng())
    assert len(jobs) == 8000 and max(j.max_shape for j in jobs) <= 128


def test_numbers_that_cannot_make_a_job_are_refused_with_the_trace_job(trace, monkeypatch):
    w = TraceWorkload(trace=trace)
    prepared = w.prepare(rng())
    prepared.runtime[5] = 0.0  # (selection never lets this through: the check is a backstop)
    monkeypatch.setattr(TraceWorkload, "prepare", lambda self, r: prepared)
    with pytest.raises(ValueError, match=f"trace job {prepared.source[5]}: runtime 0 h"):
        w.generate(rng())
