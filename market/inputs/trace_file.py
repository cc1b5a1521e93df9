"""A trace file's lines, read within bounds: plain or gzip (recognised by its magic bytes),
decompressed as a stream that stops at :data:`~market.inputs.limits.MAX_TRACE_BYTES`, so a
small compressed file that would expand to gigabytes (a gzip bomb) costs no more than the limit.

A file is refused, in one line naming it (and the line, where there is one), when it
decompresses to more than that; when it holds a NUL byte (UTF-16 or binary, not SWF text); when
a line is longer than :data:`~market.inputs.limits.MAX_LINE_CHARS` (an SWF record is about a
hundred characters: a longer line is no record, and parsing it would cost out of all proportion);
or when its gzip stream is damaged. Text is UTF-8, else Latin-1 (old headers have it; data
lines are checked for ASCII by the parser). Parsing is :mod:`market.inputs.swf`.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path

from market.inputs.limits import MAX_LINE_CHARS, MAX_TRACE_BYTES
from market.inputs.os_errors import reason

CHUNK = 1 << 20  # bytes decompressed at a time


class SwfError(ValueError):
    """A trace that cannot be read; the message is one line, ``"FILE:LINE: message"`` for a
    malformed line."""


def read_lines(path: Path, limit: int = MAX_TRACE_BYTES) -> list[str]:
    """The lines of the trace file at ``path`` (without their ends; ``\\r\\n`` counts as one)."""
    data = _read_bytes(path, limit)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # old headers are not always UTF-8; data lines are ASCII
    del data
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    del text
    if max(map(len, lines), default=0) > MAX_LINE_CHARS:
        number = next(i for i, line in enumerate(lines) if len(line) > MAX_LINE_CHARS) + 1
        raise SwfError(
            f"{path}:{number}: a line of {len(lines[number - 1]):,} characters, more than the "
            f"{MAX_LINE_CHARS:,} any SWF line may have"
        )
    return lines


def _read_bytes(path: Path, limit: int) -> bytearray:
    """The file's bytes, decompressed if it is gzip, at most ``limit`` of them (else an error)."""
    data = bytearray()
    for chunk in read_chunks(path, limit):
        data += chunk
    return data


def read_chunks(path: Path, limit: int = MAX_TRACE_BYTES) -> Iterator[bytes]:
    """The file's bytes, decompressed if it is gzip, a chunk at a time, at most ``limit`` of
    them: an error (the module docstring's) is raised when the reading comes to it."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed below, whatever happens)
    except FileNotFoundError:
        raise SwfError(f"{path}: no such trace file") from None
    except (OSError, ValueError) as exc:  # (a NUL byte in the name is a ValueError)
        raise SwfError(f"{path}: cannot read ({reason(exc)})") from None
    size = 0
    lines = 1  # the line the next byte is on
    compressed = False
    try:
        with handle:
            compressed = handle.read(2) == b"\x1f\x8b"
            handle.seek(0)
            stream = gzip.GzipFile(fileobj=handle) if compressed else handle
            while chunk := stream.read(CHUNK):
                size += len(chunk)
                if size > limit:
                    grown = " once decompressed" if compressed else ""
                    raise SwfError(
                        f"{path}: more than {limit:,} bytes{grown}, the most a trace may hold "
                        "(market.inputs.limits)"
                    )
                nul = chunk.find(b"\x00")
                if nul >= 0:
                    line = lines + chunk.count(b"\n", 0, nul)
                    raise SwfError(
                        f"{path}:{line}: not an SWF text file (a NUL byte: UTF-16 or binary?)"
                    )
                lines += chunk.count(b"\n")
                yield chunk
    except (OSError, EOFError, zlib.error) as exc:
        if compressed:
            raise SwfError(f"{path}: not a valid gzip file ({exc})") from None
        raise SwfError(f"{path}: cannot read ({reason(exc)})") from None
