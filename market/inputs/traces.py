"""Finding traces and summarising them: the trace search path (:func:`resolve_trace`) and
``gridmarket trace info`` (:func:`trace_info`, :func:`format_trace_info`).

The project never ships or copies traces: a trace given by name is looked up on the search path,
and a missing one is an error saying where it looked and where to download it (the Parallel
Workloads Archive). Reading and writing the format is :mod:`market.inputs.swf`; which records become
jobs is :mod:`market.inputs.trace_selection`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from market.inputs.scenario_files import shown
from market.inputs.swf import SwfError, read_swf
from market.inputs.trace_selection import DropReport, SelectionRules

__all__ = [
    "ARCHIVE_URL",
    "TRACES_ENV",
    "DropReport",
    "SelectionRules",
    "TraceNotFoundError",
    "check_traces",
    "format_trace_info",
    "resolve_trace",
    "trace_dirs",
    "trace_info",
]

#: Where to get traces from; the project never ships them.
ARCHIVE_URL = "https://www.cs.huji.ac.il/labs/parallel/workload/"

#: Environment variable with extra trace directories (separated by ``os.pathsep``).
TRACES_ENV = "GRIDMARKET_TRACES"


class TraceNotFoundError(SwfError):
    """A trace that is on none of the search path's directories."""


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
    dirs.append(Path(__file__).resolve().parents[3] / "shared" / "traces")
    unique: list[Path] = []
    for d in dirs:
        if d not in unique:
            unique.append(d)
    return unique


def resolve_trace(name: str | os.PathLike[str], scenario_dir: str | os.PathLike[str] | None = None):
    """The path of trace ``name``: the path itself if it exists (absolute, or relative to the
    working directory), else ``name`` inside each of :func:`trace_dirs` in turn. Each place is
    also tried with ``.gz`` added, so ``SDSC-SP2-1998-4.2-cln.swf`` finds the compressed file.

    Raises :class:`TraceNotFoundError` (one line: where it looked, and where to download it; or
    that the trace named is a directory, a device or a pipe).
    """
    name = Path(name)
    candidates = [name]
    if not name.is_absolute():
        candidates += [d / name for d in trace_dirs(scenario_dir)]
    other = None  # the first candidate that is there but not a file (a directory, a device)
    for candidate in candidates:
        for path in (candidate, Path(f"{candidate}.gz")):
            try:
                if path.is_file():
                    return path
                other = other or (path if path.exists() else None)
            except (OSError, ValueError):  # too long for the system, or a NUL byte
                continue
    if other is not None:
        what = "a directory" if other.is_dir() else "not a regular file"
        raise TraceNotFoundError(f"{shown(other)}: {what}, not a trace file (.swf or .swf.gz)")
    where = ", ".join(shown(os.path.abspath(c.parent)) for c in candidates)
    raise TraceNotFoundError(
        f"trace {shown(repr(str(name)))} not found (looked in: {where}); download it from the "
        f"Parallel Workloads Archive ({ARCHIVE_URL}) into one of these directories or set "
        f"{TRACES_ENV}"
    )


def check_traces(scenario: Any) -> None:
    """Find every trace ``scenario`` names (its clients' workloads, its batch sites), so that a
    missing one is a :class:`TraceNotFoundError` before any run starts, not after others ran."""
    names = [vars(client.workload).get("trace") for client in scenario.clients]
    names += [site.trace for site in scenario.batch_sites]
    for name in dict.fromkeys(n for n in names if n):
        resolve_trace(name)


# -- summaries ------------------------------------------------------------------------------------
def trace_info(
    path: str | os.PathLike[str],
    *,
    skip_bad: bool = False,
    max_procs: int | None = None,
    rules: SelectionRules | None = None,
) -> dict[str, Any]:
    """A summary of a trace after record selection (:mod:`market.inputs.trace_selection`, with
    ``rules`` or the defaults).

    Keys: ``name``, ``path``, ``computer``, ``installation``, ``start`` (UnixStartTime as an ISO
    date, if given), ``records`` (data lines), ``jobs`` (selected), ``processors`` (MaxProcs, or
    the widest selected job) and ``processors_from``, ``span_s`` / ``span_days`` (first to last
    submit), ``runtime_mean_s``, ``width_mean``, ``offered_load`` = sum(processors x runtime) /
    (processors x (span + the last job's runtime)), ``estimates_known`` (share with a requested
    time), ``estimate_ratio_median`` / ``estimate_ratio_mean`` (runtime / requested time, over
    jobs with one), ``estimate_covers_runtime`` (share of those whose requested time >= runtime),
    and ``dropped`` (:meth:`DropReport.as_dict`).
    """
    if max_procs is not None and max_procs < 1:
        raise SwfError(f"max_procs: must be >= 1, got {max_procs}")
    trace = read_swf(resolve_trace(path), skip_bad=skip_bad)
    jobs, report = trace.select(max_procs, rules)
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
        if k not in ("total", "kept", "dropped", *DropReport.ADJUSTED) and v
    )
    changed = ", ".join(
        f"{k.replace('_', ' ')} {dropped[k]:,}" for k in DropReport.ADJUSTED if dropped.get(k)
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
         + (f" ({reasons})" if reasons else "") + (f"; changed: {changed}" if changed else "")),
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
