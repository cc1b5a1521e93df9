"""Exporting a run's schedule for the field's tools: as an SWF trace (Parallel Workloads Archive,
https://www.cs.huji.ac.il/labs/parallel/workload/swf.html) and as a Batsim ``jobs.csv``, the
file evalys (https://github.com/oar-team/evalys) reads with ``JobSet.from_csv``.

A *schedule* is one service provider's rows of the per-job table in one variant, less the jobs
it quoted that went to another provider. Our choices where the formats leave room (all in
docs/guide/command-line.md): times in seconds from time 0, SWF's rounded to whole seconds so
that submit + wait = start and start + run time = end hold exactly; a job that never ran is SWF
status 5 and Batsim ``REJECTED``, one unfinished SWF status 0 and ``COMPLETED_KILLED``; SWF jobs
numbered 1..N in submit order; unknown fields -1; processor ids, which the model does not name,
assigned here, each job taking the lowest free ids when it starts.
"""

from __future__ import annotations

import heapq
import json
import math
import re
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from market.inputs.swf import FIELDS, SwfError, write_swf

if TYPE_CHECKING:
    from market.inputs.scenario import Scenario
    from market.results.result import RunResult

#: Batsim's jobs.csv columns, in the order Batsim writes them (``src/export.cpp``).
EVALYS_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
    "consumed_energy", "metadata",
)  # fmt: skip

FORMATS = ("swf", "evalys")
SECONDS = 3600.0


class ExportError(ValueError):
    """A schedule that cannot be exported or written; one line."""


def schedule_rows(jobs: pd.DataFrame, provider: str) -> pd.DataFrame:
    """``provider``'s schedule from a per-job table: its committed jobs and those it did not
    admit, in submit order (ties by job id)."""
    rows = jobs[(jobs["provider"] == provider) & (jobs["committed"] | ~jobs["accepted"])]
    return rows.sort_values(["arrival", "job"], kind="stable").reset_index(drop=True)


def allocate_ids(start: np.ndarray, end: np.ndarray, width: np.ndarray) -> list[list[int]]:
    """Processor ids for jobs running from ``start`` to ``end`` (NaN: never started; NaN end:
    still running) on ``width`` processors: the lowest free ids at each start."""
    events = []
    for i in np.flatnonzero(~np.isnan(start)):
        events.append((start[i], 1, i))
        if not np.isnan(end[i]):
            events.append((end[i], 0, i))  # 0 < 1: ends first at one instant
    events.sort()
    free: list[int] = []
    top = 0
    held: list[list[int]] = [[] for _ in range(len(start))]
    for _, kind, i in events:
        if kind == 0:
            for pid in held[i]:
                heapq.heappush(free, pid)
            continue
        ids = [heapq.heappop(free) for _ in range(min(int(width[i]), len(free)))]
        while len(ids) < int(width[i]):
            ids.append(top)
            top += 1
        held[i] = sorted(ids)
    return held


def interval_set(ids: Iterable[int]) -> str:
    """``[0, 1, 2, 3, 7]`` -> ``"0-3 7"`` (Batsim's interval-set string)."""
    parts: list[str] = []
    run: list[int] = []
    for pid in sorted(ids):
        if run and pid == run[-1] + 1:
            run.append(pid)
            continue
        if run:
            parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [pid]
    if run:
        parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return " ".join(parts)


def _planned_seconds(rows: pd.DataFrame) -> np.ndarray:
    planned = (rows["planned_end"] - rows["planned_start"]).to_numpy() * SECONDS
    return np.where(np.isnan(planned) | (planned <= 0), -1.0, planned)


def swf_records(rows: pd.DataFrame, clients: list[str]) -> pd.DataFrame:
    """A schedule (:func:`schedule_rows`) as the 18 SWF fields, NaN for unknown."""
    n = len(rows)
    submit = np.round(rows["arrival"].to_numpy() * SECONDS)
    start = np.round(rows["start"].to_numpy() * SECONDS)
    end = np.round(rows["end"].to_numpy() * SECONDS)
    ran = ~np.isnan(start)
    done = ran & ~np.isnan(end)
    unknown = np.full(n, np.nan)
    user = [clients.index(c) + 1 if c in clients else math.nan for c in rows["client"]]
    requested = np.round(_planned_seconds(rows))
    records = pd.DataFrame({field: unknown for field in FIELDS})
    records["job"] = np.arange(1, n + 1, dtype=float)
    records["submit"] = submit
    records["wait"] = np.where(ran, start - submit, np.nan)
    records["runtime"] = np.where(done, end - start, np.nan)
    records["procs"] = np.where(ran, rows["processors"].to_numpy(), np.nan)
    records["req_procs"] = rows["max_processors"].to_numpy(dtype=float)
    records["req_time"] = np.where(requested > 0, requested, np.nan)
    records["status"] = np.where(done, 1.0, np.where(ran, 0.0, 5.0))
    records["user"] = np.asarray(user, dtype=float)
    return records


