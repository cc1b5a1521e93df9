"""Every ``gridmarket`` command the README and the site show is one the command line takes: each
command line of a shell block parses (its command, options and choices), names a scenario that
exists and ``--set`` fields that scenario has; every ``--metrics`` and ``--columns`` name is a
metric or column; a synopsis (``[--seed N]``) and a command quoted in the prose
(```gridmarket run --seed 1```) name options that exist."""

from __future__ import annotations

import argparse
import re
import shlex

import pytest

from market.cli.main import _parser
from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHELL = re.compile(r"^```(?:sh|bash|shell|console)\n(.*?)^```", re.S | re.M)
INLINE = re.compile(r"`((?:\.venv/bin/)?gridmarket [^`]*)`")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z_.]*$")  # SCENARIO, RESULTS, PAGE.md...
NAMES = re.compile(r"--(metrics|columns)[ =]([a-z][a-z0-9_,]*)")


def _name(page) -> str:
    return str(page.relative_to(ROOT))


def shell_lines() -> list[tuple[str, str]]:
    """(page, command line) for each ``gridmarket`` line of a shell block, continuations joined,
    comments and redirections cut."""
    found = []
    for page in PAGES:
        for block in SHELL.findall(page.read_text(encoding="utf-8")):
            for line in block.replace("\\\n", " ").splitlines():
                line = re.split(r"\s#\s|\s[>|]\s?|\s&&\s", f" {line} ")[0].strip()
                if re.match(r"(\S*/)?gridmarket\s", line):
                    found.append((_name(page), line))
    return found


def inline_commands() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        text = SHELL.sub("", page.read_text(encoding="utf-8"))
        found += [(_name(page), command) for command in INLINE.findall(text)]
    return found


def _subparser(parser: argparse.ArgumentParser, words: list[str]):
    """The parser of the (sub)command that ``words`` start with, and its path."""
    path = []
    for word in words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or word not in subs[0].choices:
            break
        parser = subs[0].choices[word]
        path.append(word)
    return parser, path


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {option for action in parser._actions for option in action.option_strings}


def check_option_names(line: str) -> None:
    words = shlex.split(line.replace("[", " ").replace("]", " ").replace("|", " "))[1:]
    parser, path = _subparser(_parser(), words)
    assert path or words[0].startswith("--"), f"no such command: {line}"
    unknown = {w.split("=")[0] for w in words if w.startswith("--")} - _options(parser)
    assert not unknown, f"{' '.join(path)} has no option {sorted(unknown)}: {line}"


LINES = shell_lines()


def test_the_pages_show_commands():
    assert len(LINES) > 40 and len(inline_commands()) > 20


@pytest.mark.parametrize(("page", "line"), LINES, ids=[f"{p}:{line}" for p, line in LINES])
def test_a_shell_command_parses_and_names_what_exists(page, line):
    from market.inputs.scenario import load, parse_overrides

    if "[" in line or "--help" in line or "--version" in line:  # a synopsis: [--seed N]
        check_option_names(line)
        return
    words = shlex.split(line)[1:]
    args = _parser().parse_args(words)  # a UsageError names what is wrong
    scenario = getattr(args, "scenario", None)
    if scenario and not PLACEHOLDER.match(scenario):
        loaded = load(scenario).with_overrides(parse_overrides(getattr(args, "set", None) or []))
        loaded.expand(scenario)  # each --set names a field the scenario has, with a valid value
        unknown = set(getattr(args, "variant", None) or []) - set(loaded.variants)
        assert not unknown, f"{scenario} has no variant {sorted(unknown)}"
    results = getattr(args, "results", None)
    if results and results.startswith("docs/"):
        assert (ROOT / results).is_dir(), f"{page}: no {results}"


def test_every_metric_and_column_named_exists():
    """``--metrics a,b`` (a sweep's report) and ``--columns a,b`` (a run's table), anywhere."""
    from market.cli.tables import known_columns
    from market.results.metrics import METRICS

    known = {"metrics": {metric.name for metric in METRICS}, "columns": known_columns()}
    unknown = [
        f"{page.relative_to(ROOT)}: --{option} {name}"
        for page in PAGES
        for option, names in NAMES.findall(page.read_text(encoding="utf-8"))
        for name in names.split(",")
        if name and name not in known[option]
    ]
    assert not unknown, unknown


@pytest.mark.parametrize(
    ("page", "command"), inline_commands(), ids=[f"{p}:{c}" for p, c in inline_commands()]
)
def test_a_command_in_the_prose_names_options_that_exist(page, command):
    check_option_names(command)
