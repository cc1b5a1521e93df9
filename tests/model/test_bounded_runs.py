"""Runs whose work is bounded by what can change, and whose tables agree.

- A job never ends before it starts: a synthetic client's job (continuous time) beside a trace
  (a one-second grid) shorter than half a second used to snap its end before its start.
- A provider whose due job cannot start sleeps until something changes (an availability draw,
  an outage, processors returned, an arrival, a completion), instead of waking at every
  predicted end; a job its pool can essentially never hold is reported when it is committed,
  naming the job's own pool, as is a stall.
- A stretch where nothing happens costs two samples, however long; a trace's run whose pools
  would draw their availability too often over its length is refused before it starts.
- The QoPS family keeps its deadline guarantee: without a scheduler it gets the conservative
  one its promises are about (another is a one-line error, tests/unit/test_scenario.py).
- EDF rejecting a job it had queued counts it as rejected in the market table too; a
  time-shared node's rent is shared by the jobs on it, so per-job rents sum to the ledger's.
"""

from __future__ import annotations

import time

import pytest

from market.core.ledger import Kind
from market.inputs.scenario import ScenarioError, validate
from market.sim.model import GridMarket, MarketStalled
from tests.invariants import check_guarantees, check_invariants, check_tables, watch
from tests.markets import GUARANTEES

RECORD = "{job} {submit} -1 {runtime} {procs} -1 -1 {procs} {runtime} -1 1 1 1 1 1 1 -1 -1\n"


def trace(path, jobs: list[tuple[int, float, int]], max_procs: int = 4) -> str:
    """An SWF file of ``(submit s, runtime s, processors)`` jobs; its path."""
    lines = [f"; MaxProcs: {max_procs}\n"]
    for k, (submit, runtime, procs) in enumerate(jobs, start=1):
        lines.append(RECORD.format(job=k, submit=submit, runtime=runtime, procs=procs))
    path.write_text("".join(lines))
    return str(path)


def market(data: dict) -> GridMarket:
    return GridMarket(validate(data, "test"))


# -- one time grid -------------------------------------------------------------------------------
def test_a_short_job_beside_a_trace_never_ends_before_it_starts(tmp_path):
    # The trace puts the clock on a one-second grid; the synthetic jobs arrive off it and run
    # 0.36 s. Before, an end snapped below its start: negative rent, and the ledger refused it.
    replay = trace(tmp_path / "t.swf", [(0, 10, 1), (30, 50, 1), (60, 100, 1), (90, 20, 1)])
    model = market(
        {
            "seed": 1,
            "resource_providers": [{"name": "rp", "capacity": 4, "price": 3.0}],
            "service_providers": [
                {"name": "sp", "scheduler": "first_profit", "admission": "accept_all"}
            ],
            "clients": [
                {"name": "synthetic", "workload": {"kind": "profit", "jobs": 20,
                 "mean_work": 0.0001, "work_distribution": "constant", "shapes": [1]}},
                {"name": "replay", "workload": {"kind": "swf", "trace": replay}},
            ],
        }
    )  # fmt: skip
    watch(model)
    model.run()
    check_invariants(model)
    check_tables(model)
    records = model.service_providers["sp"].records.values()
    assert len(records) == 24 and all(r.end >= r.start and r.rent >= 0 for r in records)
    assert any(r.end == r.start for r in records)  # ended at their start: under half a second


# -- no spinning -----------------------------------------------------------------------------------
IMPROBABLE = {  # 8 of a pool drawn around 6 (sd 0.6) every hour: P = 0.0062 a period
    "resource_providers": [
        {"name": "r", "capacity": 10, "uncertainty": {"overbooking": 0.4, "sigma": 0.6}}
    ],
    "service_providers": [{"name": "s", "scheduler": "conservative", "admission": "accept_all"}],
    "clients": [{"name": "c", "workload": {"jobs": 2, "shapes": [8], "mean_work": 0.001}}],
}


def test_a_provider_whose_due_job_cannot_start_sleeps_until_something_changes():
    # The plan puts job 0 now and job 1 at job 0's predicted end, 0.2 s later. Job 0 cannot
    # start (6 of 10 there); waking at job 1's planned start to plan the same again, for every
    # 0.2 s of the 537 hours it waits, took 2,978,590 scheduler runs (143 CPU s); now it runs
    # once per availability draw (hourly), arrival and completion.
    model = market(IMPROBABLE)
    model.stall_after = 2000.0
    sp = model.service_providers["s"]
    runs, dispatch = [], sp.dispatch

    def counted() -> None:
        runs.append(model.time)
        dispatch()

    sp.dispatch = counted  # (kept alive by sp: Mesa holds callbacks weakly)
    began = time.process_time()
    model.run()
    assert model.end_time == pytest.approx(537.5, abs=1.0)
    assert len(runs) <= model.end_time + 1 + 4  # draws, two arrivals, two completions
    assert time.process_time() - began < 5