def swf_header(
    scenario: Scenario, variant: str, provider: str, seed: int, rows: pd.DataFrame
) -> dict[str, object]:
    """The header of an exported schedule (``; Key: value`` lines)."""
    sp = next(s for s in scenario.service_providers if s.name == provider)
    rp_name = sp.resource_provider or scenario.resource_providers[0].name
    rp = next(r for r in scenario.resource_providers if r.name == rp_name)
    clients = [c.name for c in scenario.clients]
    try:
        ours = version("gridmarket")
    except PackageNotFoundError:
        ours = "unknown"
    return {
        "Version": "2.2",
        "Computer": f"gridmarket simulation: resource provider {rp.name}, {rp.capacity} processors",
        "Installation": f"scenario {scenario.name}, variant {variant}, service provider {provider}",
        "Conversion": f"gridmarket {ours} (market/results/export.py), seed {seed}",
        "MaxJobs": len(rows),
        "MaxRecords": len(rows),
        "Preemption": "No",
        "UnixStartTime": 0,
        "TimeZoneString": "UTC",
        "MaxNodes": rp.capacity,
        "MaxProcs": rp.capacity,
        "Note": [
            "a simulated schedule: wait and run times are the simulation's; times in whole "
            "seconds from its time 0",
            "status 1 completed, 5 never ran (not admitted), 0 started but not finished",
            *[f"user {i} is client {name}" for i, name in enumerate(clients, 1)],
        ],
    }


def evalys_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """A schedule (:func:`schedule_rows`) as Batsim's ``jobs.csv`` (:data:`EVALYS_COLUMNS`)."""
    submit = rows["arrival"].to_numpy() * SECONDS
    start = rows["start"].to_numpy() * SECONDS
    end = rows["end"].to_numpy() * SECONDS
    ran, done = ~np.isnan(start), ~np.isnan(start) & ~np.isnan(end)
    width = np.where(ran, rows["processors"].to_numpy(), rows["max_processors"].to_numpy())
    ids = allocate_ids(start, end, width)
    execution = np.where(done, end - start, np.nan)
    turnaround = np.where(done, end - submit, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = np.where(done & (execution > 0), turnaround / execution, np.nan)
    state = np.where(done, "COMPLETED_SUCCESSFULLY", np.where(ran, "COMPLETED_KILLED", "REJECTED"))
    numbers = rows["swf_job"] if "swf_job" in rows else pd.Series([None] * len(rows))
    metadata = [
        json.dumps(
            {"provider": p, "paid": _plain(paid), "profit": _plain(profit)}
            | ({"swf_job": int(number)} if _plain(number) is not None else {})
        )
        for p, paid, profit, number in zip(
            rows["provider"], rows["paid"], rows["profit"], numbers, strict=True
        )
    ]
    frame = pd.DataFrame(
        {
            "job_id": rows["job"].to_numpy(),
            "workload_name": rows["client"].fillna("").to_numpy(),
            "profile": rows["kind"].fillna("").to_numpy(),
            "submission_time": submit,
            "requested_number_of_resources": width.astype(np.int64),
            "requested_time": _planned_seconds(rows),
            "success": done.astype(np.int64),
            "final_state": state,
            "starting_time": np.where(ran, start, np.nan),
            "execution_time": execution,
            "finish_time": np.where(done, end, np.nan),
            "waiting_time": np.where(ran, start - submit, np.nan),
            "turnaround_time": turnaround,
            "stretch": stretch,
            "allocated_resources": [interval_set(x) for x in ids],
            "consumed_energy": np.where(ran, -1.0, np.nan),
            "metadata": metadata,
        }
    )
    return frame[list(EVALYS_COLUMNS)]


def _plain(value: float) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "-", text).strip("-") or "x"


def export_schedules(
    path: str | Path, fmt: str, runs: list[tuple[str, Scenario, RunResult]]
) -> list[Path]:
    """Write the schedule of every (variant, service provider) of ``runs`` (``(label,
    scenario, result)`` each) as ``fmt`` (``swf`` or ``evalys``). One schedule goes to ``path``;
    several go to one file each, named ``STEM-<variant>[-<provider>]SUFFIX`` next to it
    (``run.swf`` -> ``run-FirstProfit.swf``). Returns the paths written."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown schedule format {fmt!r} (have: {', '.join(FORMATS)})")
    path = Path(path)
    schedules = [
        (label, scenario, result, sp.name)
        for label, scenario, result in runs
        for sp in scenario.service_providers
    ]
    several_providers = len({sp for *_, sp in schedules}) > 1
    suffix = "".join(path.suffixes[-2:]) if path.name.endswith(".swf.gz") else path.suffix
    stem = path.name[: len(path.name) - len(suffix)]
    written = []
    for label, scenario, result, provider in schedules:
        target = path
        if len(schedules) > 1:
            tag = _slug(label) + (f"-{_slug(provider)}" if several_providers else "")
            target = path.with_name(f"{stem}-{tag}{suffix}")
        rows = schedule_rows(result.jobs, provider)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if fmt == "swf":
                clients = [c.name for c in scenario.clients]
                header = swf_header(scenario, label, provider, result.seed, rows)
                write_swf(target, swf_records(rows, clients), header)
            else:
                evalys_frame(rows).to_csv(target, index=False)
        except SwfError as exc:
            raise ExportError(str(exc)) from None
        except OSError as exc:
            raise ExportError(f"cannot write {target} ({exc.strerror or exc})") from None
        written.append(target)
    return written
