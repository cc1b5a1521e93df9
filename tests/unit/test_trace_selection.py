"""Record selection rules that simulators disagree on, each a parameter (hand-made lines whose
kept jobs are worked out in the comments), the SWF job number on every trace job, and one-line
errors for damaged trace files (corrupt gzip, NUL bytes, non-ASCII lines, fractional counts)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pytest

from market.cli.main import main
from market.inputs.swf import SwfError, read_swf
from market.inputs.trace_selection import SelectionRules, select_records
from market.inputs.traces import trace_info
from market.inputs.workloads import TraceWorkload
from market.inputs.workloads.site_trace import load_site_trace

# job submit wait run procs cpu mem reqp reqt reqm status user group exe queue part prec think
OK = "1   0  0  100  4  -1 -1  4  200 -1 1 1 1 1 1 1 -1 -1"  # a plain completed job
ZERO = "2  10  0    0  2  -1 -1  2   60 -1 1 1 1 1 1 1 -1 -1"  # ran 0 s
CANCELLED = "3  20  0   40  2  -1 -1  2   60 -1 5 1 1 1 1 1 -1 -1"  # cancelled after 40 s
FAILED = "4  30  0   50  2  -1 -1  2   60 -1 0 1 1 1 1 1 -1 -1"  # failed after 50 s
WIDE_REQUEST = "5  40  0   30  2  -1 -1  6   60 -1 1 1 1 1 1 1 -1 -1"  # got 2 of 6 asked
OVERRAN = "6  50  0   90  1  -1 -1  1   60 -1 1 1 1 1 1 1 -1 -1"  # ran 90 s on a 60 s request
TOO_WIDE = "7  60  0   10 16  -1 -1 16   60 -1 1 1 1 1 1 1 -1 -1"  # 16 processors on 8
LINES = [OK, ZERO, CANCELLED, FAILED, WIDE_REQUEST, OVERRAN, TOO_WIDE]


def write(tmp_path: Path, lines: list[str], header: str = "; MaxProcs: 8\n", name="t.swf"):
    path = tmp_path / name
    path.write_text(header + "\n".join(lines) + "\n")
    return path


def select(tmp_path, lines=LINES, header="; MaxProcs: 8\n", **rules):
    return read_swf(write(tmp_path, lines, header)).select(rules=SelectionRules(**rules))


def test_the_defaults_are_the_old_rules(tmp_path):
    jobs, report = select(tmp_path)
    # zero-length and too-wide jobs go; cancelled and failed jobs that ran stay (they held
    # processors); the width is the allocated count; an overrun is kept with its runtime
    assert jobs["job"].tolist() == [1, 3, 4, 5, 6]
    assert jobs["processors"].tolist() == [4, 2, 2, 2, 1]
    assert jobs["runtime"].tolist() == [100, 40, 50, 30, 90]
    assert (report.zero_runtime, report.too_wide, report.dropped) == (1, 1, 2)


def test_zero_runtime_jobs_can_be_replayed_as_one_second_jobs(tmp_path):
    jobs, report = select(tmp_path, zero_runtime="one_second")
    assert jobs["job"].tolist() == [1, 2, 3, 4, 5, 6]
    assert jobs.loc[jobs["job"] == 2, "runtime"].item() == 1.0
    assert (report.zero_runtime, report.one_second) == (0, 1)


def test_cancelled_and_failed_jobs_can_be_dropped(tmp_path):
    jobs, report = select(tmp_path, cancelled="drop")
    assert 3 not in jobs["job"].tolist() and report.cancelled == 1
    jobs, report = select(tmp_path, cancelled="drop", failed="drop")
    assert jobs["job"].tolist() == [1, 5, 6] and (report.cancelled, report.failed) == (1, 1)
    assert report.kept + report.dropped == report.total == 7


def test_processors_from_the_request(tmp_path):
    jobs, _ = select(tmp_path, processors="requested")
    assert jobs.loc[jobs["job"] == 5, "processors"].item() == 6  # asked 6, was given 2
    # a line without a request falls back to the allocated count
    jobs, _ = select(tmp_path, [OK.replace(" 4  200", "-1  200")], processors="requested")
    assert jobs["processors"].tolist() == [4]


def test_short_estimates_raise_truncate_or_drop(tmp_path):
    jobs, _ = select(tmp_path)
    assert jobs.loc[jobs["job"] == 6, "runtime"].item() == 90  # raise: the run stays 90 s
    jobs, report = select(tmp_path, short_estimates="truncate")
    assert jobs.loc[jobs["job"] == 6, "runtime"].item() == 60 and report.truncated == 1
    jobs, report = select(tmp_path, short_estimates="drop")
    assert 6 not in jobs["job"].tolist() and report.short_estimate == 1
    # a missing request is not short
    jobs, report = select(
        tmp_path, [OVERRAN.replace(" 60 -1 1", " -1 -1 1")], short_estimates="drop"
    )
    assert len(jobs) == 1 and report.short_estimate == 0


def test_too_wide_can_be_an_error_naming_the_line(tmp_path):
    with pytest.raises(SwfError, match=r"t\.swf:8: job needs 16 processors, the machine has 8"):
        select(tmp_path, too_wide="error")


SPLIT = [
    "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1",  # job 1's summary: 100 s in all
    "1 0 0 60 4 -1 -1 4 200 -1 2 1 1 1 1 1 -1 -1",  # its first part, to be continued
    "1 0 0 40 4 -1 -1 4 200 -1 3 1 1 1 1 1 -1 -1",  # its last part, completed
    "2 5 0 30 2 -1 -1 2 60 -1 1 1 1 1 1 1 -1 -1",
]


def test_partial_executions_summary_or_parts(tmp_path):
    jobs, report = select(tmp_path, SPLIT, partial="summary")
    assert jobs["runtime"].tolist() == [100, 30] and report.partial == 2
    jobs, report = select(tmp_path, SPLIT, partial="parts")
    assert jobs["runtime"].tolist() == [60, 40, 30] and report.partial == 1  # the summary
    # auto: summaries, unless the header says the file has only the parts (Preemption: Yes),
    # where the old rule dropped job 1 altogether
    parts_only = [SPLIT[1], SPLIT[2], SPLIT[3]]
    jobs, _ = select(tmp_path, parts_only, "; MaxProcs: 8\n; Preemption: Yes\n")
    assert jobs["runtime"].tolist() == [60, 40, 30]
    jobs, _ = select(tmp_path, SPLIT, "; MaxProcs: 8\n; Preemption: Double\n")
    assert jobs["runtime"].tolist() == [100, 30]
    assert len(select_records(read_swf(write(tmp_path, parts_only)).records)[0]) == 1


def test_the_trace_workload_passes_its_rules_and_numbers_every_job(tmp_path):
    path = str(write(tmp_path, LINES))
    kept = len(TraceWorkload(trace=path).generate(np.random.default_rng(1)))
    fewer = TraceWorkload(trace=path, cancelled="drop", failed="drop")
    assert (kept, len(fewer.generate(np.random.default_rng(1)))) == (5, 3)
    jobs = TraceWorkload(trace=path, zero_runtime="one_second").generate(np.random.default_rng(1))
    assert [j.swf_job for j in jobs] == [1, 2, 3, 4, 5, 6]
    assert jobs[1].runtime(2) == pytest.approx(1 / 3600)
    # duplicates carry their original's number: load 2 doubles every job
    doubled = TraceWorkload(trace=path, load_factor=2.0).generate(np.random.default_rng(1))
    numbers = sorted(j.swf_job for j in doubled)
    assert numbers == sorted([1, 3, 4, 5, 6] * 2)
    with pytest.raises(SwfError, match="16 processors"):
        TraceWorkload(trace=path, too_wide="error").generate(np.random.default_rng(1))


# -- damaged files ---------------------------------------------------------------------------------
def test_a_gzip_with_a_corrupt_body_is_a_one_line_error(tmp_path, capsys):
    raw = gzip.compress(("; MaxProcs: 8\n" + "\n".join(LINES) + "\n").encode())
    damaged = raw[:20] + bytes(b ^ 0xFF for b in raw[20:30]) + raw[30:]  # header intact
    path = tmp_path / "bad.swf.gz"
    path.write_bytes(damaged)
    with pytest.raises(SwfError, match=r"bad\.swf\.gz: not a valid gzip file"):
        read_swf(path)
    assert main(["trace", "info", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gridmarket: error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_utf16_and_binary_files_are_not_swf_text(tmp_path):
    path = tmp_path / "u.swf"
    path.write_bytes(("; MaxProcs: 8\n" + OK + "\n").encode("utf-16"))
    with pytest.raises(SwfError, match=r"u\.swf:1: not an SWF text file \(a NUL byte"):
        read_swf(path)


def test_non_ascii_data_lines_name_file_and_line(tmp_path):
    path = tmp_path / "x.swf"
    path.write_bytes(b"; MaxProcs: 8\n" + OK.encode() + b"\n2 10 0 5 \xe9 -1\n")
    with pytest.raises(SwfError, match=r"x\.swf:3: not ASCII text \('\\xe9' at column 10\)"):
        read_swf(path)


def test_a_latin1_header_is_read(tmp_path):
    path = tmp_path / "l.swf"
    path.write_bytes("; Computer: Café\n; MaxProcs: 8\n".encode("latin-1") + OK.encode() + b"\n")
    trace = read_swf(path)
    assert trace.header["Computer"] == "Café" and len(trace.records) == 1


def test_a_fractional_processor_count_is_an_error_not_truncated(tmp_path):
    path = write(tmp_path, [OK, ZERO.replace("0  2  -1 -1  2", "0  2.5  -1 -1  2")])
    with pytest.raises(SwfError, match=r"t\.swf:3: field 5 \(procs\) is not a whole number: 2\.5"):
        read_swf(path)
    trace = read_swf(path, skip_bad=True)
    assert trace.malformed == 1 and trace.records["job"].tolist() == [1]
    # fractional CPU times (field 6) are normal in the archive's logs
    assert len(read_swf(write(tmp_path, [OK.replace("4  -1 -1", "4  1.5 -1")])).records) == 1


def test_trace_info_refuses_a_machine_of_no_processors(tmp_path, capsys):
    path = write(tmp_path, LINES)
    with pytest.raises(SwfError, match="max_procs: must be >= 1, got -5"):
        trace_info(path, max_procs=-5)
    assert main(["trace", "info", str(path), "--processors", "-5"]) == 2
    assert "--processors: -5 is out of range" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no job records (an empty file, or a header only: cut short?)"),
        ("; MaxProcs: 8\n; Note: the records were lost\n", "no job records"),
        ("1 0 10 0 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n",
         "no job to run: every record dropped (1 records: 0 kept, 1 dropped (zero runtime 1))"),
    ],
)  # fmt: skip
def test_a_trace_with_no_job_to_run_is_an_error_not_an_empty_run(tmp_path, text, message):
    path = tmp_path / "t.swf"
    path.write_text(text)
    with pytest.raises(SwfError, match=re.escape(f"{path}: {message}")):
        TraceWorkload(trace=str(path)).generate(np.random.default_rng(1))
    with pytest.raises(SwfError, match=re.escape(f"{path}: {message}")):
        load_site_trace(str(path), processors=8)  # (a batch site's trace, the same)
