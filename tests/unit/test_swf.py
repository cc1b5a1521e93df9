"""SWF reading and writing: header, gzip, malformed lines, round trip, record selection, the
trace search path, and the real traces when they are present."""

from __future__ import annotations

import gzip
import math
import re
from pathlib import Path

import numpy as np
import pytest

from market.inputs.swf import FIELDS, SwfError, read_swf, write_swf
from market.inputs.trace_selection import DropReport, select_records
from market.inputs.traces import (
    TraceNotFoundError,
    format_trace_info,
    resolve_trace,
    trace_dirs,
    trace_info,
)

SHARED_TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"

HEADER = """\
; Version: 2.2
; Computer: Test SP2
; Installation: Nowhere
; Information: http://example.org/
;              http://www.cs.huji.ac.il/labs/parallel/workload/
; UnixStartTime: 893466664
; MaxNodes: 8 (batch partition; 10 total)
; MaxProcs: 8
; Note: first note
; Note: second note
;       continued
"""

# job submit wait run procs cpu mem reqp reqt reqm status user group exe queue part prec think
LINES = [
    "1   0  10  100  4  -1 -1  4  200 -1 1 1 1 1 1 1 -1 -1",  # kept
    "2  50   0   -1 -1  -1 -1  2  300 -1 5 2 1 1 1 1 -1 -1",  # cancelled, no runtime
    "3  60   5    0  2  -1 -1  2   60 -1 1 2 1 1 1 1 -1 -1",  # zero runtime
    "4  70   5   30 -1  -1 -1 -1   60 -1 0 2 1 1 1 1 -1 -1",  # no processors at all
    "5  80   5   30 16  -1 -1 16   60 -1 1 2 1 1 1 1 -1 -1",  # wider than MaxProcs 8
    "6  90   0   40 -1  -1 -1  3   -1 -1 5 3 1 1 1 1 -1 -1",  # kept: requested procs, no estimate
    "7  95   0   20  2 1.5 -1  2   10 -1 1 3 1 1 1 1  6 30",  # kept: ran past its estimate
]


def write(tmp_path: Path, body: str, name: str = "t.swf", compress: bool = False) -> Path:
    path = tmp_path / name
    data = body.encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def sample(tmp_path: Path, **kw) -> Path:
    return write(tmp_path, HEADER + "\n".join(LINES) + "\n", **kw)


def test_header_is_parsed_into_a_dict(tmp_path):
    trace = read_swf(sample(tmp_path))
    h = trace.header
    assert h["Version"] == "2.2" and h["Computer"] == "Test SP2"
    assert h["MaxProcs"] == 8 and h["MaxNodes"] == 8 and h["UnixStartTime"] == 893466664
    assert (
        h["Information"] == "http://example.org/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/"
    )
    assert h["Note"] == ["first note", "second note\ncontinued"]
    assert trace.max_procs == 8
    assert len(trace.comments) == HEADER.count("\n")


def test_records_have_all_18_fields_with_nan_for_unknown(tmp_path):
    trace = read_swf(sample(tmp_path))
    r = trace.records
    assert list(r.columns) == list(FIELDS) and len(FIELDS) == 18
    assert len(r) == 7
    assert r.loc[0, "runtime"] == 100 and r.loc[0, "req_time"] == 200
    assert math.isnan(r.loc[1, "runtime"]) and math.isnan(r.loc[1, "procs"])
    assert r.loc[6, "cpu_time"] == 1.5 and r.loc[6, "preceding_job"] == 6
    assert trace.line_numbers.tolist() == list(range(12, 19))


def test_gzip_is_recognised_by_its_magic_bytes(tmp_path):
    plain = read_swf(sample(tmp_path))
    packed = read_swf(sample(tmp_path, name="t.swf.gz", compress=True))
    odd = read_swf(sample(tmp_path, name="no-suffix", compress=True))
    assert plain.records.equals(packed.records) and plain.records.equals(odd.records)
    assert packed.header == plain.header


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("8 100 0 10 2 -1 -1 2 10 -1 1 3 1 1 1 1 -1", "expected 18 fields, found 17"),
        ("8 100 0 10 2 -1 -1 2 10 -1 1 3 1 1 1 1 -1 -1 7", "expected 18 fields, found 19"),
        ("8 100 0 ten 2 -1 -1 2 10 -1 1 3 1 1 1 1 -1 -1", "field 4 (runtime) is not a number"),
        ("8 100 0 nan 2 -1 -1 2 10 -1 1 3 1 1 1 1 -1 -1", "field 4 (runtime) is not a number"),
        ("8 100 0 inf 2 -1 -1 2 10 -1 1 3 1 1 1 1 -1 -1", "field 4 (runtime) is not a number"),
        ("8 100 0 1e30 2 -1 -1 2 10 -1 1 3 1 1 1 1 -1 -1",
         "field 4 (runtime) is 1e30, beyond the 1e+12 a trace's field may be in size"),
        ("8 -2e13 0 10 2 -1 -1 2 10 -1 1 3 1 1 1 1 -1 -1", "field 2 (submit) is -2e13, beyond"),
    ],
)  # fmt: skip
def test_a_malformed_line_stops_with_file_and_line(tmp_path, bad, message):
    body = HEADER + "\n".join([*LINES[:3], bad, *LINES[3:]]) + "\n"
    path = write(tmp_path, body)
    with pytest.raises(SwfError) as info:
        read_swf(path)
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(f"{path}:15: ")  # 11 header lines, then the 4th data line
    assert message in text


