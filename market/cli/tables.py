"""The tables ``gridmarket run`` prints: the provider table (a row per variant and service
provider), the site table (a row per batch site, VARQ user and site broker) where the run has
batch sites, then the market table (:func:`market.results.market_metrics.market_table`) where the
run is a market. Which columns, their headers and decimals come from the metric registry through
:mod:`market.results.outputs`; :mod:`market.cli.layout` fits them to the terminal.

The width is ``COLUMNS`` where it is set, else the terminal's; in a pipe without ``COLUMNS``
the tables take the width they need. ``--columns a,b,c`` picks the columns of every table by
name (those a table does not have are skipped there).
"""

from __future__ import annotations

import math
import os
import shutil
import textwrap
from typing import TextIO

import numpy as np
import pandas as pd

from market.cli.formatting import cell
from market.cli.layout import Column, fit, table_width
from market.core.suggest import did_you_mean
from market.results.metrics import METRICS
from market.results.outputs import (
    MARKET_LABELS,
    PROVIDER_LABELS,
    SITE_LABELS,
    for_display,
    market_columns,
    market_for_display,
    market_shown,
    site_columns,
    sites_for_display,
    table_columns,
)

OPTIONAL = ("scheduler", "admission")  # a variant's label names them
#: No frame; a rule under the headers, broken between columns so that each column's extent
#: shows (rich's box characters: top, head, head row, mid, row, foot row, foot, bottom).
COMPACT = "    \n    \n ─  \n    \n    \n    \n    \n    \n"


def known_columns() -> set[str]:
    """Every name ``--columns`` accepts: the tables' labels and the registered metrics."""
    return {*PROVIDER_LABELS, *SITE_LABELS, *MARKET_LABELS, *(m.name for m in METRICS)}


def chosen_columns(text: str | None) -> list[str] | None:
    """The names of ``--columns a,b,c`` (None: not given); ValueError naming an unknown one."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ValueError("name at least one column")
    known = known_columns()
    for name in names:
        if name not in known:
            near = did_you_mean(name, sorted(known))
            raise ValueError(f"unknown column {name!r}{near} (have: {', '.join(sorted(known))})")
    return names


def run_frames(
    summaries: list[pd.DataFrame], sites: list[pd.DataFrame], markets: list[pd.DataFrame]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The summary, site and market frames of every variant of a run (each with ``variant`` and
    ``seed``) as one frame each, those first, the summary with the metrics that compare runs
    (the registry's ``derive``: VQoPS's revenue gain over the QoPS variant of the same seed)."""
    summary = METRICS.derive(pd.concat(summaries, ignore_index=True), ["seed", "provider"])
    frames = [summary, pd.concat(sites, ignore_index=True), pd.concat(markets, ignore_index=True)]
    summary, site_rows, market = (
        f[["variant", "seed", *[c for c in f if c not in ("variant", "seed")]]] for f in frames
    )
    return summary, site_rows, market


def run_records(summary: pd.DataFrame, sites: pd.DataFrame) -> pd.DataFrame:
    """What ``--format json|csv`` print: the summary's rows, then the site rows, a ``table``
    column (``providers`` or ``sites``) telling them apart where there are site rows."""
    if sites.empty:
        return summary
    parts = [summary.assign(table="providers"), sites.assign(table="sites")]
    frame = pd.concat([p for p in parts if len(p)], ignore_index=True)
    return frame[["table", *[c for c in frame if c != "table"]]]