@pytest.mark.parametrize("sample_interval", [0.5, 0.00001])
def test_a_job_its_pool_can_essentially_never_hold_is_reported_at_once(sample_interval):
    # 8 of 9 processors over-booked by 59 % (drawn around 3.7, Laplace sd 0.344): once in 5.7
    # million hours. It used to wait out the whole 100,000-hour stall window (1.7 CPU hours),
    # sampling every 0.00001 h until memory ran out.
    data = {
        "sample_interval": sample_interval,
        "resource_providers": [{"name": "rp", "capacity": 9, "uncertainty": {
            "sigma": 0.344, "distribution": "laplace", "period": 0.523, "overbooking": 0.586}}],
        "service_providers": [{"name": "sp", "scheduler": "conservative",
                               "admission": "accept_all"}],
        "clients": [{"name": "c", "workload": {"jobs": 2, "shapes": [8], "mean_work": 0.001}}],
    }  # fmt: skip
    began = time.process_time()
    with pytest.raises(MarketStalled) as info:
        market(data).run()
    assert time.process_time() - began < 2
    assert str(info.value) == (
        "the market cannot finish (t=0.411353): job 0 of sp needs at least 8 processors, which "
        "rp (over-booked by 59%) offers with probability 9.14e-08 a 0.523-hour period: about "
        "once in 5,724,190 hours, beyond the 100,000-hour stall window (it can essentially "
        "never run)"
    )


def test_a_provider_of_several_pools_names_the_jobs_own_pool():
    # An 8-processor job fits only pool b (a has 4); b is over-booked by 40 % and can never
    # offer more than 6: the message names b, not the provider's first pool.
    model = market(
        {
            "resource_providers": [
                {"name": "a", "capacity": 4},
                {"name": "b", "capacity": 10, "uncertainty": {"overbooking": 0.4}},
            ],
            "service_providers": [{"name": "s", "admission": "accept_all", "reshape": False,
                                   "resource_providers": ["a", "b"]}],
            "clients": [{"name": "c", "workload": {"jobs": 3, "shapes": [8]}}],
        }
    )  # fmt: skip
    with pytest.raises(MarketStalled) as info:
        model.run()
    assert "job 0 of s needs at least 8 processors, but b (over-booked by 40%) can never " in str(
        info.value
    )


def test_a_stall_of_a_provider_of_several_pools_names_the_jobs_own_pool():
    # Job 0 fits only pool b (a has 4), which has room for 8 once in 161 hours on average: not
    # never, but longer than this stall window; the stall names b and its odds, not a.
    model = market(
        {
            "resource_providers": [
                {"name": "a", "capacity": 4},
                {"name": "b", "capacity": 10, "uncertainty": {"overbooking": 0.4, "sigma": 0.6}},
            ],
            "service_providers": [{"name": "s", "scheduler": "conservative",
                                   "admission": "accept_all", "reshape": False,
                                   "resource_providers": ["a", "b"]}],
            "clients": [{"name": "c", "workload": {"jobs": 2, "shapes": [8], "mean_work": 0.001}}],
        }
    )  # fmt: skip
    model.stall_after = 200.0
    with pytest.raises(MarketStalled) as info:
        model.run()
    assert str(info.value) == (
        "the market stalled at t=200.5: s has 2 jobs waiting (the narrowest needs 8 processors) "
        "and b has 6 of its 10 processors available (over-booked by 40%, 0 lost in outages now; "
        "job 0 needs 8, which a 1-hour period offers with probability 0.00621)"
    )


# -- quiet stretches -------------------------------------------------------------------------------
def test_a_job_of_a_trillion_seconds_runs_alone_in_two_samples(tmp_path):
    # 31,700 years of one job, sampled every half hour: 555 million samples before; the
    # stretch where nothing happens costs two now.
    replay = trace(tmp_path / "t.swf", [(0, 10**12, 2), (30, 50, 4), (60, 100, 1)])
    model = market(
        {
            "resource_providers": [{"name": "rp", "capacity": 4}],
            "service_providers": [{"name": "sp", "scheduler": "easy", "admission": "accept_all"}],
            "clients": [{"name": "c", "workload": {"kind": "swf", "trace": replay}}],
        }
    )
    began = time.process_time()
    result = model.run()
    assert time.process_time() - began < 5
    assert model.end_time == pytest.approx(10**12 / 3600)
    assert result.summary["completed"].iloc[0] == 3 and len(result.timeseries) < 20


