"""An SWF file's records read as a stream: the fast path of :func:`market.inputs.swf.read_swf`.

The file is decompressed a chunk at a time (:func:`market.inputs.trace_file.read_chunks`, with
its bounds) and its data lines parsed by pandas' C parser a block of :data:`BLOCK` lines at a
time, so that neither the file's text nor its lines are ever held whole: only the records'
numbers grow. Anything unusual (a carriage return, a data line that is not ASCII, a line longer
than any record, more records than a trace may hold, a block that is not 18 finite numbers a
line with whole counts, each at most :data:`~market.inputs.limits.MAX_TRACE_VALUE` in size)
gives None, and the whole-file reader reads the file again to name the problem in the one-line
error it always gave.
"""

from __future__ import annotations

import io
from array import array
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from market.inputs.limits import MAX_LINE_CHARS, MAX_TRACE_RECORDS, MAX_TRACE_VALUE
from market.inputs.trace_file import read_chunks

#: The 18 SWF fields, in file order (SWF v2.2 field names, shortened).
FIELDS: tuple[str, ...] = (
    "job",  # 1 job number
    "submit",  # 2 submit time, s
    "wait",  # 3 wait time, s
    "runtime",  # 4 run time, s
    "procs",  # 5 number of allocated processors
    "cpu_time",  # 6 average CPU time used, s
    "memory",  # 7 used memory, KB per processor
    "req_procs",  # 8 requested number of processors
    "req_time",  # 9 requested time (the user's runtime estimate), s
    "req_memory",  # 10 requested memory, KB per processor
    "status",  # 11 1 completed, 0 failed, 5 cancelled; 2/3/4 partial executions
    "user",  # 12 user id
    "group",  # 13 group id
    "executable",  # 14 executable (application) number
    "queue",  # 15 queue number
    "partition",  # 16 partition number
    "preceding_job",  # 17 preceding job number
    "think_time",  # 18 think time from the preceding job, s
)

#: Fields that count or name things and so must be whole numbers (their column positions).
WHOLE_FIELDS = ("job", "procs", "req_procs", "status")
WHOLE_AT = [FIELDS.index(f) for f in WHOLE_FIELDS]

#: Characters of the longest data line the fast parses take (a record has about 100: thousands
#: of fields a line would cost pandas gigabytes; the slow parse names such a line).
MAX_RECORD_CHARS = 512

BLOCK = 16_384  # data lines parsed at a time (at least: a chunk's lines are parsed together)


def parse_block(text: str | bytes, lines: int) -> np.ndarray | None:
    """The ``lines`` data lines of ``text`` (joined by newlines) as a ``lines x 18`` float
    array (-1 as written), or None if any line is not 18 finite numbers with whole counts."""
    buffer = io.BytesIO(text) if isinstance(text, bytes) else io.StringIO(text)
    try:
        frame = pd.read_csv(
            buffer,
            sep=r"\s+",
            header=None,
            names=list(FIELDS),
            dtype=np.float64,
            engine="c",
            skip_blank_lines=False,
            na_filter=False,  # "nan" is not a number here
        )
    except (ValueError, pd.errors.ParserError):
        return None
    if not isinstance(frame.index, pd.RangeIndex):  # lines of more than 18 fields: the extra
        return None  # leading ones became the index
    values = frame.to_numpy()
    # A short line fills with NaN; "inf" parses but is not a number of a record.
    if len(frame) != lines or not np.isfinite(values).all():
        return None
    if (values[:, WHOLE_AT] % 1 != 0).any():
        return None
    if len(values) and (values.max() > MAX_TRACE_VALUE or values.min() < -MAX_TRACE_VALUE):
        return None
    return values


def read_streamed(
    path: Path, max_records: int = MAX_TRACE_RECORDS, fields: Sequence[str] = FIELDS
) -> tuple[list[str], np.ndarray, np.ndarray] | None:
    """``(header lines without their ";", records as an n x len(fields) array of those fields,
    each record's line)`` of the file at ``path``, or None where anything is unusual (see the
    module docstring; more than ``max_records`` records is). Every field of every line is
    checked; only ``fields`` are kept."""
    columns = [FIELDS.index(f) for f in fields]
    every = columns == list(range(len(FIELDS)))
    comments: list[bytes] = []
    numbers = array("q")
    blocks: list[np.ndarray] = []
    block: list[bytes] = []
    tail, line = b"", 0
    for chunk in _with_end(read_chunks(path)):
        if chunk is None:  # the end: the last line, if it has no newline
            pieces = [tail] if tail else []
        else:
            if b"\r" in chunk:
                return None
            pieces = (tail + chunk).split(b"\n")
            tail = pieces.pop()
        for text in pieces:
            line += 1
            if len(text) > MAX_LINE_CHARS:
                return None
            stripped = text.lstrip()
            if not stripped:
                continue
            if stripped[0] == 59:  # ";": a header line
                comments.append(text)
                continue
            if len(text) > MAX_RECORD_CHARS or not text.isascii() or len(numbers) >= max_records:
                return None
            block.append(text)
            numbers.append(line)
        if block and (len(block) >= BLOCK or chunk is None):
            values = parse_block(b"\n".join(block), len(block))
            if values is None:
                return None
            blocks.append(values if every else values[:, columns])
            block = []
    raw = b"\n".join(comments)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")  # (as the whole-file reader decodes)
    header = [c.lstrip()[1:] for c in text.split("\n")] if comments else []
    values = np.concatenate(blocks) if blocks else np.empty((0, len(columns)))
    return header, values, np.frombuffer(numbers, dtype=np.int64).copy()


def _with_end(chunks):
    """The chunks, then None."""
    yield from chunks
    yield None
