"""Scenario files: one-line errors naming the file and field; overrides; variants."""

from __future__ import annotations

import pytest

from market.scenario import Scenario, ScenarioError, load, parse_overrides, validate
from tests.conftest import DEFAULT_SCENARIO


def write(tmp_path, text):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


def test_default_scenario_matches_table_1():
    s = load(DEFAULT_SCENARIO)
    w = s.clients[0].workload
    assert (w.jobs, w.mean_interarrival, w.mean_work, w.shapes) == (200, 0.15, 7.0, (1, 2, 3, 4, 5))
    assert (w.low_value_mean, w.value_skew, w.shallow_decay_mean, w.decay_skew) == (48, 3, 3.7, 5)
    assert (w.penalty_bound, w.serial_fraction, w.high_value_share) == (-48, 0.2, 0.2)
    assert (s.resource_providers[0].capacity, s.resource_providers[0].price) == (10, 3.0)
    assert s.service_providers[0].scheduler.name == "first_profit"
    assert [label for label, _ in s.expand()] == list(s.variants)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: [unclosed", "s.yaml: line 1"),
        ("- just a list", "s.yaml: a scenario must be a mapping"),
        ("seed: -1", "s.yaml: seed: Input should be greater than or equal to 0"),
        ("colour: red", "s.yaml: colour: unknown field"),
        ("clients: [{workload: {kind: trace}}]", "s.yaml: clients.0.workload.kind"),
        ("clients: [{workload: {shapes: [3, 1]}}]", "s.yaml: clients.0.workload.shapes"),
        ("service_providers: [{scheduler: {name: first_profit, speed: 2}}]",
         "s.yaml: service_providers.0.scheduler: scheduler 'first_profit' has no parameter"),
        ("service_providers: [{resource_provider: nowhere}]",
         "service_providers.0.resource_provider: no resource provider named 'nowhere'"),
        ("resource_providers: [{name: a}, {name: a}]", "name 'a' is used twice"),
        ("clients: [{providers: [ghost]}]", "clients.0.providers: no service provider named"),
        ("clients: [{offer_rule: auction}]", "clients.0.offer_rule"),
        ("variants: {x: {resource_providers.0.price: -1}}",
         "variants.x: resource_providers.0.price: Input should be greater than or equal to 0"),
    ],
)  # fmt: skip
def test_bad_files_get_one_line_errors_naming_file_and_field(tmp_path, text, message):
    with pytest.raises(ScenarioError) as info:
        load(write(tmp_path, text))
    text = str(info.value)
    assert "\n" not in text
    assert message in text


def test_overrides_are_read_as_yaml_and_revalidated():
    s = Scenario()
    t = s.with_overrides(parse_overrides(["resource_providers.0.price=4.5", "clients.0.name=bob"]))
    assert t.resource_providers[0].price == 4.5 and t.clients[0].name == "bob"
    assert s.resource_providers[0].price == 3.0, "the original is unchanged"
    with pytest.raises(ScenarioError, match=r"resource_providers\.0\.capacity"):
        s.with_overrides({"resource_providers.0.capacity": 0})


def test_policy_short_and_long_forms():
    s = validate({"service_providers": [{"scheduler": {"name": "first_profit"}}]})
    assert s.service_providers[0].scheduler.name == "first_profit"
    assert s.service_providers[0].scheduler.label() == "first_profit"


def test_scenario_name_defaults_to_the_file_name(tmp_path):
    assert load(write(tmp_path, "seed: 3")).name == "s"
