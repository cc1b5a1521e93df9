"""The nearest valid name in one-line errors (market/core/suggest.py): offered for a misspelt
field (in a file, a variant or --set), scenario, folder, variant, column or metric; never for a
name far from every valid one."""

from __future__ import annotations

import pytest

from market.cli.main import main
from market.core.suggest import did_you_mean, nearest
from market.inputs.scenario import Scenario
from market.inputs.validation_errors import fields_at
from tests.conftest import DEFAULT_SCENARIO


def test_nearest_ignores_case_and_refuses_far_guesses():
    assert nearest("ljf", ["LJF", "SJF"]) == "LJF"
    assert nearest("sample_intreval", ["seed", "sample_interval", "name"]) == "sample_interval"
    assert nearest("qqqqq", ["table", "json", "csv"]) is None
    assert nearest("x", []) is None
    assert did_you_mean("jsn", ["json"]) == ", did you mean 'json'?"
    assert did_you_mean("json", ["json"]) == "" and did_you_mean("zzz", ["json"]) == ""


def test_fields_at_follows_the_location_through_lists_and_unions():
    assert "sample_interval" in fields_at(Scenario, ("sample_intreval",))
    client = fields_at(Scenario, ("clients", 0, "offer_rul"))
    assert "offer_rule" in client and "sample_interval" not in client
    workload = fields_at(Scenario, ("clients", 0, "workload", "jobz"))
    assert {"jobs", "mean_interarrival", "trace"} <= set(workload)  # every kind's fields


def misspelt(tmp_path, old, new):
    path = tmp_path / "typo.yaml"
    path.write_text(DEFAULT_SCENARIO.read_text().replace(old, new, 1))
    return str(path)


CASES = [
    (lambda p: ["run", misspelt(p, "sample_interval:", "sample_intreval:")],
     ": sample_intreval: unknown field, did you mean 'sample_interval'?"),
    (lambda p: ["run", misspelt(p, "mean_interarrival:", "mean_inter_arrival:")],
     "clients.0.workload.mean_inter_arrival: unknown field, did you mean 'mean_interarrival'?"),
    (lambda p: ["run", str(DEFAULT_SCENARIO), "--set", "clients.0.offer_rul=best_quote"],
     "--set: clients.0.offer_rul: unknown field, did you mean 'offer_rule'?"),
    (lambda p: ["run", str(DEFAULT_SCENARIO), "--set", "client.0.name=x"],
     "--set: client: no such field, did you mean 'clients'?"),
    (lambda p: ["run", "profit/defualt"],
     "profit/defualt: no such scenario file, did you mean 'profit/default'? (looked for"),
    (lambda p: ["run", str(DEFAULT_SCENARIO), "--variant", "ljf"],
     "has no variant 'ljf', did you mean 'LJF'? (its variants: 'LJF',"),
    (lambda p: ["run", str(DEFAULT_SCENARIO), "--columns", "variant,proft"],
     "--columns: unknown column 'proft', did you mean 'profit'? (have: "),
    (lambda p: ["scenarios", "qosp"], "no scenario in folder 'qosp', did you mean 'qops'?"),
    (lambda p: ["sweep", "profit/fig3_load", "--set", "sweep.metrics=[proft]"],
     "sweep.metrics: unknown metric 'proft', did you mean 'profit'? (have: "),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "message"), CASES)
def test_a_misspelt_name_is_answered_with_the_nearest(capsys, tmp_path, argv, message):
    assert main(argv(tmp_path)) == 2
    err = capsys.readouterr().err
    assert err.startswith("gridmarket: error: ") and err.count("\n") == 1 and message in err


def test_a_name_far_from_every_valid_one_gets_no_guess(capsys):
    assert main(["run", str(DEFAULT_SCENARIO), "--set", "zzzzqqq.x=1"]) == 2
    assert main(["scenarios", "zzzzqqq"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "did you mean" not in err
