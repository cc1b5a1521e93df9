"""How the command line prints a number in a table: thousands separators, a fixed number of
decimals, and ``-`` for an undefined value (NaN)."""

from __future__ import annotations

import math
from typing import Any


def cell(value: Any, decimals: int = 1) -> str:
    """``value`` as a table cell: a float with ``decimals`` decimals (``-`` for NaN), anything
    else as ``str``."""
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:,.{decimals}f}"
    return str(value)
