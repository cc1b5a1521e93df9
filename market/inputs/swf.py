"""Reading and writing traces in the Standard Workload Format (SWF) of the Parallel Workloads
Archive: a header of ``;`` comment lines and one line of 18 numbers per job (:data:`FIELDS`),
``-1`` unknown, times in seconds. Read within bounds (:mod:`market.inputs.trace_file`: size once
decompressed, line length, NUL bytes, damaged gzip; :mod:`market.inputs.limits`: records, values);
a line of more or fewer than 18 fields is an error naming it, never a silent shift.

:func:`read_swf` reads a file (gzip or plain, by its magic bytes) into a :class:`SwfTrace`: the
header, its raw lines and the records as 18 float columns, ``NaN`` for unknown; pandas' C parser
reads a well-formed file, and a malformed one is re-read line by line to name the first bad line
(``FILE:LINE: message``) or, with ``skip_bad``, to count every bad line. A line is malformed when
it has not 18 fields, a field is not a finite number or is beyond ``MAX_TRACE_VALUE`` in size
(1e30 s), or a count is not whole (3.5 processors);
NUL or non-ASCII bytes in a data line are not SWF; a Latin-1 header is read as such.
:meth:`SwfTrace.select` applies :mod:`market.inputs.trace_selection`; :func:`write_swf` writes
records back, read again as the same values.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from market.inputs.limits import MAX_TRACE_RECORDS, MAX_TRACE_VALUE
from market.inputs.swf_stream import (
    FIELDS,
    MAX_RECORD_CHARS,
    WHOLE_AT,
    WHOLE_FIELDS,
    parse_block,
    read_streamed,
)
from market.inputs.trace_file import SwfError, read_lines
from market.inputs.trace_selection import DropReport, SelectionRules, TooWideError, select_records

__all__ = [
    "FIELDS", "WHOLE_FIELDS", "SwfError", "SwfTrace", "parse_header", "read_swf", "require_jobs",
    "write_swf",
]  # fmt: skip

#: Header keys whose value starts with an integer (``; MaxNodes: 338 (batch partition)`` -> 338).
INT_HEADER_KEYS = frozenset(
    {
        "MaxJobs", "MaxRecords", "MaxNodes", "MaxProcs", "UnixStartTime", "TimeZone",
        "MaxRuntime", "MaxMemory", "MaxQueues", "MaxPartitions",
    }
)  # fmt: skip

_KEY_LINE = re.compile(r"^;\s?([A-Za-z][A-Za-z0-9_]*)\s*:\s?(.*)$")
_LEADING_INT = re.compile(r"^\s*([+-]?\d+)")


@dataclass(slots=True)
class SwfTrace:
    """An SWF file as read: header, raw header lines, and every well-formed record.

    Attributes:
        path: where it was read from (None if built in memory).
        header: ``{key: value}`` from ``; Key: value`` lines. Integer keys (:data:`INT_HEADER_KEYS`)
            hold their leading number; keys that occur more than once (``Note``, ``Queue``) hold
            a list of strings; continuation lines (comments without a key) extend the value
            before them, joined by newlines.
        comments: the header lines as written, without their leading ``;`` (for writing back).
        records: one row per record, the 18 :data:`FIELDS` as float64 columns, ``NaN`` = -1.
        malformed: lines skipped as malformed (only with ``skip_bad=True``).
        line_numbers: the file line (1-based) of each record, for messages.
    """

    path: Path | None
    header: dict[str, Any]
    comments: list[str]
    records: pd.DataFrame
    malformed: int = 0
    line_numbers: np.ndarray | None = None

    @property
    def max_procs(self) -> int | None:
        """The machine size from the header: ``MaxProcs``, else ``MaxNodes`` (None if neither)."""
        for key in ("MaxProcs", "MaxNodes"):
            value = self.header.get(key)
            if isinstance(value, int) and value > 0:
                return value
        return None

    @property
    def name(self) -> str:
        """The file name, without ``.gz`` and ``.swf``."""
        if self.path is None:
            return "trace"
        return self.path.name.removesuffix(".gz").removesuffix(".swf")

    def select(
        self, max_procs: int | None = None, rules: SelectionRules | None = None
    ) -> tuple[pd.DataFrame, DropReport]:
        """The records a simulation uses and why the others were dropped (the rules of
        :mod:`market.inputs.trace_selection`); ``max_procs`` defaults to :attr:`max_procs`. A job
        too
        wide under ``too_wide="error"`` is an :class:`SwfError` naming its line."""
        size = self.max_procs if max_procs is None else max_procs
        preemption = self.header.get("Preemption")
        try:
            return select_records(
                self.records, size, self.malformed, rules, preemption=str(preemption or "")
            )
        except TooWideError as exc:
            line = "" if self.line_numbers is None else f":{self.line_numbers[exc.index]}"
            raise SwfError(f"{self.path or 'trace'}{line}: {exc}") from None


# -- reading --------------------------------------------------------------------------------------
def require_jobs(path: str | os.PathLike[str], report: DropReport) -> None:
    """A one-line :class:`SwfError` unless a selection kept a job: a trace of no records (empty,
    a header only) or whose every record was dropped would run as an empty market."""
    if report.total == 0:
        raise SwfError(f"{path}: no job records (an empty file, or a header only: cut short?)")
    if report.kept == 0:
        raise SwfError(f"{path}: no job to run: every record dropped ({report})")


def parse_header(comments: Iterable[str]) -> dict[str, Any]:
    """``{key: value}`` from header lines (without their ``;``), as in :attr:`SwfTrace.header`."""
    header: dict[str, Any] = {}
    last: str | None = None
    for comment in comments:
        match = _KEY_LINE.match(";" + comment)
        if match is None:  # a continuation of the value before it
            text = comment.strip()
            if last is not None and text:
                value = header[last]
                if isinstance(value, list):
                    value[-1] = f"{value[-1]}\n{text}" if value[-1] else text
                elif isinstance(value, str):
                    header[last] = f"{value}\n{text}" if value else text
            continue
        key, value = match.group(1), match.group(2).strip()
        last = key
        if key in INT_HEADER_KEYS and key not in header:
            number = _LEADING_INT.match(value)
            if number is not None:
                header[key] = int(number.group(1))
                last = None  # e.g. "MaxNodes: 338 (batch partition)": nothing to continue
                continue
        if key in header:
            previous = header[key]
            header[key] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            header[key] = value
    return header


def read_swf(
    path: str | os.PathLike[str], *, skip_bad: bool = False, fields: Sequence[str] = FIELDS
) -> SwfTrace:
    """Read an SWF file (plain or gzip).

    A malformed data line (not 18 fields, a field that is not a finite number, a count that is
    not whole, non-ASCII text) raises
    :class:`SwfError` naming the file and line, unless ``skip_bad`` is true: then it is skipped
    and counted in :attr:`SwfTrace.malformed`. The records keep only ``fields`` (in the file's
    order; every field is still checked), e.g. the ones a selection reads.
    """
    path = Path(path)
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise ValueError(f"not SWF fields: {', '.join(sorted(unknown))} (see FIELDS)")
    fields = [f for f in FIELDS if f in fields]
    streamed = read_streamed(path, MAX_TRACE_RECORDS, fields)  # (None: anything unusual)
    if streamed is not None:
        comments, values, numbers = streamed
        records = _frame(values, fields, copy=False)
        return SwfTrace(path, parse_header(comments), comments, records, 0, numbers)
    lines = read_lines(path)
    comments: list[str] = []
    data_at: list[int] = []
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if not stripped:
            continue
        if stripped[0] == ";":
            comments.append(stripped[1:])
        else:
            data_at.append(i)
    if len(data_at) > MAX_TRACE_RECORDS:
        raise SwfError(
            f"{path}: {len(data_at):,} records, more than the {MAX_TRACE_RECORDS:,} a trace may "
            "hold (market.inputs.limits)"
        )
    header = parse_header(comments)
    records = _parse_fast([lines[i] for i in data_at])
    malformed = 0
    if records is None:
        values, good = _parse_slow(path, lines, data_at, skip_bad)
        malformed = len(data_at) - len(good)
        data_at = good
        records = _frame(values)
    if len(fields) < len(FIELDS):
        records = records[fields]
    numbers = np.asarray(data_at, dtype=np.int64) + 1
    return SwfTrace(path, header, comments, records, malformed, numbers)


BLOCK_LINES = 65536  # lines parsed at a time


def _parse_fast(data: list[str]) -> pd.DataFrame | None:
    """Every line by pandas' C parser, or None if any line is malformed (then parse slowly)."""
    if not data:
        return _frame(np.empty((0, len(FIELDS))))
    # Thousands of fields a line would cost gigabytes (pandas makes the extra ones an index):
    # such lines are no records, and the slow parse names the first.
    if len(data[0].split()) != len(FIELDS) or max(map(len, data)) > MAX_RECORD_CHARS:
        return None
    values = np.empty((len(data), len(FIELDS)))
    for at in range(0, len(data), BLOCK_LINES):  # (a block at a time: the whole text at once
        block = data[at : at + BLOCK_LINES]  # held 6 times its size)
        try:
            text = "\n".join(block).encode("ascii")  # non-ASCII: the slow parse names it
        except UnicodeEncodeError:
            return None
        parsed = parse_block(text, len(block))
        if parsed is None:
            return None
        values[at : at + len(block)] = parsed
    return _frame(values)


