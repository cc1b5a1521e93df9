"""The README is a front door: short, its example works as written, its links lead somewhere."""

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


def test_readme_is_short_and_links_into_the_docs():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) < 250
    links = re.findall(r"\]\(([^)#]+?)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert "docs/tutorial.md" in local and "docs/images/dashboard.png" in local
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"
