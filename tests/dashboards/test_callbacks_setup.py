"""The live page's set-up panel, called directly (no browser): a field's check shows the
scenario's own message, a scenario loads by name, path or upload, and the fields show the
tab's values for the chosen scenario."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from dash import no_update

from dashboards import served_scenarios
from tests.dashboards.conftest import DEFAULT, SID, control, panel

HINT = " (choose one from the list, or upload it)"


# -- set-up panel -----------------------------------------------------------------------------


def test_field_check_shows_the_scenarios_message(callbacks):
    field = {"type": "param", "name": "mean_interarrival"}
    assert callbacks.check_field(0.3, field, DEFAULT) == ""
    assert callbacks.check_field(-1, field, DEFAULT) == (
        "clients.0.workload.mean_interarrival: Input should be greater than 0"
    )
    assert callbacks.check_field(None, field, DEFAULT).endswith("enter a number")
    capacity = {"type": "param", "name": "capacity"}
    assert "valid integer" in callbacks.check_field(2.5, capacity, DEFAULT)
    assert callbacks.check_field(1, {"type": "param", "name": "nope"}, DEFAULT) == ""
    message = callbacks.check_field(1, field, "/no/such.yaml")
    assert message.endswith(
        "not a file of the scenario folders (choose one from the list, or upload it)"
    )
    assert callbacks.check_policies([]) == "tick at least one policy"
    assert callbacks.check_policies(["LJF"]) == ""


def test_page_load_shows_the_tabs_scenario_and_speed(callbacks):
    control(callbacks, "speed", speed=5)
    options, value, message, speed = callbacks.choose_scenario("sid", SID, 0, None, None)
    assert value == DEFAULT and speed == 5 and message == ""
    assert {"label": "profit/default.yaml", "value": DEFAULT} in options


def test_load_a_scenario_by_path_or_upload(callbacks, tmp_path):
    options = [{"label": "profit/default.yaml", "value": DEFAULT}]
    outside = tmp_path / "good.yaml"
    outside.write_text(Path(DEFAULT).read_text())
    result = callbacks.choose_scenario("load-path", SID, 1, str(outside), options)
    assert result[:2] == (no_update, no_update)
    assert result[2] == (
        f"{outside}: not a file of the scenario folders (choose one from the list, or upload it)"
    )
    result = callbacks.choose_scenario("load-path", SID, 1, "  ", options)
    assert result[2] == "enter the path of a scenario file"

    # a name in a scenario folder loads
    options_after, value, message, _ = callbacks.choose_scenario(
        "load-path", SID, 2, "profit/default", options
    )
    assert (value, message) == (DEFAULT, "") and options_after == options

    # an upload loads, and a bad one says why in one line
    bad = (
        "data:application/x-yaml;base64,"
        + base64.b64encode(b"resource_providers:\n  - capacity: 0\n").decode()
    )
    result = callbacks.choose_scenario("scenario-upload", SID, 2, None, options, bad, "bad.yaml")
    assert result[:2] == (no_update, no_update)
    assert result[2].endswith(
        "/bad.yaml: resource_providers.0.capacity: Input should be greater than or equal to 1"
    )
    good = "data:;base64," + base64.b64encode(outside.read_bytes()).decode()
    options_after, value, message, _ = callbacks.choose_scenario(
        "scenario-upload", SID, 3, None, options, good, "good.yaml"
    )
    assert value.startswith("upload:") and value.endswith("/good.yaml") and message == ""
    assert options_after[-1] == {"label": "good.yaml (uploaded)", "value": value}


def test_setup_fields_show_the_tabs_values_for_its_scenario(callbacks, tmp_path):
    control(callbacks, "reset", **panel(("LJF",), mode="market", price=4.5))
    fields, message = callbacks.render_setup(DEFAULT, SID)
    assert message == ""
    by_id = {}

    def walk(c):
        if isinstance(c, list | tuple):
            for x in c:
                walk(x)
        elif c is not None and not isinstance(c, str | int | float):
            cid = getattr(c, "id", None)
            if cid is not None:
                by_id[json.dumps(cid, sort_keys=True)] = c
            walk(getattr(c, "children", None))

    walk(fields)

    def field(kind, name):
        return by_id[json.dumps({"name": name, "type": kind}, sort_keys=True)]

    assert field("setup", "mode").value == "market"
    assert field("setup", "policies").value == ["LJF"]
    assert field("param", "price").value == 4.5
    assert not field("param", "sigma").disabled and not field("param", "risk_bound").disabled
    assert field("param", "sigma").value == 0.0

    other = tmp_path / "other.yaml"
    other.write_text(Path(DEFAULT).read_text())
    served_scenarios.allow(other)  # as `gridmarket dashboard other.yaml` does
    fields, message = callbacks.render_setup(str(other), SID)  # another file: its own values
    assert message == ""
    by_id.clear()
    walk(fields)
    assert field("param", "price").value == 3.0
    assert field("setup", "mode").value == "parallel"

    fields, message = callbacks.render_setup("/no/such.yaml", SID)
    assert fields == [] and message.endswith("not a file of the scenario folders" + HINT)


def test_the_fields_show_the_operators_set_and_reset_keeps_it(tmp_path):
    """``gridmarket dashboard --set ...``: the fields show the values the tab runs (not the
    file's), so Reset with them runs the same; a field is checked against them."""
    from dashboards.app import create_app
    from dashboards.callbacks import Callbacks

    overrides = {
        "clients.0.workload.jobs": 40,
        "resource_providers.0.price": 5.0,
        "sample_interval": 0.001,
    }
    callbacks: Callbacks = create_app(overrides=overrides).gridmarket_callbacks
    fields, message = callbacks.render_setup(DEFAULT, SID)
    shown = {}

    def walk(c):
        if isinstance(c, list | tuple):
            for x in c:
                walk(x)
        elif hasattr(c, "to_plotly_json"):
            if isinstance(getattr(c, "id", None), dict) and c.id.get("type") == "param":
                shown[c.id["name"]] = c.value
            walk(getattr(c, "children", None))

    walk(fields)
    assert message == "" and (shown["jobs"], shown["price"]) == (40, 5.0)
    with callbacks.registry.use(SID) as session:
        assert session.runs[0].model.spec.clients[0].workload.jobs == 40
    control(callbacks, "reset", **panel(("LJF",), **shown))
    with callbacks.registry.use(SID) as session:
        spec = session.runs[0].model.spec
        assert spec.clients[0].workload.jobs == 40 and spec.resource_providers[0].price == 5.0
    # 200 jobs every 50 h: 10,000 h, sampled every 0.001 h (the --set) is too many samples
    field = {"type": "param", "name": "mean_interarrival"}
    assert "sample_interval: 0.001 h takes more" in callbacks.check_field(50, field, DEFAULT)
