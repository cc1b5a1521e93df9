"""Every page served on its own takes the same command line: bad arguments are one line on
stderr and exit status 2, before any server starts."""

from __future__ import annotations

import pytest

from dashboards import libra, market_view, varq, vqops

PAGES = [varq.main, market_view.main, vqops.main, libra.main]


@pytest.mark.parametrize("main", PAGES)
@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["--port", "70000"], "--port"),
        (["--port", "0"], "--port"),
        (["no/such/scenario.yaml"], "no/such/scenario.yaml"),
    ],
)
def test_bad_arguments_are_one_line(main, argv, field, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "error" in err and field in err


STEPS = [(varq.main, "--hours"), (market_view.main, "--hours"), (vqops.main, "--speed"),
         (libra.main, "--speed")]  # fmt: skip


@pytest.mark.parametrize(("main", "option"), STEPS)
def test_a_step_must_be_positive(main, option, capsys):
    assert main([option, "-1"]) == 2
    assert f"{option}: must be a positive number" in capsys.readouterr().err