def _parse_slow(
    path: Path, lines: list[str], data_at: list[int], skip_bad: bool
) -> tuple[np.ndarray, list[int]]:
    rows: list[list[float]] = []
    good: list[int] = []
    for i in data_at:
        tokens = lines[i].split()
        problem = None
        if not lines[i].isascii():
            k, char = next((k, c) for k, c in enumerate(lines[i]) if not c.isascii())
            problem = f"not ASCII text ({char!a} at column {k + 1}): not an SWF data line"
        elif len(tokens) != len(FIELDS):
            problem = f"expected {len(FIELDS)} fields, found {len(tokens)}"
        else:
            row = []
            for k, token in enumerate(tokens):
                try:
                    value = float(token)
                except ValueError:
                    value = math.nan
                if not math.isfinite(value):
                    problem = f"field {k + 1} ({FIELDS[k]}) is not a number: {token[:20]!r}"
                    break
                if abs(value) > MAX_TRACE_VALUE:
                    problem = (
                        f"field {k + 1} ({FIELDS[k]}) is {token[:20]}, beyond the "
                        f"{MAX_TRACE_VALUE:g} a trace's field may be in size"
                    )
                    break
                if k in WHOLE_AT and not value.is_integer():
                    problem = f"field {k + 1} ({FIELDS[k]}) is not a whole number: {token[:20]}"
                    break
                row.append(value)
        if problem is not None:
            if skip_bad:
                continue
            raise SwfError(f"{path}:{i + 1}: {problem}")
        rows.append(row)
        good.append(i)
    values = np.array(rows, dtype=np.float64).reshape(len(rows), len(FIELDS))
    return values, good


