"""Reading back the tables ``gridmarket run`` prints (market/cli/tables.py): blocks separated
by a blank line, each a title, a header line, a rule broken between the columns (which gives
each column's extent), the rows, and a caption naming the columns left out."""

from __future__ import annotations

import re


def parse_tables(text: str) -> list[tuple[str, list[str], list[list[str]], str]]:
    """``(title, headers, rows, caption)`` of every table in ``text``, cells stripped."""
    found = []
    for block in re.split(r"\n[ \t]*\n", text):
        lines = block.split("\n")
        rule = next((i for i, line in enumerate(lines) if line.strip().startswith("─")), None)
        if rule is None or rule == 0:
            continue
        spans = [m.span() for m in re.finditer("─+", lines[rule])]

        def cells(line: str, spans: list = spans) -> list[str]:
            return [line[a:b].strip() for a, b in spans]

        body = lines[rule + 1 :]
        end = next((i for i, line in enumerate(body) if line.startswith("not shown")), len(body))
        title = " ".join(line.strip() for line in lines[: rule - 1])
        caption = " ".join(line.strip() for line in body[end:])
        rows = [cells(line) for line in body[:end] if line.strip()]
        found.append((title, cells(lines[rule - 1]), rows, caption))
    return found


def line_widths(text: str) -> list[int]:
    """The length of every printed line, trailing spaces left out."""
    return [len(line.rstrip()) for line in text.splitlines()]
