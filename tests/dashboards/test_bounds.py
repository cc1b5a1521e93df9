"""What one tab may make the dashboard do is bounded (dashboards/run_limits.py): the jobs of a
tab's runs, checked before any work; the work of one update, so that Pause answers within one
update; the points a line keeps."""

from __future__ import annotations

import base64
import threading
import time

import pytest
import yaml

from dashboards import run_limits, served_scenarios
from dashboards import session as session_module
from dashboards.run_limits import check_run_size, jobs_of, trace_records
from dashboards.session import Session
from dashboards.setup import AS_WRITTEN, Setup, SetupError
from market.inputs.scenario import ScenarioError, validate
from market.results.result import RunResult
from tests.dashboards.conftest import SID, served_swf


def upload(data: dict) -> str:
    text = yaml.safe_dump(data).encode()
    return served_scenarios.add_upload("u.yaml", "data:;base64," + base64.b64encode(text).decode())


def burst(jobs: int = 1500, sample_interval: float = 1000.0) -> dict:
    """Jobs arriving microseconds apart, sampled rarely: one sample interval holds them all
    (1,500 of them take about a minute of CPU in one go: each arrival plans the whole queue)."""
    return {
        "name": "burst",
        "seed": 3,
        "sample_interval": sample_interval,
        "resource_providers": [{"name": "rp", "capacity": 8, "price": 1.0}],
        "service_providers": [{"name": "sp", "scheduler": "first_profit"}],
        "clients": [
            {
                "name": "c",
                "workload": {
                    "kind": "profit",
                    "jobs": jobs,
                    "mean_interarrival": 1e-7,
                    "mean_work": 0.05,
                    "shapes": [1, 2],
                },
            }
        ],
    }


def test_a_321_byte_upload_of_forty_million_jobs_is_refused_before_any_work():
    clients = [
        {"name": f"c{i}", "workload": {"jobs": 1_000_000, "mean_interarrival": 1e-4,
                                        "mean_work": 1e-4}}
        for i in range(40)
    ]  # fmt: skip
    data = {
        "name": "huge",
        "resource_providers": [{"name": "rp", "capacity": 4, "price": 1.0}],
        "service_providers": [{"name": "sp"}],
        "clients": clients,
    }
    key = upload(data)
    started = time.process_time()
    with pytest.raises(SetupError) as info:
        Session(SID, Setup(key, (AS_WRITTEN,)))
    assert time.process_time() - started < 2.0  # no job was drawn
    # refused in one line before any job is drawn: by the scenario's own limit on jobs per run
    # (market.inputs.limits) or, below it, by the dashboard's per-tab limit
    message = str(info.value)
    assert "\n" not in message and "jobs" in message


def test_jobs_are_counted_from_the_scenario_and_the_trace():
    trace = served_swf(n=120)
    swf = {"kind": "swf", "trace": str(trace)}
    scenario = validate(
        {
            "name": "count",
            "resource_providers": [{"name": "rp", "capacity": 16, "price": 1.0}],
            "service_providers": [{"name": "sp"}],
            "clients": [
                {"name": "a", "workload": {"kind": "profit", "jobs": 30}},
                {"name": "b", "workload": swf},
                {"name": "c", "workload": swf | {"first_jobs": 50, "load_factor": 1.5}},
                {"name": "d", "workload": swf | {"last_jobs": 40, "load_method": "expand",
                                                 "load_factor": 2.0}},
            ],
        }
    )  # fmt: skip
    assert trace_records(str(trace)) == 120  # its data lines (not the header)
    assert trace_records(str(trace), limit=10) == 11  # stops past the limit
    assert jobs_of(scenario) == 30 + 120 + 75 + 40
    assert jobs_of(scenario, limit=100) == 101
    check_run_size([scenario, scenario], limit=2 * 265)
    with pytest.raises(ScenarioError, match=r"^these 2 runs would submit more than 529 jobs"):
        check_run_size([scenario, scenario], limit=529)


