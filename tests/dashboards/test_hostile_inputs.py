"""Malformed input sent to the dashboard over HTTP, as a browser (or anyone) can send it: every
Load-box value and upload ends in a one-line message in the page, never an HTTP 500, on every
page; a scenario that names a file outside the served folders is refused without a word about
the file."""

from __future__ import annotations

import base64
import json

import pytest

from dashboards.app import PAGES, create_app
from tests.dashboards.conftest import SID

SECRET = "hunter2-secret-token"

DEEP = "a: " + "[" * 5000 + "]" * 5000 + "\n"
BAD_SCENARIOS = {
    "huge integer": "seed: " + "9" * 5000 + "\n",
    "NUL byte": "name: a\x00b\n",
    "control character": "name: a\x07b\n",
    "deeply nested": DEEP,
    "not a mapping": "- 1\n- 2\n",
    "billion laughs": "a: &a [1,1,1,1,1,1,1,1,1,1]\n"
    + "".join(f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
              for p, c in zip("abcdefg", "bcdefgh", strict=True)),
}  # fmt: skip
BAD_PATHS = {
    "NUL byte": "profit/\x00default.yaml",
    "lone surrogate": "profit/\ud800.yaml",
    "control character": "profit/\x1b[31mdefault",
    "over-long path": "a/" * 5000,
    "a number": 12345,
    "a list": ["profit/default.yaml"],
    "outside": "/etc/passwd",
    "up and out": "../../../../etc/shadow",
}


@pytest.fixture(scope="module")
def client():
    app = create_app()
    return app, app.server.test_client()


CHANGED = {"load-path": "n_clicks", "scenario-path": "n_submit", "scenario-upload": "contents"}


def post(client, prefix: str, trigger: str, value) -> tuple[int, dict]:
    """Call the scenario chooser's callback of the page whose ids start with ``prefix`` as the
    browser does when ``trigger`` (``load-path``, Enter in ``scenario-path`` or
    ``scenario-upload``) changes."""
    app, http = client
    key = next(k for k in app.callback_map if f"..{prefix}path-msg.children.." in k)
    spec = app.callback_map[key]
    values = {
        ("sid", "data"): SID,
        (f"{prefix}load-path", "n_clicks"): 1,
        (f"{prefix}scenario-path", "n_submit"): None,
        (f"{prefix}scenario-upload", "contents"): value if trigger == "scenario-upload" else None,
        (f"{prefix}scenario-path", "value"): None if trigger == "scenario-upload" else value,
        (f"{prefix}scenario-upload", "filename"): "evil\x00\ud800name.yaml",
        (f"{prefix}scenario", "options"): [],
    }
    body = {
        "output": key,
        "outputs": [
            {"id": part.split(".")[0], "property": part.split(".")[1]}
            for part in key.strip(".").split("...")
        ],
        "inputs": [{**d, "value": values[d["id"], d["property"]]} for d in spec["inputs"]],
        "state": [{**d, "value": values[d["id"], d["property"]]} for d in spec["state"]],
        "changedPropIds": [f"{prefix}{trigger}.{CHANGED[trigger]}"],
    }
    response = http.post(
        "/_dash-update-component",
        data=json.dumps(body),  # (json.dumps writes a lone surrogate as \\ud800, as browsers)
        content_type="application/json",
    )
    return response.status_code, response.get_json(silent=True) or {}


def message(payload: dict, prefix: str) -> str:
    return payload["response"][f"{prefix}path-msg"]["children"]


def upload(text: str) -> str:
    return "data:application/x-yaml;base64," + base64.b64encode(text.encode()).decode()


PREFIXES = [("" if page.key == "live" else f"{page.key}-") for page in PAGES]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("what", list(BAD_SCENARIOS))
def test_a_malformed_upload_is_one_line_in_the_page(client, prefix, what):
    status, payload = post(client, prefix, "scenario-upload", upload(BAD_SCENARIOS[what]))
    assert status == 200, what
    text = message(payload, prefix)
    assert text and "\n" not in text and len(text) < 400, (what, text)
    assert "Traceback" not in text and "Something went wrong" not in text, text


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("what", list(BAD_PATHS))
def test_a_malformed_load_box_value_is_one_line_in_the_page(client, prefix, what):
    status, payload = post(client, prefix, "load-path", BAD_PATHS[what])
    assert status == 200, what
    text = message(payload, prefix)
    assert text and "\n" not in text and len(text) < 400 and "root:" not in text, (what, text)