def _frame(values: np.ndarray, fields: Sequence[str] = FIELDS, copy: bool = True) -> pd.DataFrame:
    """The records' frame of ``fields`` (``values`` changed in place, and kept, unless
    ``copy``)."""
    values = values.copy() if copy else values
    values[values == -1] = np.nan  # -1 is "unknown" in every field
    return pd.DataFrame(values, columns=list(fields), copy=False)


# -- writing --------------------------------------------------------------------------------------
def format_header(header: Mapping[str, Any]) -> list[str]:
    """Header lines (without ``;``) for ``{key: value}``: lists give one line per item and
    multi-line values continue on indented lines."""
    out = []
    for key, value in header.items():
        for item in value if isinstance(value, list) else [value]:
            first, *rest = str(item).split("\n")
            out.append(f" {key}: {first}")
            out.extend(f"   {line}" for line in rest)
    return out


def write_swf(
    path: str | os.PathLike[str],
    records: pd.DataFrame | SwfTrace,
    header: Mapping[str, Any] | Iterable[str] | None = None,
) -> Path:
    """Write ``records`` (a frame with the 18 :data:`FIELDS`, NaN for unknown) as SWF.

    ``header`` is a ``{key: value}`` dict (written as ``; Key: value``) or raw header lines
    (without ``;``); an :class:`SwfTrace` brings its own lines. A path ending in ``.gz`` is
    gzip-compressed. Values are written with up to 15 significant digits, integers without a
    decimal point, unknown as -1, so that :func:`read_swf` gives the same values back.
    """
    path = Path(path)
    if isinstance(records, SwfTrace):
        if header is None:
            header = records.comments
        records = records.records
    missing = [f for f in FIELDS if f not in records.columns]
    if missing:
        raise SwfError(f"{path}: records lack SWF field(s) {', '.join(missing)}")
    if header is None:
        lines: list[str] = []
    elif isinstance(header, Mapping):
        lines = format_header(header)
    else:
        lines = list(header)
    buffer = io.StringIO()
    for line in lines:
        buffer.write(f";{line}\n")
    values = records[list(FIELDS)].to_numpy(dtype=np.float64, copy=True)
    values[np.isnan(values)] = -1
    pd.DataFrame(values).to_csv(
        buffer, sep=" ", header=False, index=False, float_format="%.15g", lineterminator="\n"
    )
    data = buffer.getvalue().encode("latin-1")
    try:
        if path.suffix == ".gz":
            data = gzip.compress(data, mtime=0)
        path.write_bytes(data)
    except OSError as exc:
        raise SwfError(f"{path}: cannot write ({exc.strerror})") from None
    return path
