"""One concept per file: no Python file in the code, the examples or the tests is over 400 lines
(a longer one holds two concepts; split it by what it is about)."""

from __future__ import annotations

from tests.conftest import ROOT
from tests.docs.test_docstrings import sources

FOLDERS = ("market", "agents", "dashboards", "envs", "examples", "tests")
MAX_LINES = 400


def line_count(path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_python_file_is_over_400_lines():
    long = {}
    for path in sources(*FOLDERS):
        if line_count(path) > MAX_LINES:
            long[path.relative_to(ROOT).as_posix()] = line_count(path)
    assert not long, f"files over {MAX_LINES} lines (split them by concept): {long}"


def test_the_rule_counts_lines_and_covers_the_tests(tmp_path):
    at = tmp_path / "at.py"
    at.write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    over = tmp_path / "over.py"
    over.write_text("x = 1\n" * MAX_LINES + "y = 2", encoding="utf-8")  # no final newline
    assert line_count(at) == MAX_LINES < line_count(over) == MAX_LINES + 1
    assert ROOT / "tests" / "docs" / "test_file_length.py" in set(sources(*FOLDERS))