def test_skip_bad_skips_and_counts_malformed_lines(tmp_path):
    huge = "9 100 0 1e13 2 -1 -1 2 10 -1 1 3 1 1 1 1 -1 -1"  # (skipped as malformed too)
    body = HEADER + "\n".join([LINES[0], "garbage", *LINES[1:], "9 1 2 3", huge]) + "\n"
    trace = read_swf(write(tmp_path, body), skip_bad=True)
    assert trace.malformed == 3 and len(trace.records) == 7
    assert math.isnan(trace.records.loc[1, "runtime"])  # -1 is unknown on the slow path too
    assert trace.line_numbers.tolist() == [12, *range(14, 20)]
    _, report = trace.select()
    assert report.malformed == 3 and report.total == 10
    assert report.kept + report.dropped == report.total


def test_missing_and_unreadable_files_are_one_line_errors(tmp_path):
    with pytest.raises(SwfError, match=r"no such trace file"):
        read_swf(tmp_path / "absent.swf")
    path = write(tmp_path, "not gzip", name="x.swf.gz")  # plain text with a .gz name: text
    with pytest.raises(SwfError, match=r"x\.swf\.gz:1: expected 18 fields, found 2"):
        read_swf(path)
    broken = tmp_path / "broken.swf.gz"
    broken.write_bytes(gzip.compress(b"1 2 3")[:-6])
    with pytest.raises(SwfError, match="gzip"):
        read_swf(broken)


def test_selection_drops_with_reasons(tmp_path):
    jobs, report = read_swf(sample(tmp_path)).select()
    assert jobs["job"].tolist() == [1, 6, 7]
    assert jobs["processors"].tolist() == [4, 3, 2]  # job 6: the requested count
    assert report == DropReport(
        total=7, kept=3, no_runtime=1, zero_runtime=1, no_processors=1, too_wide=1
    )
    assert report.dropped == 4 and report.kept + report.dropped == report.total
    assert "7 records: 3 kept, 4 dropped (no runtime 1" in str(report)
    # a bigger machine keeps the wide job; none at all keeps it too
    assert select_records(read_swf(sample(tmp_path)).records, 16)[1].too_wide == 0
    assert select_records(read_swf(sample(tmp_path)).records, None)[1].too_wide == 0


def test_partial_execution_lines_are_dropped(tmp_path):
    lines = [LINES[0], "1 0 10 60 4 -1 -1 4 200 -1 2 1 1 1 1 1 -1 -1",
             "1 0 10 40 4 -1 -1 4 200 -1 3 1 1 1 1 1 -1 -1"]  # fmt: skip
    jobs, report = read_swf(write(tmp_path, HEADER + "\n".join(lines))).select()
    assert report.partial == 2 and len(jobs) == 1


def test_selection_is_sorted_by_submit_time(tmp_path):
    lines = [LINES[6], LINES[0], LINES[5]]
    jobs, _ = read_swf(write(tmp_path, "\n".join(lines))).select()
    assert jobs["job"].tolist() == [1, 6, 7]


@pytest.mark.parametrize("name", ["out.swf", "out.swf.gz"])
def test_write_then_read_round_trips(tmp_path, name):
    trace = read_swf(sample(tmp_path))
    path = write_swf(tmp_path / name, trace)
    again = read_swf(path)
    assert again.header == trace.header
    np.testing.assert_array_equal(again.records.to_numpy(), trace.records.to_numpy())
    # from a dict header and a selection (extra columns are ignored)
    jobs, _ = trace.select()
    path = write_swf(tmp_path / ("sel-" + name), jobs, {"MaxProcs": 8, "Note": ["a", "b\nc"]})
    back = read_swf(path)
    assert back.header == {"MaxProcs": 8, "Note": ["a", "b\nc"]}
    np.testing.assert_array_equal(back.records.to_numpy(), jobs[list(FIELDS)].to_numpy())


def test_writing_needs_every_field(tmp_path):
    jobs, _ = read_swf(sample(tmp_path)).select()
    with pytest.raises(SwfError, match="lack SWF field"):
        write_swf(tmp_path / "x.swf", jobs.drop(columns="think_time"))


