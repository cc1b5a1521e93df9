"""Speed of the dashboard's update tick with three providers whose series already hold 10,000
points each: the server side of one browser update (advance the models by one update's worth of
simulated time, build the increments, the monitors, the Gantt chart and the decisions table,
and serialize the response as Dash does), the same without advancing (the views alone), a whole
redraw (a reload), and the browser's side: ``Plotly.extendTraces`` on 10,000-point traces in
headless Chromium (skipped without it).

Skipped by default (pyproject addopts has --benchmark-skip); run with
``pytest tests/benchmarks --benchmark-enable --benchmark-only`` (or ``make bench-suite``).
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from dash import no_update
from dash._utils import to_json

from dashboards.app import DEFAULT_SCENARIO
from dashboards.callbacks import Callbacks
from dashboards.setup import Setup
from dashboards.tab_sessions import TabSessions
from dashboards.views import GRAPHS, display_stride, shown_graphs

SID = "bench-session"
POINTS = 10_000
CHROMIUM = Path("/usr/bin/chromium")


class _Length:
    """Stands for a line of ``n`` points."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n


def _filled_callbacks() -> tuple[Callbacks, dict]:
    """Three parallel runs (FirstProfit, LJF, SJF) of the default scenario with 3,000 jobs, whose
    series hold 10,000 points (sampled every 0.01 h up to t = 100 h), playing at 2 h/s; and the
    cursor of a browser that has every point."""
    setup = Setup(str(DEFAULT_SCENARIO), ("FirstProfit", "LJF", "SJF"), params=(("jobs", 3000),))
    callbacks = Callbacks(TabSessions(lambda: setup), [])
    with callbacks.registry.use(SID) as session:
        session.sample_interval = 100.0 / (POINTS - 1)
        session.advance_to(100.0)
        session.sample_interval = 0.5  # from now on, the scenario's sampling
        assert session.counts() == [POINTS] * 3
        session.set_speed(2.0)
        session.play()
    cursor = callbacks.update(SID, None, {"n": 0}, advance=False)["cursor"]
    return callbacks, cursor


def _respond(callbacks: Callbacks, cursor: dict, n: int, advance: bool) -> tuple[dict, str]:
    out = callbacks.update(SID, cursor, {"n": n}, advance=advance)
    return out, to_json(list(out.values()))


@pytest.mark.benchmark(group="dashboard-tick")
def test_update_tick_three_providers_10k_points(benchmark):
    callbacks, cursor = _filled_callbacks()
    state = {"cursor": cursor, "n": 0, "extends": 0}

    def tick():
        state["n"] += 1
        out, _ = _respond(callbacks, state["cursor"], state["n"], advance=True)
        state["cursor"] = out["cursor"]
        state["extends"] += out["rate-extend"] is not no_update
        assert out["rate-figure"] is no_update
        return out

    out = benchmark.pedantic(tick, rounds=60, iterations=1, warmup_rounds=2)
    # 1 h per tick, a sample per 0.5 h; every 4th sample is shown at this length
    assert out["cursor"]["counts"] == [POINTS + 2 * 62] * 3
    assert out["cursor"]["stride"] == 4 and state["extends"] == 31


@pytest.mark.benchmark(group="dashboard-tick")
def test_update_views_only_three_providers_10k_points(benchmark):
    callbacks, cursor = _filled_callbacks()
    with callbacks.registry.use(SID) as session:
        session.pause()

    def views():
        cursor["version"] = -1  # force the monitors, Gantt and decisions to be rebuilt
        return _respond(callbacks, cursor, 1, advance=False)[0]

    out = benchmark.pedantic(views, rounds=60, iterations=1, warmup_rounds=2)
    assert out["gantt"] is not None


@pytest.mark.benchmark(group="dashboard-redraw")
def test_whole_redraw_three_providers_10k_points(benchmark):
    callbacks, _ = _filled_callbacks()
    out, body = benchmark.pedantic(
        lambda: _respond(callbacks, None, 1, advance=False), rounds=10, iterations=1
    )
    assert len(out["rate-figure"]["data"][0]["x"]) == POINTS // 4  # every 4th point shown
    benchmark.extra_info["response_bytes"] = len(body)


