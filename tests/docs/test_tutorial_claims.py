"""What the tutorial tells a reader to look for in the table of `make run` (the profit paper's
Table 1 scenario, every scheduler of §3.3 with PositiveOpportunity admission and FirstProfit
accepting every job) is what that table shows: the table itself is made at build time, so the
prose about it is checked here."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from market.cli.main import main
from tests.conftest import DEFAULT_SCENARIO, ROOT


@pytest.fixture(scope="module")
def table():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["run", str(DEFAULT_SCENARIO), "--format", "json"]) == 0
    return {row["variant"]: row for row in json.loads(out.getvalue())}


def test_the_tutorial_says_what_this_file_checks():
    text = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    assert "What to look for" in text and "tests/docs/test_tutorial_claims.py" in text


def test_admission_control_makes_money_and_accepting_every_job_loses_it(table):
    admitted = {name: row for name, row in table.items() if row["admission"] != "accept_all"}
    assert len(admitted) == 7 and all(row["profit"] > 0 for row in admitted.values())
    assert table["FirstProfit, accept all"]["profit"] < 0


def test_first_profit_and_first_opportunity_use_about_half_the_processors(table):
    wide = min(table["SJF"]["mean_processors"], table["FirstPrice"]["mean_processors"])
    for name in ("FirstProfit", "FirstOpportunity"):
        assert 0.35 <= table[name]["mean_processors"] / wide <= 0.65, name


def test_first_price_earns_the_least_of_the_admission_controlled(table):
    admitted = [row for row in table.values() if row["admission"] != "accept_all"]
    for metric in ("profit", "profit_rate"):
        assert min(admitted, key=lambda row: row[metric])["variant"] == "FirstPrice", metric
