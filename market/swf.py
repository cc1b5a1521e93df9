"""Reading and writing traces in the Standard Workload Format (SWF) of the Parallel Workloads
Archive (https://www.cs.huji.ac.il/labs/parallel/workload/swf.html).

An SWF file is a header of comment lines starting with ``;`` (``; MaxProcs: 128``,
``; UnixStartTime: 893466664``, ...) and one line per job of 18 whitespace-separated numbers,
``-1`` meaning unknown (:data:`FIELDS` names them). Times are in seconds from the trace's start.

- :func:`read_swf` reads a file (gzip or plain, recognised by its magic bytes) into a
  :class:`SwfTrace`: the header as a dict, the raw header lines, and every record as a pandas
  frame of 18 float columns with ``NaN`` for unknown. A well-formed file is parsed by pandas' C
  parser (the 59,715-line SDSC-SP2 trace in about 0.1 s); only a malformed one is re-read line by
  line to name the first bad line (:class:`SwfError`, ``"FILE:LINE: message"``), or, with
  ``skip_bad=True``, to skip and count every bad line.
- :meth:`SwfTrace.select` picks the records a simulation uses and says why the others were
  dropped (:class:`DropReport`); see :func:`select_records` for the rules.
- :func:`write_swf` writes records (and a header) back; reading the result gives the same values.
- :func:`trace_info` / :func:`format_trace_info` summarise a trace (for ``gridmarket trace info``).
- :func:`resolve_trace` finds a trace by name on the trace search path. The project never ships
  or copies traces: a missing one is an error saying where it looked and where to download it.

Everything here stays in the trace's own unit, seconds; workloads convert to hours
(:mod:`market.workloads.trace`).
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

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

#: Header keys whose value starts with an integer (``; MaxNodes: 338 (batch partition)`` -> 338).
INT_HEADER_KEYS = frozenset(
    {
        "MaxJobs", "MaxRecords", "MaxNodes", "MaxProcs", "UnixStartTime", "TimeZone",
        "MaxRuntime", "MaxMemory", "MaxQueues", "MaxPartitions",
    }
)  # fmt: skip

#: Where to get traces from; the project never ships them.
ARCHIVE_URL = "https://www.cs.huji.ac.il/labs/parallel/workload/"

#: Environment variable with extra trace directories (separated by ``os.pathsep``).
TRACES_ENV = "GRIDMARKET_TRACES"

_KEY_LINE = re.compile(r"^;\s?([A-Za-z][A-Za-z0-9_]*)\s*:\s?(.*)$")
_LEADING_INT = re.compile(r"^\s*([+-]?\d+)")


class SwfError(ValueError):
    """A trace that cannot be read; the message is one line, ``"FILE:LINE: message"`` for a
    malformed line."""


class TraceNotFoundError(SwfError):
    """A trace that is on none of the search path's directories."""


# -- the trace ------------------------------------------------------------------------------------
@dataclass(slots=True)
class DropReport:
    """How many data lines a selection read, kept, and dropped for each reason.

    The reasons are exclusive, checked in the order of the fields below (a record is counted
    under the first one that applies), so ``kept + dropped == total``.

    Attributes:
        total: data lines in the file (well-formed records plus malformed lines).
        kept: records selected.
        malformed: lines skipped with ``skip_bad=True`` (wrong field count, not a number).
        partial: partial-execution lines of checkpointed jobs (status 2, 3 or 4); the job's
            summary line is kept instead, so that no work is counted twice.
        no_submit: no submit time.
        no_runtime: run time unknown (-1) or negative: jobs cancelled before they ran.
        zero_runtime: run time 0 s: they do no work (a :class:`~market.jobs.Job` needs work > 0).
        no_processors: neither an allocated nor a requested processor count >= 1.
        too_wide: more processors than the machine has (``MaxProcs``, or the given size).
    """

    total: int = 0
    kept: int = 0
    malformed: int = 0
    partial: int = 0
    no_submit: int = 0
    no_runtime: int = 0
    zero_runtime: int = 0
    no_processors: int = 0
    too_wide: int = 0

    @property
    def dropped(self) -> int:
        """Lines not selected, for every reason."""
        return sum(self.reasons().values())

    def reasons(self) -> dict[str, int]:
        """``{reason: count}`` for every drop reason, in checking order."""
        return {f.name: getattr(self, f.name) for f in fields(self)[2:]}

    def as_dict(self) -> dict[str, int]:
        """Every count, with ``dropped``."""
        return {**asdict(self), "dropped": self.dropped}

    def __str__(self) -> str:
        why = ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in self.reasons().items() if v)
        return f"{self.total:,} records: {self.kept:,} kept, {self.dropped:,} dropped" + (
            f" ({why})" if why else ""
        )


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

    def select(self, max_procs: int | None = None) -> tuple[pd.DataFrame, DropReport]:
        """The records a simulation uses and why the others were dropped
        (see :func:`select_records`); ``max_procs`` defaults to :attr:`max_procs`."""
        return select_records(
            self.records, self.max_procs if max_procs is None else max_procs, self.malformed
        )


