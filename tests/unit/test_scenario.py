"""Scenario files: one-line errors naming the file and field; overrides; variants."""

from __future__ import annotations

import os

import pytest

from market.inputs.scenario import Scenario, ScenarioError, load, parse_overrides, validate
from market.inputs.scenario_files import MAX_BYTES
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
        ("resource_providers: [{name: a}, {name: a}]",
         "s.yaml: resource_providers.1.name: 'a' is also the name of resource_providers.0"),
        ("clients: [{providers: [ghost]}]", "clients.0.providers: no service provider named"),
        ("clients: [{offer_rule: auction}]", "clients.0.offer_rule"),
        ("variants: {x: {resource_providers.0.price: -1}}",
         "s.yaml: variants.x: resource_providers.0.price: Input should be greater than or equal "
         "to 0"),
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


# -- every number finite, impossible combinations, bounded runs, files ---------------
@pytest.mark.parametrize(
    ("text", "message"),
    [
        # non-finite numbers, wherever they are
        ("resource_providers: [{price: .inf}]",
         "resource_providers.0.price: Input should be a finite"),
        ("clients: [{workload: {mean_interarrival: .inf}}]",
         "clients.0.workload.mean_interarrival: Input should be a finite number"),
        ("clients: [{workload: {penalty_bound: .nan}}]",
         "clients.0.workload.penalty_bound: Input should be a finite number"),
        ("sample_interval: .nan", "sample_interval: Input should be a finite number"),
        ("resource_providers: [{uncertainty: {sigma: .inf}}]",
         "resource_providers.0.uncertainty.sigma: Input should be a finite number"),
        ("resource_providers: [{price_changes: [{at: .inf, price: 1}]}]",
         "resource_providers.0.price_changes.0.at: Input should be a finite number"),
        ("variants: {x: {clients.0.workload.penalty_bound: .nan}}",
         "variants.x.clients.0.workload.penalty_bound: must be a finite number, not nan"),
        ("sweep: {parameters: {resource_providers.0.price: [1, .inf]}}",
         "sweep.parameters.resource_providers.0.price.1: must be a finite number, not inf"),
        ("clients: [{workload: {jobs: .inf}}]",
         "clients.0.workload.jobs: Input should be a finite"),
        # impossible combinations
        ("resource_providers: [{price_changes: [{at: 5, price: 1}, {at: 5, price: 2}]}]",
         "resource_providers.0.price_changes: times must increase: change 1 at 5 h is not after "
         "change 0 at 5 h"),
        ("resource_providers: [{price_changes: [{at: 5, price: 1}, {at: 2, price: 2}]}]",
         "resource_providers.0.price_changes: times must increase: change 1 at 2 h"),
        ("{clients: [{name: x}], service_providers: [{name: x}], resource_providers: [{name: x}]}",
         "service_providers.0.name: 'x' is also the name of resource_providers.0"),
        ("{clients: [{name: rp}]}",
         "clients.0.name: 'rp' is also the name of resource_providers.0"),
        # values that would make a run endless or huge
        ("clients: [{workload: {jobs: 1.0e+20}}]", "clients.0.workload.jobs: "),
        ("clients: [{workload: {jobs: 1000001}}]",
         "clients.0.workload.jobs: Input should be less than or equal to 1000000"),
        ("seed: 18446744073709551616", "seed: Input should be less than or equal to"),
        ("sample_interval: 1.0e-9", "sample_interval: 1e-09 h takes more than 1,000,000 samples"),
        ("resource_providers: [{uncertainty: {outage_rate: 1.0e+6}}]",
         "resource_providers.0.uncertainty.outage_rate: 1e+06 per hour makes more than"),
        ("resource_providers: [{uncertainty: {sigma: 1, period: 1.0e-9}}]",
         "resource_providers.0.uncertainty.period: 1e-09 h makes more than 1,000,000"),
        ("clients: [{workload: {mean_interarrival: 1.0e+9}}]",
         "sample_interval: 0.5 h takes more than 1,000,000 samples over the run's expected"),
        # numbers so large that products overflow later, and runs of too many jobs
        ("clients: [{workload: {value_skew: 1.0e+308}}]",
         "clients.0.workload.value_skew: 1e+308 is larger than 1e+12, the most a number may be"),
        ("resource_providers: [{price: 1000000000000000000000}]",
         "resource_providers.0.price: 1e+21 is larger than 1e+12"),
        ("clients: [{workload: {work_cv: 1.0e-300}}]",
         "clients.0.workload.work_cv: 1e-300 is closer to 0 than 1e-12 (give 0 or more)"),
        ("resource_providers: [{capacity: 1000001}]",
         "resource_providers.0.capacity: Input should be less than or equal to 1000000"),
        ("service_providers: [{admission: msb, scheduler: easy}]",
         "service_providers.0.scheduler: msb admits only schedules that meet every deadline as "
         "the conservative scheduler plans them"),
        ("clients: [" + ", ".join(f"{{name: c{i}, workload: {{jobs: 600000}}}}" for i in range(2))
         + "]", "clients: 1,200,000 jobs in all, more than the 1,000,000 a run may have"),
        # text a file cannot hold: control characters, NUL bytes, lone surrogates, huge numbers
        ('name: "a\\x01b"', "name: text with a control character (U+0001)"),
        ('description: "two\\nlines"\nname: "a\\nb"', "name: text with a control character"),
        ('name: "\\ud800"', "name: text with a lone surrogate (U+D800): not valid Unicode"),
        ("name: a\x01b", "s.yaml: line 1: unacceptable character #x0001 (control characters"),
        ("seed: 1\nname: a\x00b", "s.yaml: line 2: unacceptable character #x0000"),
        ("seed: " + "9" * 5000, "s.yaml: line 1: a number of more than 4,300 digits"),
        ("variants: " + "[" * 70 + "]" * 70, "s.yaml: more than 1,000,000 values once its aliases "
         "are expanded, or nested more than 64 deep"),
        ("clients: [{workload: {kind: swf, trace: t.swf}}]\nsample_interval: 1.0e-5",
         "sample_interval: must be at least one second"),
        ("clients: [{workload: {kind: swf, trace: t.swf, load_factor: 1000}}]",
         "clients.0.workload.load_factor: Input should be less than or equal to 100"),
        # policy parameters: types and finite numbers, checked for every policy
        ("service_providers: [{scheduler: {name: first_reward, discount_rate: .nan}}]",
         "service_providers.0.scheduler: scheduler 'first_reward': discount_rate: Input should "
         "be a finite number"),
        ("service_providers: [{admission: {name: qops, k: 2.5}}]",
         "admission policy 'qops': k: Input should be a valid integer"),
    ],
)  # fmt: skip
def test_values_that_would_crash_or_never_end_are_refused(tmp_path, text, message):
    test_bad_files_get_one_line_errors_naming_file_and_field(tmp_path, text, message)
    assert str(load_error(tmp_path, text)).startswith(f"{tmp_path / 's.yaml'}: ")