@pytest.mark.benchmark(group="dashboard-browser")
@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"no Chromium at {CHROMIUM}")
@pytest.mark.parametrize("shown", ["as-shown", "every-point"])
def test_browser_extend_traces_10k_points(benchmark, tmp_path, shown):
    """ms per ``Plotly.extendTraces`` of 2 points on each of the 21 traces (3 lines x 7
    metrics, in the page's three time-series graphs) of series of 10,000 points: as the
    dashboard shows them (every 4th point past DISPLAY_LIMIT) and, for comparison, all."""
    n_points = -(-POINTS // display_stride([_Length(POINTS)])) if shown == "as-shown" else POINTS
    sync_api = pytest.importorskip("playwright.sync_api")
    from werkzeug.serving import make_server

    from dashboards.app import create_app

    httpd = make_server("127.0.0.1", 0, create_app().server, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        with sync_api.sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                str(tmp_path / "profile"),
                executable_path=str(CHROMIUM),
                headless=True,
                args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                      "--no-first-run", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync"],
            )  # fmt: skip
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{httpd.server_port}/")
            page.wait_for_function(
                "() => window.Plotly && document.querySelector('.js-plotly-plot')"
            )
            graphs = {graph: len(GRAPHS[graph]) for graph in shown_graphs(None)}  # profit
            page.evaluate(
                """([graphs, n]) => {
                    window.benchDivs = [];
                    for (const [graph, metrics] of Object.entries(graphs)) {
                        const div = document.createElement('div');
                        div.style.width = '1000px'; div.style.height = '300px';
                        document.body.appendChild(div);
                        const traces = [];
                        for (let k = 0; k < 3 * metrics; k++) {
                            const x = Array.from({length: n}, (_, i) => i * 0.01);
                            const y = x.map(t => Math.sin(t + k) * 100 + k);
                            traces.push({type: 'scatter', mode: 'lines', x, y});
                        }
                        Plotly.newPlot(div, traces, {});
                        window.benchDivs.push([div, 3 * metrics]);
                    }
                    window.benchT = n * 0.01;
                }""",
                [graphs, n_points],
            )

            def extend():
                return page.evaluate(
                    """async () => {
                        const t = window.benchT; window.benchT += 0.02;
                        for (const [div, count] of window.benchDivs) {
                            const idx = [...Array(count).keys()];
                            await Plotly.extendTraces(div, {
                                x: idx.map(() => [t, t + 0.01]),
                                y: idx.map(k => [k, k + 1]),
                            }, idx);
                        }
                        return window.benchDivs[0][0].data[0].x.length;
                    }"""
                )

            length = benchmark.pedantic(extend, rounds=30, iterations=1, warmup_rounds=1)
            assert length > n_points
            benchmark.extra_info["points_per_trace"] = n_points
            context.close()
    finally:
        httpd.shutdown()
        thread.join(timeout=10)


@pytest.mark.benchmark(group="dashboard-qos")
def test_qos_curves_of_one_tick_three_lines_2000_jobs(benchmark, tmp_path):
    """The QoS charts' share of a tick in a deadline market: filling the curves' new points
    (two samples per line, as at 2 h/s) of three QoPS runs that have offered 2,000 jobs each
    (one pass over each run's jobs, then numpy over the new times)."""
    from dashboards.session import QOS, Session
    from tests.dashboards.conftest import qops_file, serving_traces

    with serving_traces(tmp_path):  # (the dashboard tests' own folder is theirs alone)
        path = qops_file(tmp_path, "sdsc_mixed", jobs=2000)
        session = Session(SID, Setup(path, ("QoPS", "EASY (all)", "Conservative (all)")))
        session.advance_to(1e6)
    assert session.finished
    session.record_qos()

    def fill_two_new_points():
        for line in session.lines:
            for name in QOS:
                del line.values[name][-2:]
        session.record_qos()

    benchmark.pedantic(fill_two_new_points, rounds=60, iterations=1, warmup_rounds=2)
    offered = [
        len(sp.records) for run in session.runs for sp in run.model.service_providers.values()
    ]
    assert len(set(offered)) == 1 and offered[0] > 1900  # the trace's jobs that can run
    benchmark.extra_info["jobs_per_run"] = offered[0]
