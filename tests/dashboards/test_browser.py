"""The dashboard in a real browser: headless Chromium (Debian's ``chromium`` package) driven by
Playwright for Python, against the app served on a free loopback port.

Starts a run and waits until the profit-rate chart has points, pauses, steps, hovers over a job
of the Gantt chart, reloads (the run in progress comes back), opens a second tab (its own
model), types an invalid value (its message shows under the field and the server keeps
running), resets, and saves a screenshot to ``tests/dashboards/artifacts/dashboard.png``. Skips
where Chromium or Playwright is missing. ``playwright install`` is never needed: the system
Chromium is used.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).with_name("artifacts")
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

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"no Chromium at {CHROMIUM}: install Debian's chromium package to run the browser test",
)
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright for Python is not installed (pip install '.[dev]')"
)


@pytest.fixture
def server():
    """The app on 127.0.0.1 and a free port (bound as port 0), in a thread; its URL and the
    HTTP statuses it answered."""
    from werkzeug.serving import make_server

    from dashboards.app import create_app

    app = create_app()
    statuses: list[int] = []

    @app.server.after_request
    def _record(response):
        statuses.append(response.status_code)
        return response

    httpd = make_server("127.0.0.1", 0, app.server, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_port}/"
    for _ in range(100):
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            threading.Event().wait(0.1)
    else:  # pragma: no cover
        pytest.fail(f"the dashboard did not answer at {url}")
    yield url, statuses
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
        context.set_default_timeout(20_000)
        yield context
        context.close()


def _id(kind: str, name: str) -> str:
    """The CSS selector of a pattern-matching component id as Dash renders it."""
    return "[id='" + json.dumps({"name": name, "type": kind}, separators=(",", ":")) + "']"


def _points(page) -> int:
    return page.evaluate(
        "() => { const g = document.querySelector('#rate-graph .js-plotly-plot');"
        " return g && g.data && g.data.length ? g.data[0].x.length : 0; }"
    )


def _wait_points(page, at_least: int) -> None:
    page.wait_for_function(
        "n => { const g = document.querySelector('#rate-graph .js-plotly-plot');"
        " return g && g.data && g.data.length && g.data[0].x.length >= n; }",
        arg=at_least,
    )


def _sim_time(page) -> str:
    return page.inner_text("#sim-time")


def test_dashboard_in_chromium(server, browser):
    url, statuses = server
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        _walk_through(browser, page, url)
    except sync_api.Error as exc:  # say where the page was, and keep a picture of it
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "dashboard-failure.png"), full_page=True)
        pytest.fail(
            f"{str(exc).splitlines()[0]}\n"
            f"status: {page.inner_text('#status')!r}, "
            f"controls: {page.inner_text('#control-msg')!r}, "
            f"HTTP statuses: {sorted(set(statuses))}, page errors: {errors}"
        )
    assert not errors, errors
    assert statuses and all(code < 500 for code in statuses)


def _walk_through(browser, page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#sim-time")
    assert _sim_time(page) == "t = 0.00 h"
    page.wait_for_selector(_id("param", "mean_interarrival"))

    # start: the headline chart fills, incrementally
    page.click("#start")
    _wait_points(page, 5)
    assert (
        page.evaluate("() => document.querySelector('#rate-graph .js-plotly-plot').data.length")
        == 8
    )  # one line per policy of the default scenario
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

    # a reload shows the run in progress
    points = _points(page)
    page.reload()
    page.wait_for_selector("#sim-time")
    page.wait_for_function("t => document.querySelector('#sim-time').innerText === t", arg=stepped)
    _wait_points(page, points)
    assert _points(page) == points

    # another tab has its own model
    other = browser.new_page()
    other.goto(url)
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

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard.png"), full_page=True)

    # a valid value again: reset starts afresh
    field.fill("0.15")
    sync_api.expect(message).to_have_text("")
    page.click("#reset")
    page.wait_for_function("() => document.querySelector('#sim-time').innerText === 't = 0.00 h'")
    page.wait_for_function(
        "() => document.querySelector('#rate-graph .js-plotly-plot').data[0].x.length === 1"
    )
    assert page.inner_text("#control-msg") == ""
