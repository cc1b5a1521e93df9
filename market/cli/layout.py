"""How a table of ``gridmarket run`` fits a terminal: which columns it keeps and how it shortens
labels, never cutting a number.

:func:`fit` makes a list of :class:`Column` s (cells already formatted) fit ``width``
characters, stopping as soon as it fits: (1) a label column with one value in every row moves to
the title, unless the columns were chosen by hand; (2) the optional labels (scheduler,
admission: a variant's label names them) leave; (3) the metrics of priority 3 (details) leave,
rightmost first; (4) labels are shortened, to :data:`MIN_LABEL` characters at least, keeping what
tells them apart (:func:`abbreviate`); (5) other metrics leave, least important first, rightmost
among equals. What was left out is listed under the table, for ``--columns``
(docs/guide/command-line.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

GAP = 2  # characters between two columns
MIN_LABEL = 12
SEPARATORS = " =(,:/"


@dataclass(frozen=True)
class Column:
    """One column: its ``name``, ``header`` and formatted ``cells``; ``label`` for a text
    column; ``optional`` for a label the others imply; ``priority`` as in the registry."""

    name: str
    header: str
    cells: tuple[str, ...]
    label: bool = False
    optional: bool = False
    priority: int = 2

    @property
    def width(self) -> int:
        return max([len(self.header), *(len(c) for c in self.cells)])


def table_width(columns: list[Column]) -> int:
    """The characters a table of ``columns`` takes (:data:`GAP` between two columns)."""
    return sum(c.width for c in columns) + GAP * max(0, len(columns) - 1)


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _shorten(value: str, others: list[str], width: int) -> str:
    """``value`` in at most ``width`` characters, keeping what tells it from the closest of
    ``others``: its end cut (``FirstProfit, acc…``) where that keeps a character no other
    value starts with, else its start kept, the part shared with the closest elided, and the
    rest from the start of the word that differs (``vqops(oc_…0.2)``), else head and tail."""
    if len(value) <= width:
        return value
    shared = max((_common_prefix(value, o) for o in others), default=0)
    if width - 1 > shared:
        return value[: width - 1] + "…"
    start = min(shared, len(value))
    word = max(value.rfind(sep, 0, start) for sep in SEPARATORS) + 1
    if word > 0 and len(value) - word + 2 <= width:
        start = word  # keep the whole word that differs
    tail = value[start:]
    head = width - 1 - len(tail)
    if head >= 1:
        return value[:head] + "…" + tail
    half = (width - 1) // 2  # the differing part alone is too long: head and tail of it
    return value[:half] + "…" + value[len(value) - (width - 1 - half) :]


def abbreviate(values: list[str], width: int) -> dict[str, str]:
    """Each distinct value of ``values`` in at most ``width`` characters, shortened where it
    is the same as the others, so that different values stay different where they can."""
    distinct = list(dict.fromkeys(values))
    return {v: _shorten(v, [o for o in distinct if o != v], width) for v in distinct}


def _relabel(column: Column, width: int) -> Column:
    short = abbreviate(list(column.cells), width)
    return replace(column, cells=tuple(short[c] for c in column.cells))


def fit(
    columns: list[Column], width: int | None, chosen: bool = False
) -> tuple[list[Column], list[str], list[str]]:
    """``(columns kept, title parts, names left out)`` of a table that fits ``width``
    characters (None: any width); ``chosen``: the columns were picked by hand (none moves to
    the title)."""
    title: list[str] = []
    kept = [c for c in columns if not (c.label and not any(c.cells))]  # no value at all
    labels = [c for c in kept if c.label]
    if not chosen and len(labels) > 1:
        constant = [c for c in labels if len(set(c.cells)) == 1]
        if len(constant) == len(labels):  # one label stays to name the rows: the agent's
            named = [c for c in constant if c.name == "provider" and any(c.cells)]
            constant.remove(named[0] if named else constant[0])
        for column in constant:
            title.append(f"{column.header} {column.cells[0]}")
        kept = [c for c in kept if c not in constant]
    dropped: list[str] = []
    if width is None or table_width(kept) <= width:
        return kept, title, dropped

    def drop(columns: list[Column]) -> bool:
        for column in columns:
            kept.remove(column)
            dropped.append(column.name)
            if table_width(kept) <= width:
                return True
        return False

    if drop([c for c in kept if c.optional]):
        return kept, title, dropped
    metrics = sorted((c for c in kept if not c.label), key=lambda c: -kept.index(c))
    if drop([c for c in metrics if c.priority >= 3]):
        return kept, title, dropped
    original = list(kept)
    longest = max((c.width for c in kept if c.label), default=0)
    for target in range(longest - 1, MIN_LABEL - 1, -1):
        kept[:] = [_relabel(c, target) if c.label and c.width > target else c for c in original]
        if table_width(kept) <= width:
            return kept, title, dropped
    drop(sorted((c for c in kept if not c.label), key=lambda c: (-c.priority, -kept.index(c))))
    return kept, title, dropped