def test_a_trace_whose_pools_would_draw_too_often_is_refused_before_it_runs(tmp_path):
    replay = trace(tmp_path / "t.swf", [(0, 10**12, 2), (30, 50, 4)])
    data = {
        "resource_providers": [{"name": "rp", "capacity": 4, "uncertainty": {"sigma": 0.5}}],
        "service_providers": [{"name": "sp", "admission": "accept_all"}],
        "clients": [{"name": "c", "workload": {"kind": "swf", "trace": replay}}],
    }
    with pytest.raises(ScenarioError) as info:
        market(data)
    assert str(info.value) == (
        "resource_providers.0.uncertainty.period: 1 h makes more than 1,000,000 availability "
        "draws over the run's expected 1.38889e+08 h; use at least 139 (the trace's arrivals "
        "and work)"
    )


# -- counts agree ----------------------------------------------------------------------------------
def test_a_job_edf_rejects_when_it_selects_it_is_rejected_in_the_market_table(tmp_path):
    # Three one-processor jobs at once on a one-processor EDF cluster with admission control,
    # deadlines at 1.5 x their runtime: the first runs, the other two are rejected when
    # selected. The client placed one job, not three.
    replay = trace(tmp_path / "t.swf", [(0, 3600, 1), (0, 3600, 1), (0, 3600, 1)], max_procs=1)
    workload = {"kind": "swf", "trace": replay, "deadlines": "factor", "deadline_factor": 1.5}
    model = market(
        {
            "resource_providers": [{"name": "rp", "capacity": 1, "price": 1.0}],
            "service_providers": [{"name": "sp", "cluster": "edf"}],
            "clients": [{"name": "c", "workload": workload}],
        }
    )
    watch(model)
    result = model.run()
    check_invariants(model)
    check_tables(model)
    client = result.market.set_index("name").loc["c"]
    assert (client.submitted, client.placed, client.rejected) == (3, 1, 2)
    assert result.jobs["committed"].sum() == 1
    assert list(result.jobs["reason"]).count("deadline-unreachable") == 2


def test_a_time_shared_nodes_rent_is_shared_by_the_jobs_on_it(tmp_path):
    # One Libra node at 1 per hour: job 1 alone from 0 to 0.5 h, both from 0.5 h until job 1
    # ends, then job 2 alone until it ends. Each stretch is shared equally by the jobs on the
    # node then, so the parts sum to the rent the ledger holds (it used to show 0 per job).
    replay = trace(tmp_path / "t.swf", [(0, 3600, 1), (1800, 3600, 1)], max_procs=1)
    workload = {"kind": "swf", "trace": replay, "deadlines": "factor", "deadline_factor": 4.0}
    model = market(
        {
            "resource_providers": [{"name": "rp", "capacity": 1, "price": 1.0}],
            "service_providers": [{"name": "sp", "cluster": "libra"}],
            "clients": [{"name": "c", "workload": workload}],
        }
    )
    watch(model)
    model.run()
    check_invariants(model)
    check_tables(model)
    first, second = (model.service_providers["sp"].records[k] for k in (0, 1))
    assert first.committed and second.committed and 0.5 < first.end < second.end
    together = first.end - 0.5
    assert first.rent == pytest.approx(0.5 + together / 2)
    assert second.rent == pytest.approx(together / 2 + second.end - first.end)
    assert first.rent + second.rent == pytest.approx(model.ledger.paid("sp", Kind.RENT))


# -- guarantees ------------------------------------------------------------------------------------
@pytest.mark.parametrize("admission", GUARANTEES)
def test_the_qops_family_without_a_scheduler_plans_conservatively_and_keeps_its_deadlines(
    tmp_path, admission
):
    # 60 jobs of 1-8 processors on 8, deadlines from an EASY schedule at stringency 0.2: with
    # the default scheduler (first_profit) admitted jobs missed their deadlines by hours.
    jobs = [(300 * k, 600 + 97 * k % 3000, 2 ** (k % 4)) for k in range(60)]
    replay = trace(tmp_path / "t.swf", jobs, max_procs=8)
    workload = {"kind": "priced_swf", "trace": replay, "estimates": "exact",  # (VQoPS: values)
                "deadlines": "stringency", "stringency": 0.2}  # fmt: skip
    model = market(
        {
            "resource_providers": [{"name": "rp", "capacity": 8, "price": 0.0}],
            "service_providers": [{"name": "sp", "admission": admission}],
            "clients": [{"name": "c", "workload": workload}],
        }
    )
    assert model.spec.service_providers[0].scheduler.name == "conservative"
    watch(model)
    result = model.run()
    check_invariants(model)
    kept = check_guarantees(model)  # every admitted deadline job met its deadline
    assert kept == result.jobs["committed"].sum() > 0
