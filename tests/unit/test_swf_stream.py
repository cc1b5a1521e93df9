"""The streamed SWF reader (market/inputs/swf_stream.py) reads what the whole-file reader reads,
block by block, and hands anything unusual back to it (which names the problem as before)."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from market.inputs import swf, swf_stream
from market.inputs.swf import SwfError, read_swf

RECORD = "{} {} 5 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1"


def _whole(path):
    """The trace as the whole-file reader reads it."""
    streamed, swf.read_streamed = swf.read_streamed, lambda *_: None
    try:
        return read_swf(path)
    finally:
        swf.read_streamed = streamed


def _same(a, b) -> bool:
    return (
        a.header == b.header
        and a.comments == b.comments
        and np.array_equal(a.line_numbers, b.line_numbers)
        and a.records.equals(b.records)
    )


@pytest.mark.parametrize("gzipped", [False, True])
def test_blocks_headers_blank_lines_and_a_last_line_without_newline_read_as_whole(
    tmp_path, monkeypatch, gzipped
):
    monkeypatch.setattr(swf_stream, "BLOCK", 3)  # several blocks
    lines = ["; Computer: Zürich SP2".encode("latin-1"), b"; MaxProcs: 8", b"", b"  "]
    lines += [RECORD.format(i, 10 * i).encode() for i in range(1, 9)]
    lines.insert(7, b"   ; a comment among the records")
    data = b"\n".join(lines)  # (no newline after the last record)
    path = tmp_path / ("t.swf.gz" if gzipped else "t.swf")
    path.write_bytes(gzip.compress(data) if gzipped else data)
    assert swf_stream.read_streamed(path) is not None
    streamed = read_swf(path)
    assert len(streamed.records) == 8 and streamed.line_numbers[0] == 5
    assert streamed.header["Computer"] == "Zürich SP2"
    assert _same(streamed, _whole(path))


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (RECORD.format(2, 20) + " 7", "19 fields"),
        ("2 20 5 1.5 4.5 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1", "a count not whole"),
        (RECORD.format(2, 20).replace("100", "héllo"), "not ASCII"),
    ],
)
def test_a_bad_line_goes_back_to_the_whole_file_reader_which_names_it(tmp_path, line, why):
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 8\n" + RECORD.format(1, 10) + "\n" + line + "\n", "utf-8")
    assert swf_stream.read_streamed(path) is None, why
    with pytest.raises(SwfError, match=r"t.swf:3: "):
        read_swf(path)


def test_carriage_returns_are_read_whole(tmp_path):
    path = tmp_path / "t.swf"
    path.write_bytes(b"; MaxProcs: 8\r\n" + (RECORD.format(1, 10) + "\r\n").encode())
    assert swf_stream.read_streamed(path) is None
    assert len(read_swf(path).records) == 1
