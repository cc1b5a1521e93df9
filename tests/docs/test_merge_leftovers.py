"""No merge is left half done: no page, source, scenario or configuration file holds a line of
git's conflict markers (``<<<<<<< HEAD`` ... ``>>>>>>> main``), which the site would show as text
and Python or YAML would refuse."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.conftest import ROOT

SUFFIXES = {".md", ".py", ".yaml", ".yml", ".toml", ".sh", ".cfg", ".txt", ".json"}
MARKER = re.compile(r"^(<{7}|>{7})( |$)", re.M)
SKIP = {".git", ".venv", "build", "node_modules", "__pycache__", "results"}


def text_files():
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix in SUFFIXES or name == "Makefile":
                yield path


def leftovers(text: str) -> list[str]:
    return [match.group(0) for match in MARKER.finditer(text)]


def test_no_file_holds_conflict_markers():
    found = {
        path.relative_to(ROOT).as_posix(): marks
        for path in text_files()
        if (marks := leftovers(path.read_text(encoding="utf-8", errors="replace")))
    }
    assert not found, f"unresolved merge conflicts: {found}"


def test_the_rule_finds_markers_and_only_them():
    half_done = "a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\nb\n"
    assert leftovers(half_done) == ["<<<<<<< ", ">>>>>>> "]
    assert leftovers("Title\n=======\n`<<<<<<<` in prose, x >>>>>>> y\n") == []
    assert ROOT / "docs" / "guide" / "traces.md" in set(text_files())
