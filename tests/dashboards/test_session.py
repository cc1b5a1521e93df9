"""Per-tab state of the dashboard (dashboards.session), without a browser."""

from __future__ import annotations

import math
import threading

import pytest

from dashboards.served_scenarios import files_under, load_scenario
from dashboards.session import METRICS, QOS, Session
from dashboards.setup import (
    AS_WRITTEN,
    PARAMS,
    Setup,
    SetupError,
    check_param,
    default_policies,
    param_enabled,
    param_values,
    policy_options,
)
from dashboards.tab_sessions import TabSessions
from tests.conftest import ROOT
from tests.dashboards.conftest import DEFAULT, SID, small

# -- set-up -----------------------------------------------------------------------------------


def test_default_setup_runs_every_variant_in_parallel():
    scenario = load_scenario(DEFAULT)
    session = Session(SID, Setup.default(DEFAULT))
    assert [run.label for run in session.runs] == list(scenario.variants)
    assert [line.label for line in session.lines] == list(scenario.variants)
    assert session.counts() == [1] * len(scenario.variants)  # the point at t = 0
    assert all(list(line.t) == [0.0] for line in session.lines)


def test_parallel_runs_share_the_seed_and_so_the_job_stream(session):
    assert {run.model.seed for run in session.runs} == {1}
    session.run_until(3.0)
    while session.playing:
        session.update()
    streams = [
        [(r.job.arrival, r.job.work) for r in sp.records.values()]
        for run in session.runs
        for sp in run.model.service_providers.values()
    ]
    assert streams[0] and all(s == streams[0] for s in streams)


def test_market_mode_is_one_market_with_a_provider_per_policy():
    own = Session(SID, small(mode="market"))
    assert len(own.runs) == 1
    model = own.runs[0].model
    assert list(model.service_providers) == ["FirstProfit", "LJF", "SJF"]
    assert [sp.scheduler.name for sp in model.service_providers.values()] == [
        "first_profit",
        "ljf",
        "sjf",
    ]
    assert len(model.resource_providers) == 3  # each rents a copy of the pool
    assert [line.label for line in own.lines] == ["FirstProfit", "LJF", "SJF"]

    shared = Session(SID, small(mode="market", pool="shared"))
    assert len(shared.runs[0].model.resource_providers) == 1

    own.run_until(5.0)
    while own.playing:
        own.update()
    offered = [set(sp.records) for sp in model.service_providers.values()]
    assert offered[0] and offered[0] == offered[1] == offered[2]  # best_quote: all quote


def test_parameters_change_the_runs():
    session = Session(
        SID, small(params=(("price", 6.0), ("capacity", 12), ("mean_interarrival", 0.3)))
    )
    for run in session.runs:
        rp = run.model.resource_providers["rp"]
        assert rp.capacity == 12
        assert run.model.spec.resource_providers[0].price == 6.0
        assert run.model.spec.clients[0].workload.mean_interarrival == 0.3


def test_seed_parameter_changes_the_job_stream():
    a = Session(SID, small(params=(("seed", 1),))).runs[0].model
    b = Session(SID, small(params=(("seed", 2),))).runs[0].model
    assert a.next_event_time() != b.next_event_time()


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("mean_interarrival", -1, "clients.0.workload.mean_interarrival: Input should be greater"),
        ("mean_interarrival", None, "clients.0.workload.mean_interarrival: enter a number"),
        ("capacity", 2.5, "resource_providers.0.capacity: Input should be a valid integer"),
        ("capacity", 0, "resource_providers.0.capacity: Input should be greater than or equal"),
        ("price", "cheap", "resource_providers.0.price: Input should be a valid number"),
        ("seed", -3, "seed: Input should be greater than or equal to 0"),
        ("jobs", -1, "clients.0.workload.jobs: Input should be greater than or equal to 0"),
    ],
)
def test_invalid_parameters_have_one_line_messages_naming_the_field(name, value, expected):
    message = check_param(load_scenario(DEFAULT), name, value)
    assert message.startswith(expected)
    assert "\n" not in message


def test_valid_and_missing_parameters_have_no_message():
    scenario = load_scenario(DEFAULT)
    assert check_param(scenario, "mean_interarrival", 0.3) is None
    assert check_param(scenario, "capacity", 12) is None
    for name in ("sigma", "risk_bound"):  # uncertain capacity and the risk bound
        assert param_enabled(scenario, name)
    assert check_param(scenario, "sigma", 2.5) is None
    assert check_param(scenario, "risk_bound", 0.1) is None
    assert check_param(scenario, "risk_bound", None) is None, "empty: uncertainty-oblivious"
    assert "greater than or equal to 0" in check_param(scenario, "sigma", -1)
    assert "less than 1" in check_param(scenario, "risk_bound", 1.5)


