"""The site's runnable examples work as written: every ```python block that a
``<!-- runnable -->`` line marks runs in a fresh interpreter from the project's top folder."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

DOCS = ROOT / "docs"
MARK = re.compile(r"<!-- runnable -->\n```python\n(.*?)```", re.S)

#: What a block's run must also show, beyond exiting cleanly (by the block's first line).
CHECKS = {
    "from agents.policies.list_scheduling import ListScheduler": (
        "\nfrom market import GridMarket, load_scenario\n"
        "s = load_scenario('scenarios/profit/default.yaml').with_overrides(\n"
        "    {'variants': {}, 'clients.0.workload.jobs': 20,\n"
        "     'service_providers.0.scheduler': 'cheapest_first'})\n"
        "r = GridMarket(s).run()\n"
        "assert r.summary.scheduler[0] == 'cheapest_first' and r.summary.mean_processors[0] == 1\n"
    ),
}


def runnable_blocks() -> list[tuple[str, str]]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        for number, block in enumerate(MARK.findall(page.read_text(encoding="utf-8"))):
            found.append((f"{page.relative_to(DOCS)}#{number}", block))
    return found


BLOCKS = runnable_blocks()


def test_the_site_has_runnable_examples():
    pages = {name.split("#")[0] for name, _ in BLOCKS}
    assert {"tutorial.md", "architecture.md", "papers/environments.md"} <= pages


@pytest.mark.parametrize(("name", "block"), BLOCKS, ids=[name for name, _ in BLOCKS])
def test_runnable_block(name, block):
    script = block + CHECKS.get(block.splitlines()[0], "")
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"{name}:\n{proc.stderr}"
