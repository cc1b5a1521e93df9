"""Trace files read within bounds: a gzip bomb stops at the decompressed-size or the line-count
limit, a line of more than 18 fields is an error naming it (never read shifted), a very long
line is refused before it is parsed, and a trace or a run of more jobs than the limits is
refused before the jobs are built; each in one line."""

from __future__ import annotations

import gzip
import time
import tracemalloc

import pytest

from market.inputs import limits
from market.inputs.scenario import ScenarioError, validate
from market.inputs.swf import SwfError, read_swf
from market.inputs.trace_file import read_lines
from market.sim.model import GridMarket

RECORD = b"1 0 10 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n"


def _bomb(path, size: int, unit: bytes = RECORD) -> None:
    """A gzip file that expands to about ``size`` bytes of ``unit`` repeated (one compressed
    megabyte, repeated as gzip members: a file of several members is one gzip file)."""
    member = gzip.compress(unit * (1_000_000 // len(unit)), compresslevel=9)
    path.write_bytes(member * (size // 1_000_000 + 1))


def _refused_read(path) -> tuple[str, int]:
    """The one-line error reading ``path`` raises, and the most memory Python held meanwhile."""
    tracemalloc.start()
    try:
        with pytest.raises(SwfError) as error:
            read_swf(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return str(error.value), peak


def test_a_gzip_bomb_stops_at_the_limit_quickly_and_in_bounded_memory(tmp_path):
    # 300 MB of records (padded to 200 bytes: fewer lines than their limit) packed into about
    # 1 MB: reading stops once the 200 MB limit is passed, holding no more than its lines.
    path = tmp_path / "bomb.swf.gz"
    _bomb(path, 300_000_000, RECORD.rstrip().ljust(199) + b"\n")
    assert path.stat().st_size < 2_000_000
    began = time.process_time()
    message, peak = _refused_read(path)
    assert message == (
        f"{path}: more than 200,000,000 bytes once decompressed, the most a trace may hold "
        "(market.inputs.limits)"
    )
    # (what it holds is the lines read so far: 200 MB of text, and each line's str header)
    assert peak < 1.5 * limits.MAX_TRACE_BYTES and time.process_time() - began < 10


def test_a_bomb_of_tiny_lines_stops_at_the_line_limit_in_bounded_memory(tmp_path):
    # 66 million two-byte comment lines in 190 KB: each line would become a string (3.4 GB, a
    # MemoryError); reading stops once 2,000,000 lines are passed, a few megabytes in.
    path = tmp_path / "lines.swf.gz"
    _bomb(path, 200_000_000, b";\n")
    message, peak = _refused_read(path)
    assert message == (
        f"{path}: more than 2,000,000 lines, the most a trace may hold (market.inputs.limits)"
    )
    assert peak < 40_000_000


def test_a_bomb_of_nul_bytes_stops_at_the_first_chunk(tmp_path):
    path = tmp_path / "zeros.swf.gz"
    _bomb(path, 50_000_000, b"\x00" * 1000)
    with pytest.raises(SwfError, match=r"zeros.swf.gz:1: not an SWF text file \(a NUL byte"):
        read_lines(path)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_lines_decoded_as_they_stream_in_are_the_files_lines(tmp_path, monkeypatch, chunk,
                                                             encoding):  # fmt: skip
    # Chunk ends split a \r\n, a two-byte character and a long line: the lines are those of
    # the whole text, decoded as UTF-8, or as Latin-1 when it is not UTF-8.
    monkeypatch.setattr("market.inputs.trace_file.CHUNK", chunk)
    text = "; Computer: Café\r\n; Note: a\rb\n\n" + RECORD.decode() * 3 + "; end\r\n"
    path = tmp_path / "t.swf"
    path.write_bytes(text.encode(encoding))
    assert read_lines(path) == text.replace("\r\n", "\n").split("\n")
    path.write_bytes(b"1 " * 3000 + b"\r\n" + RECORD)
    with pytest.raises(SwfError, match=r"t.swf:1: a line of 6,000 characters, more than the"):
        read_lines(path)


def test_the_limit_counts_plain_files_too(tmp_path):
    path = tmp_path / "t.swf"
    path.write_bytes(RECORD * 100)
    assert len(read_lines(path, limit=len(RECORD) * 100)) == 101
    with pytest.raises(SwfError, match=rf"t.swf: more than {len(RECORD) * 100 - 1:,} bytes, the"):
        read_lines(path, limit=len(RECORD) * 100 - 1)


def test_a_damaged_gzip_file_is_one_line(tmp_path):
    path = tmp_path / "t.swf.gz"
    path.write_bytes(gzip.compress(RECORD * 1000)[:40])
    with pytest.raises(SwfError, match=r"t.swf.gz: not a valid gzip file \("):
        read_swf(path)


@pytest.mark.parametrize("where", ["every line", "third line"])
def test_a_line_of_more_than_18_fields_is_an_error_not_a_shift(tmp_path, where):
    # pandas would read 19 fields into 18 names by making the first the index: every field
    # shifted by one, silently. It must be an error naming the line.
    long = RECORD.rstrip() + b" 7\n"
    lines = [long] * 5 if where == "every line" else [RECORD, RECORD, long, RECORD]
    path = tmp_path / "t.swf"
    path.write_bytes(b"; MaxProcs: 8\n" + b"".join(lines))
    number = 2 if where == "every line" else 4
    with pytest.raises(SwfError, match=rf"^{path}:{number}: expected 18 fields, found 19$"):
        read_swf(path)
    trace = read_swf(path, skip_bad=True)  # skipped and counted, the others read as written
    assert trace.malformed == (5 if where == "every line" else 1)
    assert (trace.records["runtime"] == 100).all()


def test_a_megabyte_line_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "t.swf"
    path.write_bytes(RECORD + b"1 " * 500_000 + b"\n")
    began = time.process_time()
    with pytest.raises(SwfError) as error:
        read_swf(path)
    assert str(error.value) == (
        f"{path}:2: a line of 1,000,000 characters, more than the 4,096 any SWF line may have"
    )
    assert time.process_time() - began < 2


def test_a_trace_of_more_records_than_the_limit_is_refused_before_parsing(tmp_path, monkeypatch):
    monkeypatch.setattr("market.inputs.swf.MAX_TRACE_RECORDS", 10)
    path = tmp_path / "t.swf"
    path.write_bytes(b"; MaxProcs: 8\n" + RECORD * 11)
    with pytest.raises(SwfError, match=r"t.swf: 11 records, more than the 10 a trace may hold"):
        read_swf(path)


@pytest.mark.parametrize("trace_first", [True, False])
def test_a_run_of_more_jobs_than_the_limit_is_refused_before_they_are_drawn(tmp_path, trace_first):
    # A trace's jobs are known once it is read and scaled: counted then, before any becomes a
    # job; a synthetic client after it is refused before it draws any (before it, its jobs
    # are drawn first: here the synthetic client is small, the trace scaled past the limit).
    path = tmp_path / "t.swf"
    path.write_bytes(b"; MaxProcs: 8\n" + RECORD * 20)
    trace = {"kind": "swf", "trace": str(path), "load_factor": 100}  # 20 + 1,980 copies
    jobs = limits.MAX_JOBS - 1_000 if trace_first else 1_000
    if not trace_first:
        path.write_bytes(b"; MaxProcs: 8\n" + RECORD * 10_000)  # 1,000,000 jobs scaled
    small = {"kind": "profit", "jobs": jobs}
    clients = [{"name": "a", "workload": small}, {"name": "b", "workload": trace}]
    data = {"clients": clients[::-1] if trace_first else clients}
    began = time.process_time()
    with pytest.raises(ScenarioError) as error:
        GridMarket(validate(data))
    if trace_first:
        expected = (
            "synthetic workload: 999,000 jobs (with the 2,000 of the clients before it) make "
            "more than the 1,000,000 a run may have"
        )
    else:
        expected = (
            f"trace {path}: 1,000,000 jobs (with the 1,000 of the clients before it) make more "
            "than the 1,000,000 a run may have (first_jobs, window or a smaller load_factor "
            "give fewer)"
        )
    assert str(error.value) == expected
    assert time.process_time() - began < 10