def test_param_values_come_from_the_scenario():
    values = param_values(load_scenario(DEFAULT))
    assert values["mean_interarrival"] == 0.15
    assert values["price"] == 3.0
    assert values["capacity"] == 10
    assert values["seed"] == 1
    assert values["sigma"] == 0.0 and values["risk_bound"] is None
    assert {p.name for p in PARAMS} == set(values)


def test_policy_options_are_the_variants_or_the_scenario_as_written():
    scenario = load_scenario(DEFAULT)
    assert list(policy_options(scenario)) == list(scenario.variants)
    assert default_policies(scenario) == tuple(scenario.variants)
    bare = scenario.model_copy(update={"variants": {}})
    options = policy_options(bare)
    # the scenario itself first and alone ticked; the other schedulers may be ticked beside it
    assert next(iter(options)) == AS_WRITTEN and options[AS_WRITTEN] == {}
    assert default_policies(bare) == (AS_WRITTEN,)
    assert "first_profit" not in options and "ljf" in options  # (its own: as written)
    assert options["ljf"] == {"service_providers.0.scheduler": "ljf"}
    market = load_scenario(str(ROOT / "scenarios" / "market" / "competition.yaml"))
    assert list(policy_options(market)) == [AS_WRITTEN]  # three providers: only as written


def test_a_scenario_without_variants_runs_as_written():
    path = str(ROOT / "scenarios" / "market" / "competition.yaml")
    session = Session(SID, Setup.default(path))
    assert [run.label for run in session.runs] == [AS_WRITTEN]
    assert [line.label for line in session.lines] == ["plus", "opp", "urgent"]
    scenario = load_scenario(path)
    assert session.runs[0].model.spec == scenario  # (no trace: nothing to confine)


