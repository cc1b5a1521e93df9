"""Attribute probes (``getattr``/``hasattr``) stand in for an interface, so ``market/`` and
``agents/`` keep at most ten, each where the code is dynamic by nature (a lazy module, a user's
``module:Class``, an OS feature, Mesa's or CPython's internals) and each saying why in a comment
that starts with ``# (``, on its line or on a comment line just above it."""

from __future__ import annotations

import ast
import io
import tokenize

from tests.conftest import ROOT

PACKAGES = ("market", "agents")
MAX_PROBES = 10
PROBES = {"getattr", "hasattr"}


def probes(source: str) -> list[int]:
    """The lines of the ``getattr``/``hasattr`` calls in ``source``."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PROBES
    )


def comments(source: str) -> dict[int, str]:
    """``{line: comment}`` of every comment in ``source``."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return {t.start[0]: t.string for t in tokens if t.type == tokenize.COMMENT}


def reason(source: str, line: int) -> str | None:
    """The reason comment of the probe on ``line``: its own trailing ``# (...)`` comment, or a
    ``# (...)`` comment alone on the line above it."""
    found = comments(source)
    if found.get(line, "").startswith("# ("):
        return found[line]
    above = source.splitlines()[line - 2].strip() if line > 1 else ""
    return above if above.startswith("# (") and found.get(line - 1) == above else None


def all_probes() -> list[tuple[str, int, str | None]]:
    """``(file, line, reason)`` of every probe in the packages."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            name = path.relative_to(ROOT).as_posix()
            found += [(name, line, reason(source, line)) for line in probes(source)]
    return found


def test_at_most_ten_probes_are_left():
    found = all_probes()
    listed = "\n".join(f"{name}:{line}" for name, line, _ in found)
    assert len(found) <= MAX_PROBES, f"{len(found)} getattr/hasattr probes:\n{listed}"


def test_every_probe_says_why():
    bare = [f"{name}:{line}" for name, line, why in all_probes() if why is None]
    assert not bare, f"probes without a '# (reason)' comment: {bare}"


def test_the_checks_see_probes_and_their_reasons():
    source = (
        "import os\n"
        "a = getattr(os, 'sep')  # (a reason)\n"
        "# (a reason above)\n"
        "b = hasattr(os, 'sep')\n"
        "c = getattr(os, 'sep')  # no reason\n"
        "d = 'getattr(os, x)'  # (a string is no call)\n"
        "e = hasattr(\n"
        "    os, 'sep')\n"
    )
    assert probes(source) == [2, 4, 5, 7]
    assert [reason(source, line) for line in probes(source)] == [
        "# (a reason)",
        "# (a reason above)",
        None,
        None,
    ]