# -- reading --------------------------------------------------------------------------------------
def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SwfError(f"{path}: no such trace file") from None
    except OSError as exc:
        raise SwfError(f"{path}: cannot read ({exc.strerror})") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise SwfError(f"{path}: not a valid gzip file ({exc})") from None
    return raw.decode("latin-1")  # byte-transparent: headers are not always UTF-8


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


def read_swf(path: str | os.PathLike[str], *, skip_bad: bool = False) -> SwfTrace:
    """Read an SWF file (plain or gzip).

    A malformed data line (not 18 fields, or a field that is not a finite number) raises
    :class:`SwfError` naming the file and line, unless ``skip_bad`` is true: then it is skipped
    and counted in :attr:`SwfTrace.malformed`.
    """
    path = Path(path)
    lines = _read_text(path).splitlines()
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
    header = parse_header(comments)
    records = _parse_fast([lines[i] for i in data_at])
    malformed = 0
    if records is None:
        values, good = _parse_slow(path, lines, data_at, skip_bad)
        malformed = len(data_at) - len(good)
        data_at = good
        records = _frame(values)
    numbers = np.asarray(data_at, dtype=np.int64) + 1
    return SwfTrace(path, header, comments, records, malformed, numbers)


def _parse_fast(data: list[str]) -> pd.DataFrame | None:
    """Every line by pandas' C parser, or None if any line is malformed (then parse slowly)."""
    if not data:
        return _frame(np.empty((0, len(FIELDS))))
    try:
        frame = pd.read_csv(
            io.StringIO("\n".join(data)),
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
    values = frame.to_numpy()
    # A short line fills with NaN; "inf" parses but is not a number of a record.
    if len(frame) != len(data) or not np.isfinite(values).all():
        return None
    return _frame(values)


def _parse_slow(
    path: Path, lines: list[str], data_at: list[int], skip_bad: bool
) -> tuple[np.ndarray, list[int]]:
    rows: list[list[float]] = []
    good: list[int] = []
    for i in data_at:
        tokens = lines[i].split()
        problem = None
        if len(tokens) != len(FIELDS):
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
                row.append(value)
        if problem is not None:
            if skip_bad:
                continue
            raise SwfError(f"{path}:{i + 1}: {problem}")
        rows.append(row)
        good.append(i)
    values = np.array(rows, dtype=np.float64).reshape(len(rows), len(FIELDS))
    return values, good


def _frame(values: np.ndarray) -> pd.DataFrame:
    values = values.copy()
    values[values == -1] = np.nan  # -1 is "unknown" in every field
    return pd.DataFrame(values, columns=list(FIELDS))


# -- record selection -----------------------------------------------------------------------------
def select_records(
    records: pd.DataFrame, max_procs: int | None = None, malformed: int = 0
) -> tuple[pd.DataFrame, DropReport]:
    """The records a simulation uses, in submit order, and a :class:`DropReport` of the rest.

    Rules, in order (a record is dropped for the first that applies):

    1. partial-execution lines (status 2, 3, 4) are dropped: their job's summary line stands
       for the whole job;
    2. no submit time: dropped;
    3. run time unknown or negative: dropped (cancelled before running);
    4. run time 0: dropped (no work to simulate; our choice, counted separately);
    5. processors: the allocated count (field 5), else the requested one (field 8); a record
       with neither >= 1 is dropped;
    6. more processors than ``max_procs`` (the header's MaxProcs): dropped. Without a machine
       size nothing is too wide.

    Cancelled (status 5) and failed (status 0) jobs that ran are kept: they held processors.
    The result keeps every SWF field and adds ``processors`` (rule 5's count, int64); it is
    sorted by submit time (stable, so ties keep file order) with a fresh index.
    """
    status = records["status"].to_numpy()
    submit = records["submit"].to_numpy()
    runtime = records["runtime"].to_numpy()
    procs = records["procs"].to_numpy()
    procs = np.where(np.isnan(procs) | (procs < 1), records["req_procs"].to_numpy(), procs)
    report = DropReport(total=len(records) + malformed, malformed=malformed)
    keep = np.ones(len(records), dtype=bool)
    rules = [
        ("partial", np.isin(status, (2, 3, 4))),
        ("no_submit", np.isnan(submit)),
        ("no_runtime", np.isnan(runtime) | (runtime < 0)),
        ("zero_runtime", runtime == 0),
        ("no_processors", np.isnan(procs) | (procs < 1)),
        ("too_wide", procs > max_procs if max_procs else np.zeros(len(records), dtype=bool)),
    ]
    for reason, drop in rules:
        drop = drop & keep
        setattr(report, reason, int(drop.sum()))
        keep &= ~drop
    report.kept = int(keep.sum())
    chosen = records[keep].copy()
    chosen["processors"] = procs[keep].astype(np.int64)
    chosen = chosen.sort_values("submit", kind="stable").reset_index(drop=True)
    return chosen, report


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


# -- the search path ------------------------------------------------------------------------------
def trace_dirs(scenario_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Where :func:`resolve_trace` looks for a trace given by a relative name, in order:
    every directory of ``$GRIDMARKET_TRACES`` (``os.pathsep``-separated), ``scenario_dir`` (the
    scenario file's directory, if known), ``./traces``, and ``shared/traces`` next to the project
    directory (``<project>/../shared/traces``)."""
    dirs = [Path(d) for d in os.environ.get(TRACES_ENV, "").split(os.pathsep) if d.strip()]
    if scenario_dir is not None:
        dirs.append(Path(scenario_dir))
    dirs.append(Path("traces"))
    dirs.append(Path(__file__).resolve().parents[1].parent / "shared" / "traces")
    unique: list[Path] = []
    for d in dirs:
        if d not in unique:
            unique.append(d)
    return unique


def resolve_trace(name: str | os.PathLike[str], scenario_dir: str | os.PathLike[str] | None = None):
    """The path of trace ``name``: the path itself if it exists (absolute, or relative to the
    working directory), else ``name`` inside each of :func:`trace_dirs` in turn. Each place is
    also tried with ``.gz`` added, so ``SDSC-SP2-1998-4.2-cln.swf`` finds the compressed file.

    Raises :class:`TraceNotFoundError` (one line: where it looked, and where to download it).
    """
    name = Path(name)
    candidates = [name]
    if not name.is_absolute():
        candidates += [d / name for d in trace_dirs(scenario_dir)]
    for candidate in candidates:
        for path in (candidate, candidate.with_name(candidate.name + ".gz")):
            if path.is_file():
                return path
    where = ", ".join(os.path.abspath(c.parent) for c in candidates)
    raise TraceNotFoundError(
        f"trace {str(name)!r} not found (looked in: {where}); download it from the Parallel "
        f"Workloads Archive ({ARCHIVE_URL}) into one of these directories or set {TRACES_ENV}"
    )


# -- summaries ------------------------------------------------------------------------------------
def trace_info(
    path: str | os.PathLike[str], *, skip_bad: bool = False, max_procs: int | None = None
) -> dict[str, Any]:
    """A summary of a trace after record selection (:func:`select_records`).

    Keys: ``name``, ``path``, ``computer``, ``installation``, ``start`` (UnixStartTime as an ISO
    date, if given), ``records`` (data lines), ``jobs`` (selected), ``processors`` (MaxProcs, or
    the widest selected job) and ``processors_from``, ``span_s`` / ``span_days`` (first to last
    submit), ``runtime_mean_s``, ``width_mean``, ``offered_load`` = sum(processors x runtime) /
    (processors x (span + the last job's runtime)), ``estimates_known`` (share with a requested
    time), ``estimate_ratio_median`` / ``estimate_ratio_mean`` (runtime / requested time, over
    jobs with one), ``estimate_covers_runtime`` (share of those whose requested time >= runtime),
    and ``dropped`` (:meth:`DropReport.as_dict`).
    """
    trace = read_swf(resolve_trace(path), skip_bad=skip_bad)
    jobs, report = trace.select(max_procs)
    header = trace.header
    size = max_procs or trace.max_procs
    source = "given" if max_procs else "MaxProcs" if trace.max_procs else "widest job"
    if size is None:
        size = int(jobs["processors"].max()) if len(jobs) else 0
    submit = jobs["submit"].to_numpy()
    runtime = jobs["runtime"].to_numpy()
    width = jobs["processors"].to_numpy()
    span = float(submit[-1] - submit[0]) if len(jobs) else 0.0
    requested = jobs["req_time"].to_numpy()
    known = ~np.isnan(requested) & (requested > 0)
    ratio = runtime[known] / requested[known]
    start = header.get("UnixStartTime")
    info: dict[str, Any] = {
        "name": trace.name,
        "path": str(trace.path),
        "computer": _first(header.get("Computer")),
        "installation": _first(header.get("Installation")),
        "start": (
            pd.Timestamp(start, unit="s", tz="UTC").isoformat() if isinstance(start, int) else None
        ),
        "records": report.total,
        "jobs": report.kept,
        "processors": int(size),
        "processors_from": source,
        "span_s": span,
        "span_days": span / 86400.0,
        "runtime_mean_s": float(runtime.mean()) if len(jobs) else math.nan,
        "width_mean": float(width.mean()) if len(jobs) else math.nan,
        "offered_load": (
            float((width * runtime).sum() / (size * span)) if size and span > 0 else math.nan
        ),
        "estimates_known": float(known.mean()) if len(jobs) else math.nan,
        "estimate_ratio_median": float(np.median(ratio)) if len(ratio) else math.nan,
        "estimate_ratio_mean": float(ratio.mean()) if len(ratio) else math.nan,
        "estimate_covers_runtime": float((ratio <= 1.0).mean()) if len(ratio) else math.nan,
        "dropped": report.as_dict(),
    }
    return info


def _first(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    return None if value is None else str(value).split("\n")[0]


def format_trace_info(info: Mapping[str, Any]) -> str:
    """:func:`trace_info` as aligned ``label  value`` lines for the command line."""
    dropped = info["dropped"]
    reasons = ", ".join(
        f"{k.replace('_', ' ')} {v:,}"
        for k, v in dropped.items()
        if k not in ("total", "kept", "dropped") and v
    )
    machine = " / ".join(x for x in (info.get("installation"), info.get("computer")) if x)

    def pct(x: float) -> str:
        return "n/a" if x is None or math.isnan(x) else f"{100 * x:.1f} %"

    def num(x: float, spec: str = ".3g") -> str:
        return "n/a" if x is None or math.isnan(x) else format(x, spec)

    rows = [
        ("trace", info["name"]),
        ("file", info["path"]),
        ("machine", machine or "n/a"),
        ("start", info.get("start") or "n/a"),
        ("records", f"{info['records']:,}"),
        ("jobs", f"{info['jobs']:,} kept, {dropped['dropped']:,} dropped"
         + (f" ({reasons})" if reasons else "")),
        ("processors", f"{info['processors']:,} ({info['processors_from']})"),
        ("span", f"{info['span_days']:.1f} days ({info['span_s'] / 3600:,.0f} h)"),
        ("mean job", f"{num(info['width_mean'], '.1f')} processors x "
         f"{num(info['runtime_mean_s'] / 3600, '.2f')} h"),
        ("offered load", num(info["offered_load"], ".3f")),
        ("estimates", f"{pct(info['estimates_known'])} of jobs have a requested time"),
        ("runtime/estimate", f"median {num(info['estimate_ratio_median'])}, "
         f"mean {num(info['estimate_ratio_mean'])}"),
        ("estimate >= runtime", pct(info["estimate_covers_runtime"])),
    ]  # fmt: skip
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)
