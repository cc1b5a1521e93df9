"""The README's Learning environments example works as written."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT
from tests.model.test_readme import python_blocks


def test_learning_environments_example_runs():
    (script,) = python_blocks("Learning environments")
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    total, profit = proc.stdout.split()
    assert float(total) == float(profit) == 6259.1
