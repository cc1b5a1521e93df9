"""The tables ``gridmarket run`` prints: the provider table (a row per variant and service
provider), then the market table (:func:`market.results.market_metrics.market_table`) where the run
is a
market. Which ones, and which columns, :mod:`market.results.outputs` decides from the run itself."""

from __future__ import annotations

import math

import pandas as pd

from market.cli.formatting import cell
from market.results.outputs import (
    MARKET_COUNTS,
    for_display,
    market_columns,
    market_for_display,
    market_shown,
    table_columns,
)


def print_run_tables(summary: pd.DataFrame, market: pd.DataFrame, name: str, out) -> None:
    """The provider table of ``summary`` and, where it says more, the market table of
    ``market`` (both with ``variant`` and ``seed`` columns), titled by scenario ``name``."""
    seed = summary["seed"].iloc[0]
    print_table(for_display(summary), table_columns(summary), f"{name} (seed {seed})", out)
    if market_shown(summary, market):
        shown = market_for_display(market)
        columns = market_columns(shown)

        def cells(row):  # a blank where the row's kind has no such figure; counts as integers
            for column, value in zip(columns, row, strict=True):
                blank = isinstance(value, float) and math.isnan(value)
                yield "" if blank else cell(value, 0 if column in MARKET_COUNTS else 1)

        print_table(shown, columns, f"market (seed {seed})", out, cells)


def print_table(frame: pd.DataFrame, columns: dict[str, str], title: str, out, cells=None) -> None:
    """``frame``'s ``columns`` (``{column: header}``) as a rich table, numbers right-aligned;
    ``cells`` formats a row's cells (default: :func:`cell` of each)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for column, label in columns.items():
        numeric = pd.api.types.is_numeric_dtype(frame[column])
        table.add_column(label, justify="right" if numeric else "left")
    for row in frame[list(columns)].itertuples(index=False):
        table.add_row(*(cells(row) if cells else (cell(value) for value in row)))
    width = None if getattr(out, "isatty", lambda: False)() else 200
    Console(file=out, width=width).print(table)
