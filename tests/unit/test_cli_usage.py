"""Usage errors of the gridmarket command (market/cli/usage.py): one line, led by
``gridmarket: error:`` once, then the subcommand it is about, and the nearest valid choice."""

from __future__ import annotations

import pytest

from market.cli.main import main

USAGE_ERRORS = [
    (["run", "x.json", "--bogus"], "run: unrecognized arguments: --bogus"),
    (["trace", "info", "x.swf", "--zz", "1"], "trace info: unrecognized arguments: --zz 1"),
    (["bogus"], "argument command: invalid choice: 'bogus' (choose from 'run', "),
    (["rn", "x.json"], "did you mean 'run'?"),
    (["run", "x.json", "--seed", "z"], "run: argument --seed: invalid int value: 'z'"),
    (["run", "x.json", "--format", "jsn"], "run: argument --format: invalid choice: 'jsn'"),
    (["run", "x.json", "--format", "jsn"], "; did you mean 'json'?"),
    (["trace", "qbets"], "trace qbets: the following arguments are required: file"),
    (["sweep"], "sweep: the following arguments are required: scenario"),
    (["run", "x.json", "--" + "b" * 100], "unrecognized arguments: --" + "b" * 38 + "..."),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "message"), USAGE_ERRORS)
def test_a_usage_error_names_the_program_once_and_its_command(capsys, argv, message):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err
    assert err.startswith("gridmarket: error: ") and err.count("gridmarket") == 1


def test_a_choice_far_from_every_valid_one_suggests_none(capsys):
    assert main(["run", "x.json", "--format", "qqqqq"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_a_long_word_of_any_error_is_cut_keeping_the_punctuation_around_it():
    from market.cli.usage import shortened

    assert shortened("a b: 'short' (x)") == "a b: 'short' (x)"
    word = "k" * 5000
    assert shortened(f"--set: clients.{word}: no item {word} (x)") == (
        f"--set: clients.{'k' * 92}... (5,008 characters): no item {'k' * 100}... "
        "(5,000 characters) (x)"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "profit/default", "--variant", "v" * 5000],
        ["run", "profit/default", "--set", f"clients.{'c' * 5000}=1"],
        ["run", "profit/default", "--columns", "c" * 5000],
        ["dashboard", "--host", "h" * 5000],
    ],
)
def test_a_value_given_whole_is_not_repeated_whole(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "... (5,0" in err and len(err) < 2000  # not 5,000+
