"""The site's build hooks (docs/hooks.py): a page's output markers become what the command
prints now (so the tutorial's `make run` table and the market guide's market table are never
copies), and the API pages lose the docstrings' Sphinx roles."""

from __future__ import annotations

import runpy

import pytest

from market.cli.main import main
from tests.conftest import DEFAULT_SCENARIO, ROOT

HOOKS = runpy.run_path(str(ROOT / "docs" / "hooks.py"), run_name="hooks")


@pytest.mark.parametrize(
    ("page", "args", "scenario"),
    [
        ("tutorial.md", "run profit/default", DEFAULT_SCENARIO),
        ("papers/market.md", "run market/competition", ROOT / "scenarios/market/competition.yaml"),
    ],
)
def test_a_page_shows_what_the_command_prints(page, args, scenario, capsys, monkeypatch):
    marker = f"<!-- gridmarket-output: {args} -->"
    assert marker in (ROOT / "docs" / page).read_text(encoding="utf-8")
    shown = HOOKS["with_outputs"](f"before\n{marker}\nafter").splitlines()
    assert shown[:3] == ["before", "```text", f"$ gridmarket {args}"]
    assert shown[-2:] == ["```", "after"]
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["run", str(scenario)]) == 0
    printed = capsys.readouterr().out.rstrip("\n").splitlines()
    assert [line.rstrip() for line in shown[3:-2]] == [line.rstrip() for line in printed]


def test_the_traces_guide_shows_what_trace_info_prints():
    marker = "<!-- gridmarket-output: trace info SDSC-SP2-1998-4.2-cln.swf.gz -->"
    assert marker in (ROOT / "docs" / "guide" / "traces.md").read_text(encoding="utf-8")


def test_a_missing_trace_is_a_line_not_a_failed_build(monkeypatch, tmp_path):
    monkeypatch.setenv("GRIDMARKET_TRACES", str(tmp_path))
    shown = HOOKS["command_output"]("trace info NOWHERE-1999-cln.swf.gz")
    assert shown == (
        "(trace 'NOWHERE-1999-cln.swf.gz' not found where this site was built: see Traces to "
        "get it)"
    )


def test_a_run_whose_scenario_reads_a_missing_trace_is_a_line_too(monkeypatch, tmp_path):
    monkeypatch.setenv("GRIDMARKET_TRACES", str(tmp_path))
    shown = HOOKS["command_output"]("run qops/sdsc_load --set clients.0.workload.trace=NOWHERE.swf")
    assert shown.startswith("(trace 'NOWHERE.swf' not found where this site was built")


def test_a_failing_command_stops_the_build_with_its_error():
    with pytest.raises(RuntimeError, match="gridmarket run nowhere/none: gridmarket: error: "):
        HOOKS["command_output"]("run nowhere/none")


def test_sphinx_roles_are_dropped_from_api_pages():
    html = "A :class:<code>~market.core.jobs.Job</code> and :func:<code>place</code>, :x:<b>"
    assert HOOKS["on_page_content"](html, None, None, None) == (
        "A <code>market.core.jobs.Job</code> and <code>place</code>, :x:<b>"
    )
