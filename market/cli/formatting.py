"""How the command line prints a number in a table: thousands separators, a fixed number of
decimals, and ``-`` for an undefined value (NaN); and how wide a table is drawn (the terminal's
width on a terminal, a fixed one in a file or pipe)."""

from __future__ import annotations

import math
from typing import Any, TextIO


def cell(value: Any, decimals: int = 1) -> str:
    """``value`` as a table cell: a float with ``decimals`` decimals (``-`` for NaN), anything
    else as ``str``."""
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:,.{decimals}f}"
    return str(value)


def console_width(out: TextIO, fixed: int) -> int | None:
    """The width to draw a rich table on ``out``: None (rich measures the terminal) on a
    terminal, ``fixed`` in a file or pipe."""
    return None if out.isatty() else fixed
