"""Jobs: Amdahl runtimes, planning estimates, the rigid-job convention and validation."""

from __future__ import annotations

import dataclasses
import math
from itertools import pairwise

import pytest

from market.core.jobs import Job, amdahl_runtime
from market.core.utility import UtilityFunction

WORTH_48 = UtilityFunction.linear_decay(48.0, 0.0, 3.7, -48.0)


def make(**overrides: object) -> Job:
    fields: dict[str, object] = {"id": 1, "arrival": 0.0, "work": 10.0, "utility": WORTH_48}
    fields.update(overrides)
    return Job(**fields)  # type: ignore[arg-type]


# -- Amdahl ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, 10.0),  # 10 * (0.2 + 0.8 / 1)
        (2, 6.0),  # 10 * (0.2 + 0.4)
        (4, 4.0),  # 10 * (0.2 + 0.2)
        (5, 3.6),  # 10 * (0.2 + 0.16)
        (8, 3.0),  # 10 * (0.2 + 0.1)
    ],
)
def test_amdahl_runtime_profit_paper_beta(n: int, expected: float) -> None:
    assert amdahl_runtime(10.0, 0.2, n) == pytest.approx(expected)


def test_amdahl_runtime_extremes() -> None:
    assert amdahl_runtime(12.0, 0.0, 4) == pytest.approx(3.0)  # perfectly parallel: 12 / 4
    assert amdahl_runtime(12.0, 1.0, 4) == pytest.approx(12.0)  # fully serial: no speed-up
    assert amdahl_runtime(7.0, 0.5, 1) == pytest.approx(7.0)  # one processor: the work itself


def test_job_runtime_is_amdahl_on_work() -> None:
    job = make(serial_fraction=0.2, shapes=(1, 2, 3, 4, 5))
    assert [job.runtime(n) for n in job.shapes] == pytest.approx(
        [10.0, 6.0, 10.0 * (0.2 + 0.8 / 3), 4.0, 3.6]
    )
    # Adding processors never makes a job slower, and the speed-up is below n.
    runtimes = [job.runtime(n) for n in job.shapes]
    assert all(b < a for a, b in pairwise(runtimes))
    assert all(job.runtime(1) / job.runtime(n) < n for n in job.shapes[1:])


# -- work estimates ----------------------------------------------------------------------------
def test_predicted_runtime_defaults_to_actual() -> None:
    job = make(serial_fraction=0.2, shapes=(1, 2, 4))
    for n in job.shapes:
        assert job.predicted_runtime(n) == job.runtime(n)


def test_predicted_runtime_uses_work_estimate() -> None:
    job = make(serial_fraction=0.2, shapes=(1, 2, 4), work_estimate=20.0)
    assert job.predicted_runtime(1) == pytest.approx(20.0)
    assert job.predicted_runtime(2) == pytest.approx(12.0)  # 20 * (0.2 + 0.4)
    assert job.predicted_runtime(4) == pytest.approx(8.0)  # 20 * (0.2 + 0.2)
    # The simulation still runs the actual work.
    assert job.runtime(2) == pytest.approx(6.0)
    assert job.work == 10.0
    assert job.work_estimate == 20.0


def test_underestimated_work() -> None:
    job = make(work=10.0, work_estimate=5.0, serial_fraction=0.0, shapes=(1, 5))
    assert job.predicted_runtime(5) == pytest.approx(1.0)  # 5 / 5
    assert job.runtime(5) == pytest.approx(2.0)  # 10 / 5


# -- rigid jobs (from traces) ------------------------------------------------------------------
def test_rigid_job_convention() -> None:
    # A trace job: 8 processors for 2.5 hours -> work = 8 * 2.5 = 20, serial fraction 0.
    job = make(work=8 * 2.5, serial_fraction=0.0, shapes=(8,))
    assert job.runtime(8) == pytest.approx(2.5)
    assert job.predicted_runtime(8) == pytest.approx(2.5)
    assert job.max_shape == 8
    assert job.shapes == (8,)


