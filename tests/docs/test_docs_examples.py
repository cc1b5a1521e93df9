"""The site's and the README's runnable examples work as written: every ```python block that a
``<!-- runnable -->`` line marks runs in a fresh interpreter from the project's top folder, and
every other block says why it is not run (``<!-- not run: ... -->``), so none goes unchecked
unnoticed; every ```yaml block validates as a scenario; Architecture's policy of one's own runs
from a module outside the project, and its metric entry is the registry's own."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
MARK = re.compile(r"<!-- runnable -->\n```python\n(.*?)```", re.S)
BLOCK = re.compile(r"^(.*)\n```python\n", re.M)
YAML = re.compile(r"^```yaml\n(.*?)^```", re.S | re.M)
WHY_NOT = re.compile(r"<!-- not run( here)?: .+ -->")


def _name(page) -> str:
    return str(page.relative_to(DOCS if page.is_relative_to(DOCS) else ROOT))


def runnable_blocks() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for number, block in enumerate(MARK.findall(page.read_text(encoding="utf-8"))):
            found.append((f"{_name(page)}#{number}", block))
    return found


BLOCKS = runnable_blocks()


def test_the_site_has_runnable_examples():
    pages = {name.split("#")[0] for name, _ in BLOCKS}
    assert {"tutorial.md", "papers/environments.md", "guide/batch-runs.md"} <= pages


def test_every_python_block_is_run_or_says_why_not():
    unmarked = [
        f"{_name(page)}: {before!r}"
        for page in PAGES
        for before in BLOCK.findall(page.read_text(encoding="utf-8"))
        if before != "<!-- runnable -->" and not WHY_NOT.fullmatch(before)
    ]
    assert not unmarked, unmarked


@pytest.mark.parametrize(("name", "block"), BLOCKS, ids=[name for name, _ in BLOCKS])
def test_runnable_block(name, block):
    proc = subprocess.run(
        [sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"{name}:\n{proc.stderr}"


def test_adding_a_policy_runs_from_a_module_of_ones_own(tmp_path):
    """Architecture's example class, saved as mypolicies.py outside the project, runs by its
    module:Class name from the scenario fragment the page shows."""
    import yaml

    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Adding a policy", 1)[1].split("\n## ", 1)[0]
    example = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    fragment = re.findall(r"```yaml\n(.*?)```", section, re.S)[0]
    (tmp_path / "mypolicies.py").write_text(example, encoding="utf-8")
    name = yaml.safe_load(fragment)["service_providers"][0]["scheduler"]
    check = (
        "from market import GridMarket, load_scenario\n"
        "s = load_scenario('scenarios/profit/default.yaml').with_overrides(\n"
        "    {'variants': {}, 'clients.0.workload.jobs': 20,\n"
        f"     'service_providers.0.scheduler': {name!r}}})\n"
        "r = GridMarket(s).run()\n"
        "assert r.summary.scheduler[0] == 'mypolicies:CheapestFirst', r.summary.scheduler[0]\n"
        "assert r.summary.mean_processors[0] == 1\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    proc = subprocess.run(
        [sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=300,
        env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def test_adding_a_metric_shows_the_registrys_own_entry():
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Adding a metric", 1)[1].split("\n## ", 1)[0]
    entry = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    source = (ROOT / "market/results/metrics/scheduling.py").read_text(encoding="utf-8")
    assert " ".join(entry.split()) in " ".join(source.split())


def yaml_blocks() -> list[tuple[str, str]]:
    """Every ```yaml block but Architecture's (its policy of one's own is run above)."""
    found = []
    for page in PAGES:
        if page.name == "architecture.md":
            continue
        for number, block in enumerate(YAML.findall(page.read_text(encoding="utf-8"))):
            found.append((f"{_name(page)}#{number}", block))
    return found


@pytest.mark.parametrize(("name", "block"), yaml_blocks(), ids=[n for n, _ in yaml_blocks()])
def test_a_scenario_fragment_is_a_valid_scenario(name, block):
    """Each block, a scenario or part of one, validates with the schema."""
    import yaml

    from market.inputs.scenario import validate

    validate(yaml.safe_load(block), name)