def load_error(tmp_path, text) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load(write(tmp_path, text))
    return info.value


def test_the_bounds_are_relative_to_the_run():
    # Table 1's horizon: 200 x 0.15 h of arrivals + 200 x 7 processor-hours / 10 processors
    # = 30 + 140 = 170 h, so the finest sample interval is 170 / 1e6 = 1.7e-4 h.
    ok = validate({"sample_interval": 1.8e-4})
    assert ok.sample_interval == 1.8e-4
    with pytest.raises(ScenarioError, match=r"use at least 0\.00017"):
        validate({"sample_interval": 1.6e-4})
    # 100,000 jobs: a horizon of 15,000 + 70,000 h; sampling every 0.5 h is fine...
    big = {"clients": [{"workload": {"jobs": 100_000}}]}
    assert validate(big).clients[0].workload.jobs == 100_000
    # ...and so is a sample interval that is too fine for Table 1 but not for this run
    validate({**big, "sample_interval": 0.1})
    # a pool that never varies draws nothing: its period does not matter
    validate({"resource_providers": [{"uncertainty": {"period": 1e-9}}]})


def test_duplicate_keys_are_errors_naming_the_file_the_line_and_the_key(tmp_path):
    text = "variants:\n  LJF: {service_providers.0.scheduler: ljf}\n  LJF: {}\n"
    with pytest.raises(ScenarioError) as info:
        load(write(tmp_path, text))
    assert str(info.value) == f"{tmp_path / 's.yaml'}: line 3: duplicate key 'LJF'"
    # a merge key may be overridden on purpose
    assert load(write(tmp_path, "resource_providers: [{<<: {price: 1, capacity: 4}, price: 2}]"))


def test_a_file_that_is_not_utf8_text_is_one_line_without_its_contents(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_bytes(b"name: caf\xe9 secret\n")
    with pytest.raises(ScenarioError) as info:
        load(path)
    assert str(info.value) == f"{path}: not a UTF-8 text file (invalid byte at offset 9)"


def test_only_regular_files_of_bounded_size_are_read(tmp_path):
    with pytest.raises(ScenarioError, match="not a regular file"):
        load("/dev/zero")
    with pytest.raises(ScenarioError, match="is a directory"):
        load(tmp_path)
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError, match="not a regular file"):
        load(fifo)  # opened non-blocking: no writer, no hang
    huge = tmp_path / "huge.yaml"
    with open(huge, "wb") as handle:
        handle.truncate(MAX_BYTES + 1)  # sparse: no disk used
    with pytest.raises(ScenarioError, match="larger than"):
        load(huge)


def test_names_are_found_on_the_search_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shipped = load("profit/default")  # not in the current directory: the shipped one
    assert shipped.name == "profit-default" and shipped.resource_providers[0].capacity == 10
    (tmp_path / "scenarios" / "profit").mkdir(parents=True)
    (tmp_path / "scenarios" / "profit" / "default.yaml").write_text("seed: 42\n")
    assert load("profit/default").seed == 42  # ./scenarios comes before the shipped ones
    (tmp_path / "profit").mkdir()
    (tmp_path / "profit" / "default.yaml").write_text("seed: 7\n")
    assert load("profit/default.yaml").seed == 7  # and the name as a path before both
    with pytest.raises(ScenarioError, match=r"^nothing/here: no such scenario file \(looked"):
        load("nothing/here")


def test_a_path_under_scenarios_as_the_guides_write_it_works_from_any_directory(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # no ./scenarios here: the shipped file, found without the prefix
    assert load("scenarios/profit/default.yaml").name == "profit-default"
    (tmp_path / "scenarios" / "profit").mkdir(parents=True)
    (tmp_path / "scenarios" / "profit" / "default.yaml").write_text("seed: 42\n")
    assert load("scenarios/profit/default.yaml").seed == 42  # the path itself comes first
    with pytest.raises(ScenarioError, match=r"^scenarios/nothing\.yaml: no such scenario file"):
        load("scenarios/nothing.yaml")


def test_line_breaks_in_a_description_and_seeds_beyond_the_number_bound_are_fine():
    s = validate({"description": "two\nlines\tand a tab", "seed": 2**63 - 1})
    assert s.description.count("\n") == 1 and s.seed > 1e12
    with pytest.raises(ScenarioError, match=r"^scenario: name: text with a control character"):
        validate({"name": "two\nlines"})
    assert validate({"resource_providers": [{"price": 1e12}]}).resource_providers[0].price == 1e12
