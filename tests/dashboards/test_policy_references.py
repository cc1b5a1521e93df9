"""An upload may not make the server import a module: a policy named ``module:Class`` in an
uploaded scenario is refused before the scenario is validated (dashboards/policy_references.py);
a scenario file of the served folders (the operator's) may name one."""

from __future__ import annotations

import base64
import sys

import pytest
import yaml

from dashboards import served_scenarios
from dashboards.policy_references import policy_names
from market.inputs.scenario import ScenarioError

PROBE = """
import pathlib, os
pathlib.Path(os.environ["GM_PROBE_MARKER"]).write_text("imported")
from agents.policies import SCHEDULERS
class Sched(SCHEDULERS._classes["fcfs"]):
    pass
"""


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """A module that leaves a marker file when it is imported."""
    (tmp_path / "gm_probe_mod.py").write_text(PROBE)
    marker = tmp_path / "imported"
    monkeypatch.setenv("GM_PROBE_MARKER", str(marker))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "gm_probe_mod", raising=False)
    return marker


def market(**sp) -> dict:
    return {
        "name": "mine",
        "resource_providers": [{"name": "rp", "capacity": 4, "price": 1.0}],
        "service_providers": [{"name": "sp", **sp}],
        "clients": [{"name": "c", "workload": {"jobs": 10}}],
    }


def upload(data: dict) -> str:
    text = yaml.safe_dump(data).encode()
    return served_scenarios.add_upload(
        "mine.yaml", "data:;base64," + base64.b64encode(text).decode()
    )


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (market(scheduler="gm_probe_mod:Sched"), "service_providers.0.scheduler"),
        (market(admission={"name": "gm_probe_mod:Sched"}), "service_providers.0.admission.name"),
        (
            market() | {"variants": {"v": {"service_providers.0.scheduler": "gm_probe_mod:Sched"}}},
            "variants.v.service_providers.0.scheduler",
        ),
        (
            market() | {"variants": {"v": {"service_providers.0.pricing.name": "gm_probe_mod:X"}}},
            "variants.v.service_providers.0.pricing.name",
        ),
    ],
)
def test_an_uploaded_module_reference_is_refused_before_any_import(probe, data, where):
    key = upload(data)
    with pytest.raises(ScenarioError) as info:
        served_scenarios.load_scenario(key)
    assert str(info.value) == (
        f"{key}: {where}: a policy of your own ('module:Class') runs from a scenario file of the "
        "served folders, not from an upload"
    )
    assert not probe.exists() and "gm_probe_mod" not in sys.modules


def test_registered_policies_upload_and_the_operators_file_may_name_its_own(probe, tmp_path):
    assert served_scenarios.load_scenario(upload(market(scheduler="ljf"))).name == "mine"
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(market(scheduler="gm_probe_mod:Sched")))
    served_scenarios.allow(path)  # as `gridmarket dashboard --scenario mine.yaml` does
    scenario = served_scenarios.load_scenario(str(path))
    assert scenario.service_providers[0].scheduler.name == "gm_probe_mod:Sched"
    assert probe.exists()


def test_the_walk_finds_every_policy_name():
    data = {
        "service_providers": [{"scheduler": "a", "admission": {"name": "b", "x": "c:d"}}],
        "variants": {"v": {"service_providers.0.cluster": "e", "name": "f:g"}},
    }
    assert list(policy_names(data)) == [
        ("service_providers.0.scheduler", "a"),
        ("service_providers.0.admission.name", "b"),
        ("variants.v.service_providers.0.cluster", "e"),
    ]