def terminal_width(out: TextIO) -> int | None:
    """The width to fit: ``COLUMNS`` if set, else the terminal's, None in a pipe."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    if out.isatty():
        return shutil.get_terminal_size().columns
    return None


def print_run_tables(
    summary: pd.DataFrame,
    sites: pd.DataFrame,
    market: pd.DataFrame,
    name: str,
    out: TextIO,
    chosen: list[str] | None = None,
) -> None:
    """The provider table of ``summary``, the site table of ``sites`` and, where it says more,
    the market table of ``market`` (each with ``variant`` and ``seed`` columns), titled by
    scenario ``name``; only the ``chosen`` columns if given."""
    width = terminal_width(out)
    frames = [summary, sites, market]
    seed = next(f["seed"].iloc[0] for f in frames if f is not None and len(f) and "seed" in f)
    tables = []  # (frame, columns, title, options)
    if len(summary):
        shown = for_display(summary)
        columns = _pick(table_columns(summary), chosen, shown, PROVIDER_LABELS)
        tables.append((shown, columns, f"{name} (seed {seed})", {"skip": name}))
    if sites is not None and len(sites):
        shown = sites_for_display(sites)
        columns = _pick(site_columns(sites), chosen, shown, SITE_LABELS)
        tables.append((shown, columns, f"{name}: batch sites (seed {seed})", {"skip": name}))
    if len(summary) and market_shown(summary, market):
        shown = market_for_display(market)
        columns = _pick(market_columns(shown), chosen, shown, MARKET_LABELS)
        tables.append((shown, columns, f"market (seed {seed})", {"blank": True}))
    for i, (frame, columns, title, options) in enumerate(tables):
        if i:
            out.write("\n")  # a blank line between two tables
        print_table(frame, columns, title, out, width, chosen, **options)


def _pick(
    columns: dict[str, str], chosen: list[str] | None, frame: pd.DataFrame, labels: dict
) -> dict[str, str]:
    """``columns`` (what the run shows), or the ``chosen`` columns ``frame`` has, in that
    order, with their headers."""
    if not chosen:
        return columns
    picked = {}
    for name in chosen:
        if name in frame:
            metric = METRICS.get(name)
            picked[name] = labels.get(name) or (metric.header if metric else name)
    return picked


def _cells(frame: pd.DataFrame, column: str, blank: bool) -> tuple[str, ...]:
    """The cells of ``column``: numbers with the registry's decimals, ``-`` for NaN (blank
    where ``blank``: a row of a kind without the figure)."""
    metric = METRICS.get(column)
    decimals = metric.decimals if metric is not None else 1
    out = []
    for value in frame[column].tolist():
        if isinstance(value, float) and math.isnan(value):
            out.append("" if blank else "-")
        elif isinstance(value, int | np.integer) and not isinstance(value, bool):
            out.append(f"{value:,}")
        elif metric is not None and metric.type is int and isinstance(value, float):
            out.append(cell(value, 0))
        elif value is None:
            out.append("")
        else:
            out.append(cell(value, decimals))
    return tuple(out)


def print_table(
    frame: pd.DataFrame,
    columns: dict[str, str],
    title: str,
    out: TextIO,
    width: int | None = None,
    chosen: list[str] | None = None,
    blank: bool = False,
    skip: str | None = None,
) -> None:
    """``frame``'s ``columns`` (``{column: header}``) fitted to ``width`` (:mod:`market.cli.layout`)
    as a rich table under its title, numbers right-aligned, what was left out listed under it. A
    constant label equal to ``skip`` (the scenario's name, already in the title) is not
    repeated."""
    from rich.box import Box
    from rich.console import Console
    from rich.table import Table

    table_columns = [
        Column(
            name,
            header,
            _cells(frame, name, blank),
            label=not pd.api.types.is_numeric_dtype(frame[name]),
            optional=name in OPTIONAL,
            priority=METRICS[name].priority if name in METRICS else 1,
        )
        for name, header in columns.items()
        if name in frame
    ]
    kept, parts, dropped = fit(table_columns, width, chosen=bool(chosen))
    parts = [p for p in parts if p != f"variant {skip}"]
    heading = " · ".join([title, *parts])
    table = Table(box=Box(COMPACT), pad_edge=False, show_edge=False, collapse_padding=True)
    for column in kept:
        justify = "left" if column.label else "right"
        table.add_column(column.header, justify=justify, no_wrap=True, min_width=column.width)
    for row in zip(*(c.cells for c in kept), strict=True):
        table.add_row(*row)
    lines = [heading]
    if dropped:
        limit = f" to fit {width} columns" if width else ""
        lines.append(f"not shown{limit}: {', '.join(dropped)} (--columns picks them)")
    wrap = (lambda text: textwrap.fill(text, width)) if width else (lambda text: text)
    out.write(wrap(lines[0]) + "\n")
    Console(file=out, width=table_width(kept), highlight=False).print(table)
    for line in lines[1:]:
        out.write(wrap(line) + "\n")