def test_one_update_stops_at_its_budget_and_the_runs_come_out_the_same(monkeypatch):
    key = upload(burst(jobs=250))
    reference = Session("t-reference", Setup(key, (AS_WRITTEN,)))
    reference.advance_to(1e6)
    assert reference.finished
    expected = RunResult.from_model(reference.runs[0].model).jobs

    session = Session(SID, Setup(key, (AS_WRITTEN,)))
    session.budget = 0.02
    session.set_speed(1e6)  # one update asks for the whole run
    session.play()
    longest, updates = 0.0, 0
    while session.playing:
        started = time.thread_time()  # (CPU: the machine may be busy with other work)
        session.update()
        longest = max(longest, time.thread_time() - started)
        updates += 1
    assert session.finished and updates > 3  # many small updates, not one long one
    assert longest < 0.5
    pd_jobs = RunResult.from_model(session.runs[0].model).jobs
    assert pd_jobs.equals(expected)  # stopping between events changes nothing


def test_pause_answers_within_one_update_while_a_tab_plays_a_burst():
    session = Session(SID, Setup(upload(burst(jobs=4000)), (AS_WRITTEN,)))
    session.set_speed(1e6)
    session.play()
    stop = threading.Event()

    def play():  # what the update callback does, every tick
        while not stop.is_set() and session.playing:
            with session.lock:
                session.update()
            time.sleep(0.01)

    player = threading.Thread(target=play)
    player.start()
    time.sleep(0.2)
    asked = time.perf_counter()
    with session.lock:  # the Pause button's callback
        waited = time.perf_counter() - asked
        session.pause()
    stop.set()
    player.join(timeout=30)
    assert not session.playing
    assert waited < session.budget + 2.0  # (in one go, the burst runs for minutes)


def test_a_line_keeps_at_most_max_points(monkeypatch):
    monkeypatch.setattr(session_module, "MAX_POINTS", 40)
    key = upload(burst(jobs=200, sample_interval=0.002))
    session = Session(SID, Setup(key, (AS_WRITTEN,)))
    first = session.sample_interval
    session.advance_to(1e6)
    assert session.finished
    line = session.lines[0]
    assert 20 <= len(line) <= 41
    assert session.sample_interval > first  # sampled less often as the run went on
    assert all(len(values) in (0, len(line)) or len(values) <= len(line)
               for values in line.values.values())  # fmt: skip
    times = list(line.t)
    assert times == sorted(times)
    summary = RunResult.from_model(session.runs[0].model).summary.iloc[0]
    assert line.values["profit"][-1] == pytest.approx(summary["profit"])
    assert run_limits.MAX_POINTS == 20_000  # (the module's own value is untouched)


def test_the_server_holds_at_most_its_job_budget_dropping_idle_tabs_first():
    from dashboards.app import create_app
    from tests.dashboards.conftest import OTHER, small

    app = create_app()
    state = app.gridmarket_state
    state.budget.limit = 100  # jobs over every tab (a small server)
    live = state.sessions["live"]
    setup = small(jobs=30)  # three policies: 90 jobs
    with live.use(SID) as first:
        first.reset(setup)
    assert state.budget.held() == 90
    with live.use(OTHER) as second:  # the first tab is idle: dropped to make room
        second.reset(setup)
    assert SID not in live and state.budget.held() == 90
    third = "tab-cccccccc"
    busy, done = threading.Event(), threading.Event()

    def request():  # another request, on another thread, holds the second tab
        with live.use(OTHER):
            busy.set()
            done.wait(30)

    holder = threading.Thread(target=request)
    holder.start()
    busy.wait(30)
    try:
        with live.use(third) as session, pytest.raises(SetupError) as info:
            session.reset(setup)  # the second tab is busy: no room
    finally:
        done.set()
        holder.join(30)
    assert str(info.value) == (
        "the server runs 90 jobs for other tabs and at most 100: try again when a tab has "
        "closed, or run it with gridmarket run"
    )
    assert OTHER in live and state.budget.held() == 90  # (the refused reset holds nothing)
    live.drop(OTHER)
    assert state.budget.held() == 0
