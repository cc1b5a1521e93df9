"""The per-job columns (market/results/job_columns.py): the fast float conversions give what numpy's
plain conversion gives, None as NaN, whatever mix of numbers and None a column holds; the summary
read alone is the one from the per-job table's columns."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from market.inputs.scenario import validate
from market.results import job_columns as job_columns_module
from market.results import windows
from market.results.job_columns import floats, job_columns
from market.results.metrics import provider_run
from market.results.provider_metrics import provider_summary
from market.sim.model import GridMarket, MarketStalled
from tests.markets import random_market


@pytest.mark.parametrize(
    "values",
    [[1.5, 2, 3.25], [1.0, 2, None], [None, None, None], [None, 1.5], [], [np.float64(2.5), 1]],
    ids=["numbers", "a-none-later", "all-none", "a-none-first", "empty", "numpy-scalars"],
)
def test_float_columns_are_numpys_conversion_with_none_as_nan(values):
    got, plain = floats(list(values)), np.array(values, dtype=np.float64)
    assert got.dtype == np.float64 and got.shape == (len(values),)
    assert np.array_equal(got, plain, equal_nan=True)


def _same(a: dict, b: dict) -> bool:
    """Equal dicts, NaN equal to NaN."""
    nan = lambda v: isinstance(v, float) and math.isnan(v)  # noqa: E731
    return a.keys() == b.keys() and all(a[k] == b[k] or (nan(a[k]) and nan(b[k])) for k in a)


def _by_records(model, sp) -> dict:
    """The summary's own figures, by their definitions (market/results/provider_metrics.py) record
    by record."""
    now = model.time if model.end_time is None else model.end_time
    records = list(sp.records.values())
    done = [r for r in records if r.end is not None]
    committed = sum(r.committed for r in records)
    lo, hi = model.first_arrival, model.last_arrival
    rented = math.fsum(
        r.processors * max(0.0, min(r.end if r.end is not None else now, hi) - max(r.start, lo))
        for r in records
        if r.start is not None
    )
    pools = getattr(sp, "pools", None) or [sp.resource_provider]
    rentable = sum(p.capacity for p in pools) * (hi - lo)
    work = math.fsum(r.job.work for r in records)
    best_effort = [r for r in done if r.job.deadline is None or r.job.best_effort]
    slowdowns = [
        max(1.0, (r.end - r.job.arrival) / max(r.end - r.start, 10.0 / 3600.0)) for r in best_effort
    ]
    predicted = math.fsum(r.decision.expected_profit or 0.0 for r in done)
    pct = lambda part, whole: 100.0 * part / whole if whole else math.nan  # noqa: E731
    mean = lambda xs: math.fsum(xs) / len(xs) if xs else math.nan  # noqa: E731
    return {
        "accepted": committed,
        "completed": len(done),
        "utilization": pct(rented, rentable) if hi > lo else math.nan,
        "mean_processors": mean([r.processors for r in done]),
        "predicted_profit": predicted,
        "realised_pct": pct(math.fsum(r.profit for r in done), predicted),
        "unadmitted_work_pct": pct(math.fsum(r.job.work for r in records if not r.committed), work),
        "deadlines_missed": sum(
            1 for r in done if r.job.deadline is not None and r.end > r.job.deadline + 1e-9
        ),
        "mean_response": mean([r.end - r.job.arrival for r in best_effort]),
        "mean_wait": mean([r.start - r.job.arrival for r in done]),
        "mean_slowdown": mean(slowdowns),
    }


def mid_run_and_end(seed: int, tmp_path):
    """A random market of ``seed`` (deadline clusters, traces with deadlines; competing providers
    with prices every other seed), yielded mid-run (jobs running, none ended yet) and at the
    end; skips the test if the market stalls (its pools' chances)."""
    rng = np.random.default_rng(seed)
    data = random_market(rng, trace_dir=tmp_path, market=seed % 2 == 1)
    model = GridMarket(validate(data), seed=seed)
    try:
        for until in (model.time + 2.0, math.inf):
            model.run(until)
            yield model
    except MarketStalled:
        pytest.skip("this random market stalls (its pools' chances)")


@pytest.mark.parametrize("seed", range(12))
def test_the_summary_from_columns_is_its_definitions_record_by_record(seed, tmp_path):
    # The vectorised figures are the per-record ones, and the summary read alone (the
    # dashboard's) is the one from the table's columns.
    for model in mid_run_and_end(seed, tmp_path):
        for sp in model.service_providers.values():
            summary = provider_summary(model, sp, job_columns(sp))
            assert _same(summary, provider_summary(model, sp))
            expected = _by_records(model, sp)
            if getattr(sp, "policy", None) is not None and sp.policy.sharing == "time":
                del expected["utilization"]  # a time-shared cluster's own (fulfilment.py)
            assert _same({k: summary[k] for k in expected}, expected)


@pytest.mark.parametrize("seed", range(8))
def test_a_result_without_the_per_job_table_has_the_same_other_tables(seed, tmp_path):
    # The market table's client money read from the records is the one from the per-job table,
    # and the summary is the same; the per-job table is left with its columns only.
    for model in mid_run_and_end(seed, tmp_path):
        full, light = model.result(), model.result(jobs=False)
        pd.testing.assert_frame_equal(light.market, full.market)
        pd.testing.assert_frame_equal(light.summary, full.summary)
        assert light.jobs.empty and list(light.jobs.columns) == list(full.jobs.columns)


@pytest.mark.parametrize("seed", range(6))
def test_any_chunk_size_gives_the_same_summary_to_the_last_bit(seed, tmp_path, monkeypatch):
    # Records are read, and every figure of every job summed, a chunk of jobs at a time; the
    # sums are exact, so chunks of 3 jobs give the summary of one chunk of them all.
    chunked = 0
    for model in mid_run_and_end(seed, tmp_path):
        for sp in model.service_providers.values():
            whole = provider_summary(model, sp)
            for module in (job_columns_module, provider_run, windows):
                monkeypatch.setattr(module, "CHUNK", 3)
            assert _same(provider_summary(model, sp), whole)
            monkeypatch.undo()
            chunked += len(sp.records) > 3
    assert chunked  # (some provider had several chunks)