def test_files_under_lists_the_catalog(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.yaml").write_text("name: x\n")
    assert files_under(tmp_path) == [("a/x.yaml", str(tmp_path / "a" / "x.yaml"))]
    assert files_under(tmp_path / "missing") == []


@pytest.mark.parametrize(
    ("setup", "field"),
    [
        (small(policies=()), "policies"),
        (small(policies=("NoSuchPolicy",)), "policies"),
        (small(params=(("capacity", -1),)), "capacity"),
        (small(mode="sideways"), "mode"),
        (Setup("/no/such/file.yaml", ("LJF",)), "scenario"),
    ],
)
def test_invalid_setups_raise_naming_the_field(session, setup, field):
    before = (session.generation, session.setup, [run.model for run in session.runs])
    with pytest.raises(SetupError) as error:
        session.reset(setup)
    assert error.value.field == field
    assert (session.generation, session.setup, [run.model for run in session.runs]) == before


# -- running ----------------------------------------------------------------------------------


def test_nothing_moves_while_paused(session):
    assert not session.update()
    assert session.now == 0.0 and session.counts() == [1, 1, 1]


def test_play_advances_every_run_by_speed_times_interval(session):
    session.set_speed(4)
    session.play()
    assert session.update()
    assert session.now == pytest.approx(4 * session.interval)
    assert all(run.model.time == pytest.approx(2.0) for run in session.runs)
    # sampled every sample_interval (0.5 h): t = 0, 0.5, 1, 1.5, 2
    assert list(session.lines[0].t) == pytest.approx([0.0, 0.5, 1.0, 1.5, 2.0])
    assert all(len(session.lines[0].values[m]) == 5 for m in METRICS)
    assert all(len(session.lines[0].values[m]) == 0 for m in QOS)  # filled on demand
    session.record_qos()
    assert all(len(values) == 5 for values in session.lines[0].values.values())
    assert set(session.lines[0].values) == {*METRICS, *QOS}


def test_points_are_only_appended(session):
    session.play()
    session.update()
    before = [(list(line.t), list(line.values["profit"])) for line in session.lines]
    counts = session.counts()
    session.update()
    for (t, profit), line in zip(before, session.lines, strict=True):
        assert list(line.t[: len(t)]) == t
        assert list(line.values["profit"][: len(profit)]) == profit
    assert session.points_since(counts) == [(i, c) for i, c in enumerate(counts)]
    assert session.points_since(session.counts()) == []
    assert session.points_since(None) == [(i, 0) for i in range(len(session.lines))]


def test_step_runs_the_next_event_instant(session):
    due = min(run.model.next_event_time() for run in session.runs)
    assert session.step()
    assert session.now == pytest.approx(due)
    assert all(run.model.time == pytest.approx(due) for run in session.runs)
    assert session.counts() == [2, 2, 2]
    assert not session.playing


def test_run_until_pauses_at_t(session):
    session.run_until(3.2)
    assert session.playing
    while session.playing:
        session.update()
    assert session.now == pytest.approx(3.2)
    assert session.lines[0].t[-1] == pytest.approx(3.2)
    with pytest.raises(ValueError, match="later than now"):
        session.run_until(1.0)
    with pytest.raises(ValueError, match="T: enter a time"):
        session.run_until(math.nan)


def test_a_run_ends_and_stops_playing():
    session = Session(SID, small(jobs=8))
    session.set_speed(100)
    session.play()
    for _ in range(200):
        if not session.update():
            break
    assert session.finished and not session.playing
    assert session.status()["state"] == "finished"
    assert all(row["state"] == "finished" for row in session.monitors())
    assert not session.step()


def test_reset_starts_again_with_a_new_generation(session):
    session.play()
    session.update()
    generation = session.generation
    session.reset(small(policies=("LJF",)))
    assert session.generation == generation + 1
    assert session.now == 0.0 and not session.playing
    assert [line.label for line in session.lines] == ["LJF"]
    assert session.counts() == [1]


def test_speed_must_be_positive(session):
    with pytest.raises(ValueError, match="speed"):
        session.set_speed(0)
    session.set_speed(10)
    assert session.speed == 10.0


def test_monitors_gantt_and_decisions(session):
    session.run_until(6.0)
    while session.playing:
        session.update()
    monitors = session.monitors()
    assert [row["line"] for row in monitors] == ["FirstProfit", "LJF", "SJF"]
    assert all(row["time"] == pytest.approx(6.0) for row in monitors)
    assert {"profit_rate", "profit", "utilization", "queue_length", "accepted_pct"} <= set(
        monitors[0]
    )

    gantt = session.gantt()
    assert gantt, "some job is running at t = 6"
    for row in gantt:
        assert row["line"] in {"FirstProfit", "LJF", "SJF"}
        assert row["start"] <= row["end"]
        if row["status"] == "running":
            assert row["start"] <= session.now
        else:
            assert row["status"] == "planned" and row["start"] >= session.now
        assert math.isfinite(row["expected_profit"])

    decisions = session.decisions(limit=5)
    assert len(decisions) == 5
    times = [row["time"] for row in decisions]
    assert times == sorted(times, reverse=True)
    assert all(row["reason"] and row["detail"] for row in decisions)


def test_exports(session):
    session.run_until(4.0)
    while session.playing:
        session.update()
    series = session.timeseries_frame()
    assert list(series.columns[:4]) == ["line", "run", "provider", "time"]
    assert {*METRICS, *QOS} <= set(series.columns)
    assert len(series) == sum(session.counts())
    jobs = session.jobs_frame()
    assert jobs.columns[0] == "run"
    assert set(jobs["run"]) == {"FirstProfit", "LJF", "SJF"}
    assert {"job", "reason", "processors", "start", "end", "paid"} <= set(jobs.columns)


# -- the registry -----------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_one_session_per_id_and_tabs_do_not_interfere(registry):
    a = registry.get("tab-aaaaaaaa")
    b = registry.get("tab-bbbbbbbb")
    assert a is registry.get("tab-aaaaaaaa") and a is not b
    a.play()
    a.update()
    assert a.now > 0 and b.now == 0.0 and b.counts() == [1, 1, 1]
    assert a.runs[0].model is not b.runs[0].model


@pytest.mark.parametrize("sid", [None, "", "short", "x" * 65, "has space!", 12345678])
def test_malformed_ids_are_refused(registry, sid):
    with pytest.raises(ValueError):
        registry.get(sid)
    assert len(registry) == 0


def test_idle_sessions_are_evicted():
    clock = Clock()
    registry = TabSessions(lambda: small(), max_idle=60, clock=clock)
    registry.get("tab-aaaaaaaa")
    clock.now = 30
    registry.get("tab-bbbbbbbb")
    clock.now = 75  # a idle for 75 s, b for 45 s
    registry.get("tab-cccccccc")
    assert "tab-aaaaaaaa" not in registry
    assert "tab-bbbbbbbb" in registry and "tab-cccccccc" in registry


def test_sessions_beyond_the_limit_go_least_recently_used_first():
    clock = Clock()
    registry = TabSessions(lambda: small(), max_sessions=2, clock=clock)
    for i, sid in enumerate(["tab-aaaaaaaa", "tab-bbbbbbbb"]):
        clock.now = i
        registry.get(sid)
    clock.now = 5
    registry.get("tab-aaaaaaaa")  # a used again: b is now the least recent
    clock.now = 6
    registry.get("tab-cccccccc")
    assert len(registry) == 2
    assert "tab-bbbbbbbb" not in registry and "tab-aaaaaaaa" in registry


def test_concurrent_updates_of_one_tab_are_serialized():
    registry = TabSessions(lambda: small(jobs=200))
    with registry.use(SID) as session:
        session.set_speed(2)
        session.play()
    errors = []

    def work():
        try:
            for _ in range(5):
                with registry.use(SID) as s:
                    s.update()
                    counts = s.counts()
                    assert all(len(line.t) == c for line, c in zip(s.lines, counts, strict=True))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with registry.use(SID) as session:
        assert session.now == pytest.approx(15 * session.speed * session.interval)
        times = list(session.lines[0].t)
        assert times == sorted(times)
