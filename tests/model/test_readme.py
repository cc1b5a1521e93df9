"""The README's examples work as written."""

from __future__ import annotations

import os
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


def test_adding_a_policy_example_runs_from_a_module_of_ones_own(tmp_path):
    """The README's class, saved as mypolicies.py outside the project, runs by its
    module:Class name from the scenario fragment the README shows."""
    import yaml

    (example,) = python_blocks("Policies")
    (tmp_path / "mypolicies.py").write_text(example)
    body = (ROOT / "README.md").read_text().split("### Adding a policy", 1)[1]
    (fragment,) = re.findall(r"```yaml\n(.*?)```", body.split("\n## ", 1)[0], re.S)
    sp = yaml.safe_load(fragment)["service_providers"][0]
    check = (
        "from market import GridMarket, load_scenario\n"
        "s = load_scenario('scenarios/profit/default.yaml').with_overrides(\n"
        "    {'variants': {}, 'clients.0.workload.jobs': 20,\n"
        f"     'service_providers.0.scheduler': {sp['scheduler']!r}}})\n"
        "r = GridMarket(s).run()\n"
        "assert r.summary.scheduler[0] == 'mypolicies:CheapestFirst', r.summary.scheduler[0]\n"
        "assert r.summary.mean_processors[0] == 1\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    proc = subprocess.run(
        [sys.executable, "-c", check],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