def test_resolve_trace_search_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a, b, scen = tmp_path / "a", tmp_path / "b", tmp_path / "scen"
    for d in (a, b, scen, tmp_path / "traces"):
        d.mkdir()
    sample(b, name="x.swf")
    sample(scen, name="y.swf.gz", compress=True)
    sample(tmp_path / "traces", name="z.swf")
    monkeypatch.setenv("GRIDMARKET_TRACES", f"{a}{__import__('os').pathsep}{b}")
    assert resolve_trace("x.swf") == b / "x.swf"
    assert resolve_trace("y.swf.gz", scenario_dir=scen) == scen / "y.swf.gz"
    assert resolve_trace("y.swf", scenario_dir=scen) == scen / "y.swf.gz"  # .gz added
    assert resolve_trace("z.swf").resolve() == tmp_path / "traces" / "z.swf"
    assert resolve_trace(b / "x.swf") == b / "x.swf"  # a path as given
    dirs = trace_dirs(scen)
    assert dirs[:3] == [a, b, scen] and dirs[3] == Path("traces")
    assert dirs[4] == Path(__file__).resolve().parents[2].parent / "shared" / "traces"


def test_a_missing_trace_says_where_it_looked_and_where_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIDMARKET_TRACES", str(tmp_path))
    with pytest.raises(TraceNotFoundError) as info:
        resolve_trace("NOPE-1999.swf")
    text = str(info.value)
    assert "\n" not in text
    assert "'NOPE-1999.swf' not found" in text and str(tmp_path) in text
    assert "https://www.cs.huji.ac.il/labs/parallel/workload/" in text
    assert isinstance(info.value, ValueError)


def test_a_trace_that_is_a_directory_is_named_as_one(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIDMARKET_TRACES", str(tmp_path))
    (tmp_path / "x.swf").mkdir()
    with pytest.raises(TraceNotFoundError, match=r"x\.swf: a directory, not a trace file"):
        resolve_trace("x.swf")
    with pytest.raises(TraceNotFoundError, match=r"^/dev/null: not a regular file, not a trace"):
        resolve_trace("/dev/null")
    (tmp_path / "x.swf.gz").write_bytes(b"")  # a file beside it is found
    assert resolve_trace("x.swf") == tmp_path / "x.swf.gz"


def test_trace_info_of_a_small_trace(tmp_path):
    info = trace_info(sample(tmp_path))
    assert info["jobs"] == 3 and info["records"] == 7 and info["processors"] == 8
    assert info["processors_from"] == "MaxProcs"
    assert info["span_s"] == 95
    # (4 x 100 + 3 x 40 + 2 x 20) / (8 x 95)
    assert info["offered_load"] == pytest.approx(560 / 760)
    # runtime/estimate: 100/200 and 20/10 (job 6 has no estimate)
    assert info["estimates_known"] == pytest.approx(2 / 3)
    assert info["estimate_ratio_median"] == pytest.approx(1.25)
    assert info["estimate_covers_runtime"] == pytest.approx(0.5)
    assert info["dropped"]["dropped"] == 4
    text = format_trace_info(info)
    assert re.search(r"^jobs\s+3 kept, 4 dropped \(no runtime 1, zero runtime 1", text, re.M)
    assert re.search(r"^offered load\s+0\.737$", text, re.M)


# -- the real traces, when present ----------------------------------------------------------------
def sources() -> dict[str, tuple[int, int]]:
    """{file: (data lines, MaxProcs)} from SOURCES.txt."""
    table = {}
    for line in (SHARED_TRACES / "SOURCES.txt").read_text().splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[1].endswith(".swf.gz"):
            table[parts[1]] = (int(parts[2]), int(parts[3]))
    return table


needs_traces = pytest.mark.skipif(
    not (SHARED_TRACES / "SOURCES.txt").is_file(),
    reason=f"no traces in {SHARED_TRACES} (download them from the Parallel Workloads Archive)",
)


@needs_traces
def test_real_traces_read_with_the_counts_of_sources_txt():
    table = sources()
    assert "SDSC-SP2-1998-4.2-cln.swf.gz" in table
    for name, (lines, max_procs) in table.items():
        if not (SHARED_TRACES / name).is_file():
            continue
        trace = read_swf(resolve_trace(name))
        jobs, report = trace.select()
        assert len(trace.records) == lines and trace.malformed == 0, name
        assert trace.max_procs == max_procs, name
        assert report.total == lines and report.kept + report.dropped == lines, name
        assert len(jobs) == report.kept and (jobs["processors"] <= max_procs).all(), name
        assert (jobs["runtime"] > 0).all() and jobs["submit"].is_monotonic_increasing, name


@needs_traces
def test_sdsc_sp2_selection():
    _, report = read_swf(resolve_trace("SDSC-SP2-1998-4.2-cln.swf")).select()
    # 59,715 lines: 5,671 cancelled before running (run time -1), 10 of 0 s
    assert report.total == 59715
    assert (report.kept, report.no_runtime, report.zero_runtime) == (54034, 5671, 10)
    assert report.kept + report.dropped == report.total
