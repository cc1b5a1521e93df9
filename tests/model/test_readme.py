"""The README's examples work as written."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT


def python_blocks(section: str) -> list[str]:
    text = (ROOT / "README.md").read_text()
    body = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, re.S)


def test_model_script_runs():
    (script,) = python_blocks("A model script")
    assert len(script.strip().splitlines()) <= 10
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "profit_rate" in proc.stdout and "reason" in proc.stdout


def test_adding_a_policy_example_registers_and_runs():
    (example,) = python_blocks("Policies")
    check = example + (
        "\nfrom market import GridMarket, load_scenario\n"
        "s = load_scenario('scenarios/profit/default.yaml').with_overrides(\n"
        "    {'variants': {}, 'clients.0.workload.jobs': 20,\n"
        "     'service_providers.0.scheduler': 'cheapest_first'})\n"
        "r = GridMarket(s).run()\n"
        "assert r.summary.scheduler[0] == 'cheapest_first' and r.summary.mean_processors[0] == 1\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
