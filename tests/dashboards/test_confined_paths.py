"""Paths inside a scenario the dashboard runs resolve only inside the folders it serves, and a
refusal says nothing of the file (dashboards/confined_paths.py)."""

from __future__ import annotations

import base64
import os

import pytest
import yaml

from dashboards import served_scenarios
from dashboards.confined_paths import (
    check_paths,
    confine,
    find_served,
    hint,
    is_path_key,
    path_fields,
)
from dashboards.served_scenarios import load_scenario
from dashboards.session import Session
from dashboards.setup import Setup, SetupError, policy_options
from market.inputs.scenario import Scenario, ScenarioError, validate
from tests.dashboards.conftest import SID, served_swf

SECRET = "hunter2-secret-token"


def market(trace: str, **workload) -> dict:
    return {
        "name": "replay",
        "seed": 1,
        "resource_providers": [{"name": "rp", "capacity": 16, "price": 3.0}],
        "service_providers": [{"name": "sp", "scheduler": "first_profit"}],
        "clients": [{"name": "users", "workload": {"kind": "swf", "trace": trace, **workload}}],
    }


def upload(data: dict, name: str = "evil.yaml") -> str:
    """The upload key of ``data`` as a scenario file sent by a browser."""
    encoded = base64.b64encode(yaml.safe_dump(data).encode()).decode()
    return served_scenarios.add_upload(name, f"data:application/x-yaml;base64,{encoded}")


@pytest.fixture
def secret(tmp_path):
    """A file outside the served folders that holds a secret, and a link to it from inside."""
    path = tmp_path / "secret.swf"
    path.write_text(f"{SECRET} 1 2 3\n")
    return path


def one_run(key: str) -> Setup:
    """A set-up of the scenario ``key`` with its first policy."""
    return Setup(key, tuple(policy_options(load_scenario(key)))[:1])


def refusal(key: str) -> str:
    """Why a tab cannot run the upload ``key`` (the message the page shows)."""
    with pytest.raises(SetupError) as info:
        Session(SID, one_run(key))
    return str(info.value)


def test_a_trace_outside_the_served_folders_is_refused_without_a_word_about_it(secret, tmp_path):
    link = tmp_path.parent / f"{tmp_path.name}-link.swf"
    served = served_swf(n=20)
    inside_link = served.parent / f"link-{tmp_path.name}.swf"
    os.symlink(secret, inside_link)  # inside the served folder, leading out
    names = {
        "a secret file": str(secret),
        "/etc/passwd": "/etc/passwd",
        "/etc/shadow": "/etc/shadow",
        "no such file": str(tmp_path / "missing.swf"),
        "a link leading out": inside_link.name,
        "dot-dot out of a served folder": f"../{secret.parent.name}/{secret.name}",
        "a folder": str(tmp_path),
        "an absolute path through a served folder": f"{served.parent}/../{secret.parent.name}"
        f"/{secret.name}",
    }
    messages = {}
    for what, name in names.items():
        message = refusal(upload(market(name), f"{what}.yaml".replace("/", "_")))
        assert SECRET not in message and "18 fields" not in message, what
        assert message == (
            f"clients.0.workload.trace: {name!r} is not a file of the trace or scenario folders "
            f"this dashboard serves{hint(name)}"
        ), what
        assert bool(hint(name)) == (what == "a link leading out")  # a bare name: where to get it
        messages[what] = message.replace(repr(name), "NAME").replace(hint(name), "")
    assert len(set(messages.values())) == 1  # the same words whatever the file is
    assert not link.exists()


def test_the_refusal_is_the_same_before_any_run_and_for_sites_and_variants(secret):
    site = {
        "name": "varq",
        "service_providers": [],
        "clients": [],
        "batch_sites": [{"name": "site", "trace": str(secret)}],
    }
    with pytest.raises(ScenarioError, match=r"^up: batch_sites\.0\.trace: '.*secret\.swf' is not"):
        check_paths(validate(site), "up")
    variant = market(served_swf(n=10).name)
    variant["variants"] = {"sneaky": {"clients.0.workload.trace": "/etc/passwd"}}
    with pytest.raises(ScenarioError, match=r"^up: sneaky: clients\.0\.workload\.trace: '/etc/pa"):
        check_paths(validate(variant), "up")


def test_a_served_trace_runs_by_name_and_the_model_gets_its_real_path():
    served = served_swf(n=30)
    scenario = validate(market(served.name, first_jobs=10))
    confined = confine(scenario)
    assert confined.clients[0].workload.trace == str(served.resolve())
    session = Session(SID, one_run(upload(market(served.name, first_jobs=10))))
    session.advance_to(1e6)
    assert session.finished
    assert find_served(served.name[:-4] + ".swf") == served.resolve()


@pytest.mark.parametrize(
    "name", ["", "\x00/etc/passwd", "a\nb", "\ud800.swf", "x" * 5000, "~root/.profile"]
)
def test_malformed_names_are_simply_not_served(name):
    assert find_served(name) is None


def test_every_path_field_of_the_schema_is_confined():
    # A string field whose description says it names a file or path must be one the walk
    # finds, so that a new path-like field cannot slip past the confinement.
    schema = Scenario.model_json_schema()
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, prop in node.get("properties", {}).items():
                text = prop.get("description", "").lower()
                kinds = [prop, *prop.get("anyOf", [])]
                string = any(kind.get("type") == "string" for kind in kinds)
                if string and ("file" in text or "path" in text):
                    found.append(key)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert found and all(is_path_key(key) for key in found), found
    data = {"a": [{"trace": "x"}, {"name": "y", "site_file": "z"}], "path": 3}
    assert list(path_fields(data)) == [("a.0.trace", "x"), ("a.1.site_file", "z")]
