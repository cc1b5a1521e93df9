"""The site's runnable examples work as written: every ```python block that a
``<!-- runnable -->`` line marks runs in a fresh interpreter from the project's top folder, and
Architecture's policy of one's own runs from a module outside the project."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

DOCS = ROOT / "docs"
MARK = re.compile(r"<!-- runnable -->\n```python\n(.*?)```", re.S)


def runnable_blocks() -> list[tuple[str, str]]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        for number, block in enumerate(MARK.findall(page.read_text(encoding="utf-8"))):
            found.append((f"{page.relative_to(DOCS)}#{number}", block))
    return found


BLOCKS = runnable_blocks()


def test_the_site_has_runnable_examples():
    pages = {name.split("#")[0] for name, _ in BLOCKS}
    assert {"tutorial.md", "papers/environments.md"} <= pages


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
