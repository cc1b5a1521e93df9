"""The dashboard in a real browser: headless Chromium (Debian's ``chromium`` package) driven by
Playwright for Python, against the app served on a free loopback port.

Every page is opened, started, run a few ticks and paused; the test fails on any HTTP error, any
failed callback and any browser console error or page error. The live page is walked through:
start, pause, step, hover over a job of the Gantt chart, reload (the run in progress comes
back), a second tab (its own model), an invalid value (its message under the field), reset, a
scenario loaded by name (the tab resets to it at once, as written), and an upload whose trace
points outside the served folders (refused, saying nothing of the file). Screenshots of each
page go to ``$GRIDMARKET_SHOTS`` if set (else the test's temporary folder). Skips where
Chromium or Playwright is missing; ``playwright install`` is never needed.
"""

from __future__ import annotations

import json
import os
import threading
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.dashboards.conftest import served_swf
from tests.dashboards.test_paper_views import shipped

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SECRET = "hunter2-secret-token"
VIEWS = ("market", "vqops", "libra", "varq")

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"no Chromium at {CHROMIUM}: install Debian's chromium package to run the browser test",
)
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed (pip install '.[dev]')"
)


@pytest.fixture(scope="module")
def small_scenarios(tmp_path_factory) -> dict[str, str]:
    """Small scenarios for the view pages (synthetic traces in the served trace folder)."""
    folder = tmp_path_factory.mktemp("pages")
    market = yaml.safe_load((ROOT / "scenarios" / "market" / "entry.yaml").read_text())
    market["clients"][0]["workload"]["jobs"] = 80
    (folder / "entry.yaml").write_text(yaml.safe_dump(market, sort_keys=False))
    varq = {
        "name": "varq-small",
        "sample_interval": 1.0,
        "service_providers": [],
        "clients": [],
        "batch_sites": [
            {
                "name": "site",
                "trace": served_swf(n=200, procs=16, max_gap=600).name,
                "varq": {"fraction": 0.3, "probability": 0.5},
            }
        ],
    }
    (folder / "varq.yaml").write_text(yaml.safe_dump(varq, sort_keys=False))
    return {
        "market": str(folder / "entry.yaml"),
        "vqops": shipped(folder, "vqops", {"first_jobs": 120}, n=130),
        "libra": shipped(folder, "libra", {"last_jobs": 120}, n=130),
        "varq": str(folder / "varq.yaml"),
    }