def test_a_rigid_job_built_without_checks_is_the_constructors_job_field_for_field() -> None:
    given = {"deadline": 9.5, "client": "c", "kind": "deadline", "best_effort": True, "swf_job": 7}
    fast = Job.rigid(4, 1.5, 20.0, WORTH_48, 8, 24.0, **given)
    made = Job(4, 1.5, 20.0, WORTH_48, 0.0, (8,), 24.0, **given)
    assert type(fast) is Job
    for field in dataclasses.fields(Job):
        assert getattr(fast, field.name) == getattr(made, field.name), field.name
    assert fast.planned_work == 24.0 and fast.shapes == (8,)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.work = 1.0  # type: ignore[misc]
    defaults = Job.rigid(5, 0.0, 3.0, WORTH_48, 3, 3.0)
    assert (defaults.deadline, defaults.client, defaults.kind) == (None, None, "")
    assert (defaults.best_effort, defaults.swf_job) == (False, None)


# -- attributes --------------------------------------------------------------------------------
def test_defaults() -> None:
    job = make()
    assert job.serial_fraction == 0.0
    assert job.shapes == (1,)
    assert job.max_shape == 1
    assert job.work_estimate is None
    assert job.deadline is None
    assert job.client is None
    assert job.kind == ""
    assert job.utility is WORTH_48


def test_max_shape_is_widest() -> None:
    assert make(shapes=(1, 2, 3, 4, 5)).max_shape == 5
    assert make(shapes=(2, 16)).max_shape == 16


def test_jobs_are_frozen_and_compare_by_identity() -> None:
    a, b = make(), make()
    assert a != b  # two requests with the same fields are still two jobs
    assert len({a, b}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.work = 3.0  # type: ignore[misc]


def test_repr() -> None:
    job = make(id=7, arrival=1.25, work=3.5, shapes=(1, 2))
    text = repr(job)
    assert text.startswith("Job(7,")
    assert "arrival=1.250" in text
    assert "work=3.500" in text
    assert "(1, 2)" in text


# -- validation --------------------------------------------------------------------------------
@pytest.mark.parametrize("work", [0.0, -1.0, math.nan])
def test_rejects_bad_work(work: float) -> None:
    with pytest.raises(ValueError, match="work"):
        make(work=work)


@pytest.mark.parametrize("estimate", [0.0, -2.0, math.nan])
def test_rejects_bad_work_estimate(estimate: float) -> None:
    with pytest.raises(ValueError, match="work_estimate"):
        make(work_estimate=estimate)


@pytest.mark.parametrize("shapes", [(), (0,), (-1, 2), (2, 1), (1, 1), (1, 3, 2)])
def test_rejects_bad_shapes(shapes: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="shapes"):
        make(shapes=shapes)


@pytest.mark.parametrize("beta", [-0.01, 1.01, math.nan])
def test_rejects_serial_fraction_outside_unit_interval(beta: float) -> None:
    with pytest.raises(ValueError, match="serial_fraction"):
        make(serial_fraction=beta)


@pytest.mark.parametrize("beta", [0.0, 1.0])
def test_accepts_serial_fraction_at_the_ends(beta: float) -> None:
    assert make(serial_fraction=beta).serial_fraction == beta


def test_a_rigid_job_built_without_checks_is_the_constructors() -> None:
    fields = {"id": 4, "arrival": 1.5, "work": 12.0, "utility": WORTH_48}
    rest = {"deadline": 30.0, "client": "c", "kind": "deadline"}
    built = Job(**fields, shapes=(8,), work_estimate=16.0, **rest)  # type: ignore[arg-type]
    fast = Job.rigid(**fields, processors=8, work_estimate=16.0, **rest)  # type: ignore[arg-type]
    for f in dataclasses.fields(Job):
        assert getattr(fast, f.name) == getattr(built, f.name), f.name
    assert fast.predicted_runtime(8) == built.predicted_runtime(8) == 2.0
    assert fast.runtime(8) == 1.5