@pytest.mark.parametrize("contents", [None, 12, ["a"], "data:;base64,***", "no comma", ""])
def test_a_malformed_upload_envelope_is_one_line(client, contents):
    status, payload = post(client, "", "scenario-upload", contents)
    assert status == 200
    text = message(payload, "")
    assert text and "\n" not in text


def test_an_uploaded_trace_outside_the_served_folders_is_refused_saying_nothing(client, tmp_path):
    secret = tmp_path / "secret.swf"
    secret.write_text(f"{SECRET} 1 2 3\n")
    answers = set()
    for trace in (str(secret), "/etc/passwd", str(tmp_path / "missing.swf")):
        scenario = (
            "name: evil\nresource_providers: [{name: rp, capacity: 4, price: 1.0}]\n"
            "service_providers: [{name: sp}]\n"
            f"clients: [{{name: c, workload: {{kind: swf, trace: '{trace}'}}}}]\n"
        )
        status, payload = post(client, "", "scenario-upload", upload(scenario))
        assert status == 200
        text = message(payload, "")
        assert SECRET not in text and "fields" not in text and "no such" not in text
        answers.add(text.replace(trace, "NAME"))
    assert len(answers) == 1, answers  # the same words whether it exists or not
    assert "is not a file of the trace or scenario folders this dashboard serves" in answers.pop()


def refuse(constant: str):
    raise AssertionError(f"{constant} is not JSON: a browser cannot read it")


def test_values_near_the_float_limit_run_or_stop_in_one_line(client):
    from plotly.io.json import to_json_plotly

    app, _ = client
    callbacks = app.gridmarket_callbacks

    def chosen(workload: str, price: str) -> str:
        """Upload a scenario; its one-line refusal, or "" once the tab is reset to it."""
        text = (
            f"name: huge-values\nresource_providers: [{{name: rp, capacity: 4, price: {price}}}]"
            f"\nservice_providers: [{{name: sp}}]\nclients: [{{name: c, workload: {workload}}}]\n"
        )
        status, payload = post(client, "", "scenario-upload", upload(text))
        assert status == 200
        if "scenario" not in payload["response"]:
            return message(payload, "")
        key = payload["response"]["scenario"]["value"]
        return callbacks.control("scenario", SID, 2, None, key, [], [], [], [], 0)[1]

    said = chosen("{jobs: 30, value_skew: 1.0e+308}", "1.0")
    assert said.endswith(
        "clients.0.workload.value_skew: 1e+308 is larger than 1e+12, the most a number may be"
    )
    said = chosen("{jobs: 30}", "1.0e+308")
    assert said.endswith(
        "resource_providers.0.price: 1e+308 is larger than 1e+12, the most a number may be"
    )
    assert chosen("{jobs: 30, value_skew: 1.0e+12}", "1.0e+12") == ""  # the largest run
    with callbacks.registry.use(SID) as session:
        session.set_speed(100)
        session.play()
    for n in range(6):  # a few ticks, as the browser asks
        out = callbacks.update(SID, None, {"n": n}, advance=True)
        json.loads(to_json_plotly(out), parse_constant=refuse)  # valid JSON: no NaN, Infinity
    assert "Traceback" not in str(out["status"])


@pytest.mark.parametrize("prefix", ["", "market-"])
def test_enter_in_the_load_box_loads_as_the_button_does(client, prefix):
    status, payload = post(client, prefix, "scenario-path", "market/entry")
    assert status == 200
    assert payload["response"][f"{prefix}scenario"]["value"].endswith("market/entry.yaml")
    assert message(payload, prefix) == ""
    status, payload = post(client, prefix, "scenario-path", "nosuch")
    assert status == 200 and message(payload, prefix) == "nosuch: no such scenario file"
