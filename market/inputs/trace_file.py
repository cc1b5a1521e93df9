"""A trace file's lines, read within bounds: plain or gzip (recognised by its magic bytes),
decompressed as a stream that stops at :data:`~market.inputs.limits.MAX_TRACE_BYTES` or
:data:`~market.inputs.limits.MAX_TRACE_LINES`, so a small compressed file that would expand to
gigabytes (a gzip bomb), or to millions of tiny lines, costs no more than the limits.

A file is refused, in one line naming it (and the line, where there is one), when it
decompresses to more than that; when it holds a NUL byte (UTF-16 or binary, not SWF text); when
a line is longer than :data:`~market.inputs.limits.MAX_LINE_CHARS` (an SWF record is about a
hundred characters: a longer line is no record, and parsing it would cost out of all proportion);
or when its gzip stream is damaged. Text is UTF-8, else Latin-1 (old headers have it; data
lines are checked for ASCII by the parser). Parsing is :mod:`market.inputs.swf`.
"""

from __future__ import annotations

import codecs
import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path

from market.inputs.limits import MAX_LINE_CHARS, MAX_TRACE_BYTES, MAX_TRACE_LINES
from market.inputs.os_errors import reason

CHUNK = 1 << 20  # bytes decompressed at a time


class SwfError(ValueError):
    """A trace that cannot be read; the message is one line, ``"FILE:LINE: message"`` for a
    malformed line."""


def read_lines(path: Path, limit: int = MAX_TRACE_BYTES) -> list[str]:
    """The lines of the trace file at ``path`` (without their ends; ``\\r\\n`` counts as one),
    decoded as they stream in: only the lines are held, never the whole text as well."""
    try:
        return _decoded(path, limit, "utf-8")
    except UnicodeDecodeError:  # old headers are not always UTF-8; data lines are ASCII
        return _decoded(path, limit, "latin-1")


def _decoded(path: Path, limit: int, encoding: str) -> list[str]:
    lines: list[str] = []
    decoder = codecs.getincrementaldecoder(encoding)()
    rest = ""  # the line being read
    long_at, long_chars, tail = 0, 0, ""  # a line too long (its number): only counted on
    for chunk in _chunks(path, limit):
        text = decoder.decode(chunk)
        if long_at:
            end = text.find("\n")
            if end >= 0:  # (its \r\n may straddle two chunks)
                cr = (text[:end] or tail).endswith("\r")
                raise _too_long(path, long_at, long_chars + end - cr)
            long_chars, tail = long_chars + len(text), text[-1:] or tail
            continue
        parts = (rest + text).split("\n")
        rest = parts.pop()
        parts = [line[:-1] if line.endswith("\r") else line for line in parts]
        if parts and max(map(len, parts)) > MAX_LINE_CHARS:
            k = next(k for k, line in enumerate(parts) if len(line) > MAX_LINE_CHARS)
            raise _too_long(path, len(lines) + k + 1, len(parts[k]))
        lines += parts
        if len(rest) > MAX_LINE_CHARS:
            long_at, long_chars, tail, rest = len(lines) + 1, len(rest), rest[-1], ""
    last = rest + decoder.decode(b"", final=True)
    if long_at or len(last) > MAX_LINE_CHARS:
        raise _too_long(path, long_at or len(lines) + 1, long_chars + len(last))
    lines.append(last)
    return lines


def _too_long(path: Path, number: int, chars: int) -> SwfError:
    return SwfError(
        f"{path}:{number}: a line of {chars:,} characters, more than the {MAX_LINE_CHARS:,} any "
        "SWF line may have"
    )


def read_chunks(path: Path, limit: int = MAX_TRACE_BYTES) -> Iterator[bytes]:
    """The file's bytes, decompressed if it is gzip, a chunk at a time, within the bounds (an
    error when the reading comes to one): the streamed reader's input
    (:mod:`market.inputs.swf_stream`)."""
    return _chunks(path, limit)


def _chunks(path: Path, limit: int) -> Iterator[bytes]:
    """The file's bytes, decompressed if it is gzip, a chunk at a time, at most ``limit`` of
    them and :data:`MAX_TRACE_LINES` lines (else an error)."""
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
                if lines > MAX_TRACE_LINES:  # (each line becomes a string: ~50 bytes at least)
                    raise SwfError(
                        f"{path}: more than {MAX_TRACE_LINES:,} lines, the most a trace may hold "
                        "(market.inputs.limits)"
                    )
                yield chunk
    except (OSError, EOFError, zlib.error) as exc:
        if compressed:
            raise SwfError(f"{path}: not a valid gzip file ({exc})") from None
        raise SwfError(f"{path}: cannot read ({reason(exc)})") from None