@pytest.fixture(scope="module")
def server(small_scenarios):
    """The app on 127.0.0.1 and a free port (bound as port 0), in a thread; its URL and the
    HTTP answers it gave, as (status, path)."""
    from werkzeug.serving import make_server

    from dashboards.app import create_app

    app = create_app(page_scenarios=small_scenarios)
    answers: list[tuple[int, str]] = []

    @app.server.after_request
    def _record(response):
        from flask import request

        answers.append((response.status_code, request.path))
        return response

    httpd = make_server("127.0.0.1", 0, app.server, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_port}"
    for _ in range(100):
        try:
            with urllib.request.urlopen(url + "/", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            threading.Event().wait(0.1)
    else:  # pragma: no cover
        pytest.fail(f"the dashboard did not answer at {url}")
    yield url, answers
    httpd.shutdown()
    thread.join(timeout=10)


@pytest.fixture
def browser(tmp_path):
    """A fresh headless Chromium profile."""
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000},
        )
        context.set_default_timeout(60_000)  # (a loaded machine: builds can take seconds)
        yield context
        context.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("GRIDMARKET_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Watch:
    """What went wrong in a page: console errors, page errors, HTTP errors."""

    def __init__(self, page, answers: list[tuple[int, str]]) -> None:
        self.errors: list[str] = []
        self.answers = answers
        self.first = len(answers)
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def check(self) -> None:
        bad = [answer for answer in self.answers[self.first :] if answer[0] >= 400]
        assert not bad, f"HTTP errors: {bad}"
        assert not self.errors, f"browser errors: {self.errors}"


def _id(kind: str, name: str) -> str:
    """The CSS selector of a pattern-matching component id as Dash renders it."""
    return "[id='" + json.dumps({"name": name, "type": kind}, separators=(",", ":")) + "']"


def _traces(page, graph: str) -> int:
    return page.evaluate(
        "g => { const e = document.querySelector('#' + g + ' .js-plotly-plot');"
        " return e && e.data ? e.data.length : 0; }",
        graph,
    )


def _points(page, graph: str = "rate-graph") -> int:
    return page.evaluate(
        "g => { const e = document.querySelector('#' + g + ' .js-plotly-plot');"
        " return e && e.data && e.data.length ? e.data[0].x.length : 0; }",
        graph,
    )


def _wait_points(page, at_least: int, graph: str = "rate-graph") -> None:
    page.wait_for_function(
        "([g, n]) => { const e = document.querySelector('#' + g + ' .js-plotly-plot');"
        " return e && e.data && e.data.length && e.data[0].x.length >= n; }",
        arg=[graph, at_least],
    )


def _sim_time(page, where: str = "#sim-time") -> str:
    return page.inner_text(where)


@pytest.mark.parametrize("key", VIEWS)
def test_every_view_page_runs_in_chromium(server, browser, shots, key):
    url, answers = server
    page = browser.new_page()
    watch = Watch(page, answers)
    page.goto(f"{url}/{key}")
    clock = f"#{key}-clock .sim-time"
    page.wait_for_selector(clock)
    assert _sim_time(page, clock) == "t = 0.0 h"
    page.wait_for_selector(f'[id=\'{{"name":"policies","page":"{key}","type":"view-field"}}\']')
    page.click(f"#{key}-start")
    page.wait_for_function(  # a few ticks
        "c => { const e = document.querySelector(c); return e && e.innerText !== 't = 0.0 h'"
        " && parseFloat(e.innerText.slice(4).replace(/,/g, '')) >= 3; }",
        arg=clock,
    )
    page.click(f"#{key}-pause")
    page.wait_for_function(
        "k => document.querySelector('#' + k + '-clock .run-state').innerText === 'paused'",
        arg=key,
    )
    first_graph = {
        "market": "market-market_share_pct-graph",
        "vqops": "vqops-revenue",
        "libra": "libra-fulfilled",
        "varq": "varq-queue",
    }[key]
    page.wait_for_function(
        "g => { const e = document.querySelector('#' + g + ' .js-plotly-plot');"
        " return e && e.data && e.data.length > 0; }",
        arg=first_graph,
    )
    page.screenshot(path=str(shots / f"{key}.png"), full_page=True)
    watch.check()


def test_pages_are_reached_from_the_navigation_bar(server, browser):
    url, answers = server
    page = browser.new_page()
    watch = Watch(page, answers)
    page.goto(url + "/")
    page.wait_for_selector("#sim-time")
    for key, name in (("varq", "VARQ"), ("libra", "Libra"), ("market", "Competing market")):
        page.click(f"nav >> text={name}")
        page.wait_for_selector(f"#{key}-clock .sim-time")
        assert page.url.endswith(f"/{key}")
    page.click("nav >> text=Live run")
    page.wait_for_selector("#sim-time")
    watch.check()


def test_a_copy_of_a_tab_has_its_own_runs(server, browser):
    """A tab opened from another (Duplicate tab, window.open) copies its sessionStorage, and so
    its session id: it takes a new one, and resetting it leaves the first tab's run alone."""
    url, answers = server
    page = browser.new_page()
    watch = Watch(page, answers)
    page.goto(url + "/")
    page.wait_for_selector(_id("param", "mean_interarrival"))
    page.click("#step")
    page.wait_for_function("() => document.querySelector('#sim-time').innerText !== 't = 0.00 h'")
    stepped, sid = _sim_time(page), page.evaluate("sessionStorage.getItem('sid')")
    with browser.expect_page() as opened:
        page.evaluate("window.open(location.href)")
    copy = opened.value
    copy.wait_for_selector(_id("param", "mean_interarrival"))
    copy.wait_for_function("s => sessionStorage.getItem('sid') !== s", arg=sid)
    assert _sim_time(copy) == "t = 0.00 h"
    copy.click("#step")
    copy.wait_for_function("() => document.querySelector('#sim-time').innerText !== 't = 0.00 h'")
    copy.click("#reset")
    copy.wait_for_function("() => document.querySelector('#sim-time').innerText === 't = 0.00 h'")
    page.reload()  # the first tab keeps its id and its run
    page.wait_for_selector("#sim-time")
    page.wait_for_function("t => document.querySelector('#sim-time').innerText === t", arg=stepped)
    assert page.evaluate("sessionStorage.getItem('sid')") == sid
    watch.check()


def test_the_live_page_in_chromium(server, browser, shots, tmp_path):
    url, answers = server
    page = browser.new_page()
    watch = Watch(page, answers)
    try:
        _walk_through(browser, page, url, shots, tmp_path)
    except sync_api.Error as exc:  # say where the page was, and keep a picture of it
        page.screenshot(path=str(shots / "live-failure.png"), full_page=True)
        pytest.fail(
            f"{str(exc).splitlines()[0]}\n"
            f"status: {page.inner_text('#status')!r}, "
            f"controls: {page.inner_text('#control-msg')!r}, "
            f"HTTP answers: {sorted(set(answers))[:20]}, errors: {watch.errors}"
        )
    watch.check()


def _walk_through(browser, page, url: str, shots: Path, tmp_path: Path) -> None:
    page.goto(url + "/")
    page.wait_for_selector("#sim-time")
    assert _sim_time(page) == "t = 0.00 h"
    page.wait_for_selector(_id("param", "mean_interarrival"))

    # start: the headline chart fills, incrementally
    page.click("#start")
    _wait_points(page, 5)
    assert _traces(page, "rate-graph") == 8  # one line per variant of the default scenario
    page.click("#pause")
    page.wait_for_function("() => document.querySelector('#run-state').innerText === 'paused'")

    # step: the next event instant
    before = _sim_time(page)
    points = _points(page)
    page.click("#step")
    page.wait_for_function("t => document.querySelector('#sim-time').innerText !== t", arg=before)
    _wait_points(page, points + 1)
    stepped = _sim_time(page)

    # the Gantt chart's bars have hover details
    bar = page.locator("#gantt-graph .trace.bars .point path").first
    bar.scroll_into_view_if_needed()
    box = bar.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x - 2, y)
    page.mouse.move(x, y)
    page.wait_for_selector("#gantt-graph .hoverlayer .hovertext")
    hover = page.text_content("#gantt-graph .hoverlayer")
    for part in ("job ", "shape: ", "processors", "start ", "end ", "expected profit"):
        assert part in hover, hover
    page.screenshot(path=str(shots / "live.png"), full_page=True)

    # a reload shows the run in progress
    points = _points(page)
    page.reload()
    page.wait_for_selector("#sim-time")
    page.wait_for_function("t => document.querySelector('#sim-time').innerText === t", arg=stepped)
    _wait_points(page, points)
    assert _points(page) == points

    # another tab has its own model
    other = browser.new_page()
    other.goto(url + "/")
    other.wait_for_selector("#sim-time")
    assert _sim_time(other) == "t = 0.00 h"
    other.close()
    assert _sim_time(page) == stepped

    # an invalid value: a message under its field, and reset refuses it
    field = page.locator("input" + _id("param", "mean_interarrival"))
    field.fill("-1")
    message = page.locator(_id("param-msg", "mean_interarrival"))
    sync_api.expect(message).to_have_text(
        "clients.0.workload.mean_interarrival: Input should be greater than 0"
    )
    page.click("#reset")
    sync_api.expect(page.locator("#control-msg")).to_contain_text("Not reset:")
    assert _sim_time(page) == stepped

    # a valid value again: reset starts afresh
    field.fill("0.15")
    sync_api.expect(message).to_have_text("")
    page.click("#reset")
    page.wait_for_function("() => document.querySelector('#sim-time').innerText === 't = 0.00 h'")
    _wait_points(page, 1)
    assert page.inner_text("#control-msg") == ""

    # a scenario loaded by name: the tab shows it at once, as written (its three providers)
    page.click("#start")
    page.wait_for_function("() => document.querySelector('#sim-time').innerText !== 't = 0.00 h'")
    page.fill("#scenario-path", "market/competition")
    page.click("#load-path")
    page.wait_for_function(
        "() => { const e = document.querySelector('#rate-graph .js-plotly-plot');"
        " return e && e.data && e.data.length === 3; }"
    )
    names = page.evaluate(
        "() => document.querySelector('#rate-graph .js-plotly-plot').data.map(t => t.name)"
    )
    assert names == ["plus", "opp", "urgent"]
    assert _sim_time(page) == "t = 0.00 h" and page.inner_text("#run-state") == "paused"

    # an upload whose trace is a file outside the served folders: refused, nothing told
    secret = tmp_path / "secret.swf"
    secret.write_text(f"{SECRET} 1 2 3\n")
    evil = tmp_path / "evil.yaml"
    evil.write_text(
        "name: evil\nresource_providers: [{name: rp, capacity: 4, price: 1.0}]\n"
        "service_providers: [{name: sp}]\n"
        f"clients: [{{name: c, workload: {{kind: swf, trace: '{secret}'}}}}]\n"
    )
    page.set_input_files("#scenario-upload input[type=file]", str(evil))
    sync_api.expect(page.locator("#path-msg")).to_contain_text("is not a file of the trace")
    said = page.inner_text("#path-msg")
    assert SECRET not in said and "fields" not in said
    assert said == (
        f"evil.yaml (uploaded): clients.0.workload.trace: '{secret}' is not a file of the "
        f"trace or scenario folders this dashboard serves"
    )
