"""The generated reference pages (docs/gen_ref.py) cover everything they are generated from:
every command and option of the parser, every field of the scenario schema, every registered
policy and parameter, every limit; and every API page names modules that exist."""

from __future__ import annotations

import argparse
import importlib
import runpy

import pytest

from tests.conftest import ROOT

GEN = runpy.run_path(str(ROOT / "docs" / "gen_ref.py"), run_name="gen_ref")


def _commands(parser, path):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, f"{path} {name}")


def test_cli_page_has_every_command_and_option():
    from market.cli.main import _parser

    page = GEN["cli_page"]()
    for path, parser in _commands(_parser(), "gridmarket"):
        assert f"`{path}`" in page
        for action in parser._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}`" in page, f"{path} {option}"
    assert "--markdown" in page and "gridmarket trace qbets" in page


def test_scenario_page_has_every_field_with_its_description():
    from pydantic import BaseModel

    from market.inputs.scenario import Scenario

    page = GEN["scenario_page"]()
    seen, todo = set(), [Scenario]
    while todo:
        model = todo.pop()
        if model in seen or model.__name__ == "PolicySpec":  # on the policies page
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            assert f"| `{name}` |" in page, f"{model.__name__}.{name}"
            if info.description:
                assert info.description.replace("|", "\\|") in page
            todo += [m for m in GEN["_models_in"](info.annotation) if issubclass(m, BaseModel)]
    for section in ("`clients.N.workload` (`kind: swf`)", "`resource_providers.N.uncertainty`",
                    "`batch_sites.N.varq`", "`sweep`"):  # fmt: skip
        assert f"## {section}" in page


def test_policies_page_has_every_policy_and_parameter():
    import agents.policies  # noqa: F401
    from agents.policies.registry import ADMISSIONS, CLUSTERS, PRICINGS, RESERVATIONS, SCHEDULERS

    page = GEN["policies_page"]()
    for table in (SCHEDULERS, ADMISSIONS, CLUSTERS, PRICINGS, RESERVATIONS):
        for name, cls in table.items():
            assert f"| `{name}` | `{cls.__module__}.{cls.__qualname__}` |" in page
    assert "`alpha`: float = `0.3`" in page  # FirstReward's parameter and its default


@pytest.mark.parametrize("key", sorted(GEN["API"]))
def test_api_pages_name_modules_that_exist(key):
    page = GEN["api_page"](key)
    modules = [line.removeprefix("::: ") for line in page.splitlines() if line.startswith(":::")]
    assert modules
    for module in modules:
        importlib.import_module(module)


def test_limits_page_states_every_limit_with_its_value_from_the_code():
    from dashboards import run_limits
    from dashboards.session import Session
    from market.inputs import limits

    page = runpy.run_path(str(ROOT / "docs" / "gen_limits.py"))["limits_page"]()
    for name in dir(limits):
        if name.startswith(("MAX_", "MIN_")):
            assert f"| `{name}` |" in page, name
    assert (
        "| `MAX_JOBS` | 1,000,000 | jobs a client submits, and all clients of a run together |"
        in page
    )
    assert f"| `MAX_TRACE_BYTES` | {limits.MAX_TRACE_BYTES:,} | a trace file's text," in page
    assert f"| `MAX_SERVER_JOBS` | {run_limits.MAX_SERVER_JOBS:,} | jobs over every tab" in page
    assert f"| `Session.budget` | {Session.budget:g} | at most this many wall-clock" in page
    assert "| `STALL_AFTER` | 100,000 | hours with jobs waiting" in page
    assert "_LINES_ALLOWED" not in page and "PATH_KEYS" not in page  # not limits


def test_the_reference_pages_kept_in_docs_are_what_the_site_generates(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # as docs/gen_ref.py writes them
    stale = [
        name
        for name, text in GEN["reference_pages"]().items()
        if (ROOT / "docs" / name).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"{stale} differ from what the site generates: run `make docs-reference`"
