"""Trace-driven workloads: rigid jobs from a Standard Workload Format file, with the load scaling
and deadlines of QoPS (OSU-CISRC-4/03-TR21 §4), VQoPS (OSU-CISRC-3/07-TR17 §3) and LibraRisk §4.

:meth:`TraceWorkload.prepare` finds the file on the trace search path
(:func:`market.inputs.traces.resolve_trace`; traces are never shipped), selects records
(:mod:`market.inputs.trace_selection`), then runs the steps of
:mod:`market.inputs.workloads.trace_steps`: subset, convert seconds to hours with estimates, scale
the load, put times on the second grid, give deadlines. Each job is rigid (``shapes =
(processors,)``, ``work = processors x runtime``) and carries its SWF job number; its value is a
constant utility, ``price_per_processor_hour x processors x runtime`` (0 by default: QoPS has no
prices). Each field's description says its rule; the guides explain the choices.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, model_validator

from market.core.errors import ScenarioError
from market.core.jobs import Job
from market.core.utility import UtilityFunction
from market.inputs.limits import MAX_PROCESSORS, check_machine, check_run_jobs
from market.inputs.swf import read_swf, require_jobs
from market.inputs.trace_selection import (
    SELECTION_FIELDS,
    DropReport,
    KeepOrDrop,
    Partial,
    ProcessorsFrom,
    SelectionRules,
    ShortEstimates,
    TooWide,
    ZeroRuntime,
)
from market.inputs.traces import resolve_trace
from market.inputs.workloads import trace_steps as steps
from market.inputs.workloads.deadlines import urgency_factors
from market.inputs.workloads.trace_steps import SECONDS_PER_HOUR

_FEWER = " (first_jobs, window or a smaller load_factor give fewer)"
CHUNK = 8192  # jobs made at a time from the stream's arrays


@dataclass(frozen=True, slots=True)
class TraceJobs:
    """A prepared trace: one entry per job of the stream, in arrival order (times in hours).

    Attributes:
        arrival, runtime, estimate: hours.
        processors: each job's width.
        deadline: absolute deadline, NaN for none.
        user_deadline: whether the job is a deadline job (False: no deadline, or an artificial
            one given to a non-deadline job).
        source: the SWF job number the job comes from.
        copy: 0 for an original job, k for its k-th duplicate.
        capacity: the machine size used for selection and EASY deadlines.
        report: what record selection kept and dropped.
        estimates_raised: jobs whose requested time was missing or below their runtime (only
            with ``estimates="trace"``).
    """

    arrival: np.ndarray
    runtime: np.ndarray
    estimate: np.ndarray
    processors: np.ndarray
    deadline: np.ndarray
    user_deadline: np.ndarray
    source: np.ndarray
    copy: np.ndarray
    capacity: int
    report: DropReport
    estimates_raised: int = 0

    def __len__(self) -> int:
        return len(self.arrival)

    def frame(self) -> pd.DataFrame:
        """The jobs as a frame (one row per job)."""
        return pd.DataFrame(
            {
                "source": self.source,
                "copy": self.copy,
                "arrival": self.arrival,
                "runtime": self.runtime,
                "estimate": self.estimate,
                "processors": self.processors,
                "deadline": self.deadline,
                "user_deadline": self.user_deadline,
            }
        )


@functools.lru_cache(maxsize=8)
def _selected(path: str, mtime: float, size: int, skip_bad: bool, processors: int | None, rules):
    """Read and select once per file version (variants and replications reuse it)."""
    trace = read_swf(path, skip_bad=skip_bad, fields=SELECTION_FIELDS)
    records, report = trace.select(processors, rules)
    require_jobs(path, report)
    capacity = processors or trace.max_procs
    if capacity is None:
        capacity = int(records["processors"].max()) if len(records) else 1
    check_machine(capacity, f"trace {path}")
    columns = ("job", "submit", "runtime", "req_time", "processors")
    arrays = {c: records[c].to_numpy().copy() for c in columns}
    for a in arrays.values():
        a.flags.writeable = False
    return arrays, report, int(capacity)


class TraceWorkload(BaseModel):
    """Jobs from an SWF trace (see the module docstring for every step and choice)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    kind: Literal["swf"] = "swf"
    ticks_per_hour: ClassVar[int] = 3600  # SWF times are whole seconds: exact (market.sim.clock)
    trace: str = Field(description="SWF file: a path, or a name on the trace search path")
    skip_bad: bool = Field(False, description="skip malformed lines instead of stopping")
    processors: int | None = Field(
        None, ge=1, le=MAX_PROCESSORS, description="machine size (default: the trace's MaxProcs)"
    )
    estimates: Literal["exact", "trace"] = Field(
        "exact", description="plan with the actual runtime, or the user's requested time"
    )
    estimate_inaccuracy: float | None = Field(
        None,
        ge=0,
        le=100,
        description="LibraRisk §4: % of the way from the runtime (0) to the trace estimate (100)",
    )
    arrival_delay_factor: float = Field(
        1.0, gt=0, description="LibraRisk §4: inter-arrival times x this (0.1: heavy load)"
    )
    # Record selection (market.inputs.trace_selection, rule by rule; the defaults are the old
    # rules).
    partial: Partial = Field("auto", description="status 2/3/4: summaries, parts, or by header")
    zero_runtime: ZeroRuntime = Field("drop", description="0 s jobs: dropped, or run for 1 s")
    cancelled: KeepOrDrop = Field("keep", description="status 5 jobs that ran")
    failed: KeepOrDrop = Field("keep", description="status 0 jobs that ran")
    processors_from: ProcessorsFrom = Field("allocated", description="field 5 (else 8), or 8")
    short_estimates: ShortEstimates = Field("raise", description="request < runtime: see above")
    too_wide: TooWide = Field("drop", description="wider than the machine: dropped, or an error")
    first_jobs: int | None = Field(None, ge=1, description="only the first N selected jobs")
    last_jobs: int | None = Field(None, ge=1, description="only the last N selected jobs")
    window: tuple[float, float] | None = Field(
        None, description="only jobs submitted in [start, end) hours after the first one"
    )
    load_factor: float = Field(
        1.0, ge=1.0, le=100.0, description="offered load x this (QoPS: 1.0-1.6; at most 100)"
    )
    load_method: Literal["duplicate", "expand", "compress"] = "duplicate"
    duplicate_arrival: Literal["same", "random"] = Field(
        "same", description="a duplicate arrives with its original, or at a random time"
    )
    deadlines: Literal["none", "stringency", "factor", "urgency"] = "none"
    stringency: float = Field(0.2, ge=0, le=1, description="QoPS §4.1 s (0.2 and 0.5)")
    deadline_factor: float = Field(5.0, gt=0, description="VQoPS §3 k: deadline = k x estimate")
    urgent_share: float = Field(0.2, ge=0, le=1, description="LibraRisk §4: high-urgency share")
    urgent_factor: float = Field(4.0, ge=1, description="mean deadline/runtime, high urgency")
    urgency_ratio: float = Field(4.0, ge=1, description="deadline high:low ratio (§4: 4)")
    urgency_sd_ratio: float = Field(0.2, ge=0, description="sd within a class; our choice")
    deadline_share: float = Field(
        1.0, ge=0, le=1, description="share of jobs with a user deadline (QoPS §5.2: 0.2, 0.8)"
    )
    relaxation: float | None = Field(
        5.0, gt=0, description="R: non-deadline jobs get max(24 h, R x estimate); None: no deadline"
    )
    relaxed_floor: float = Field(24.0, ge=0, description="hours, the 24 h of QoPS §4.2")
    price_per_processor_hour: float = Field(
        0.0, ge=0, description="constant value = price x processors x runtime hours"
    )

    @model_validator(mode="after")
    def _one_subset(self) -> TraceWorkload:
        subsets = {
            "first_jobs": self.first_jobs,
            "last_jobs": self.last_jobs,
            "window": self.window,
        }
        chosen = [name for name, value in subsets.items() if value is not None]
        if len(chosen) > 1:
            raise ValueError(f"give at most one of first_jobs, last_jobs, window (got {chosen})")
        if self.estimate_inaccuracy is not None and self.estimates != "trace":
            raise ValueError("estimate_inaccuracy needs estimates: trace (0 is the exact runtime)")
        if self.window is not None and not 0 <= self.window[0] < self.window[1]:
            raise ValueError("window must be [start, end) hours with 0 <= start < end")
        return self

    # -- building the stream ---------------------------------------------------------------------
    def selection_rules(self) -> SelectionRules:
        """The record-selection rules this workload asks for."""
        return SelectionRules(
            partial=self.partial,
            zero_runtime=self.zero_runtime,
            cancelled=self.cancelled,
            failed=self.failed,
            processors=self.processors_from,
            short_estimates=self.short_estimates,
            too_wide=self.too_wide,
        )

    def path(self) -> Path:
        """The trace file, found on the search path (:func:`market.inputs.traces.resolve_trace`)."""
        return resolve_trace(self.trace)

    def prepare(self, rng: np.random.Generator) -> TraceJobs:
        """The job stream as arrays: read and select, then the steps of
        :mod:`market.inputs.workloads.trace_steps` in order."""
        path = self.path()
        stat = os.stat(path)
        arrays, report, capacity = _selected(
            str(path), stat.st_mtime, stat.st_size, self.skip_bad, self.processors,
            self.selection_rules(),
        )  # fmt: skip
        # Independent streams, each drawn in full whatever the parameters, so that changing
        # the load or the deadline rule never changes the other draws (incremental loads).
        order_stream, time_stream, mark_stream, urgency_stream = rng.spawn(4)
        keep = steps.subset(arrays["submit"], self.first_jobs, self.last_jobs, self.window)
        submit = arrays["submit"][keep]
        n = len(submit)
        runtime = arrays["runtime"][keep] / SECONDS_PER_HOUR
        requested = None
        if self.estimates == "trace":
            requested = arrays["req_time"][keep] / SECONDS_PER_HOUR
        estimate, raised = steps.planned_estimates(runtime, requested, self.estimate_inaccuracy)
        # the jobs the load makes, counted before any is made (market.inputs.limits)
        extra = round((self.load_factor - 1.0) * n) if self.load_method == "duplicate" else 0
        check_run_jobs(n + extra, 0, f"trace {self.trace}", _FEWER)
        order = order_stream.permutation(n) if n else np.empty(0, dtype=np.int64)
        jobs = steps.Stream(
            arrival=(submit - submit[0]) / SECONDS_PER_HOUR if n else np.empty(0),
            runtime=runtime,
            estimate=estimate,
            processors=arrays["processors"][keep].astype(np.int64),
            source=arrays["job"][keep].astype(np.int64),
            copy=np.zeros(n, dtype=np.int64),
            marks=mark_stream.random(n) < self.deadline_share,
            urgency=urgency_factors(
                urgency_stream,
                n,
                self.urgent_share,
                self.urgent_factor,
                self.urgency_ratio,
                self.urgency_sd_ratio,
            ),
        )
        random_arrival = None
        duplicates = self.load_factor > 1.0 and n and self.load_method == "duplicate"
        if duplicates and self.duplicate_arrival == "random":
            extra = round((self.load_factor - 1.0) * n)
            random_arrival = time_stream.uniform(0.0, float(jobs.arrival[-1]), extra)
        jobs = steps.scale_load(jobs, self.load_factor, self.load_method, order, random_arrival)
        jobs = steps.on_second_grid(jobs, self.arrival_delay_factor)
        deadline, user_deadline = steps.deadlines(
            jobs,
            self.deadlines,
            capacity,
            stringency=self.stringency,
            deadline_factor=self.deadline_factor,
            relaxation=self.relaxation,
            relaxed_floor=self.relaxed_floor,
        )
        return TraceJobs(
            arrival=jobs.arrival,
            runtime=jobs.runtime,
            estimate=jobs.estimate,
            processors=jobs.processors,
            deadline=deadline,
            user_deadline=user_deadline,
            source=jobs.source,
            copy=jobs.copy,
            capacity=capacity,
            report=report,
            estimates_raised=raised,
        )

    def generate(
        self, rng: np.random.Generator, first_id: int = 0, client: str | None = None
    ) -> list[Job]:
        """The job stream, in arrival order: rigid jobs (see the module docstring)."""
        prepared = self.prepare(rng)
        check_run_jobs(len(prepared), first_id, f"trace {self.trace}", _FEWER)
        labelled = self.deadlines != "none"
        price = self.price_per_processor_hour
        # The checks Job's constructor would make, on the arrays at once (Job.rigid skips them).
        bad = ~(prepared.runtime > 0) | ~(prepared.estimate > 0) | (prepared.processors < 1)
        if bad.any():
            i = int(np.argmax(bad))
            raise ScenarioError(
                f"trace job {int(prepared.source[i])}: runtime {prepared.runtime[i]:g} h, "
                f"estimate {prepared.estimate[i]:g} h and {prepared.processors[i]} processors "
                "cannot make a job"
            )
        jobs, rigid, n = [], Job.rigid, len(prepared)
        free = UtilityFunction.constant(0.0) if not price else None  # (QoPS: no prices)
        widths = prepared.processors
        # Products as float64 arrays (the doubles Python's would give), a chunk of them as
        # Python numbers at a time: no whole stream held as lists of numbers.
        work, planned = widths * prepared.runtime, widths * prepared.estimate
        exact = np.array_equal(work, planned)  # exact estimates: one float for both
        values = (price * widths) * prepared.runtime  # (the constant utilities' values)
        kinds = ("no-deadline", "deadline") if labelled else ("", "")
        for at in range(0, n, CHUNK):
            part = slice(at, at + CHUNK)
            columns = zip(
                prepared.arrival[part].tolist(),
                work[part].tolist(),
                planned[part].tolist(),
                widths[part].tolist(),
                prepared.deadline[part].tolist(),
                prepared.user_deadline[part].tolist(),
                prepared.source[part].tolist(),
                values[part].tolist(),
                strict=True,
            )
            for i, (t, w, p, k, due, user, number, value) in enumerate(columns, first_id + at):
                jobs.append(
                    rigid(
                        i,
                        t,
                        w,
                        free or UtilityFunction.constant(value),
                        k,
                        w if exact else p,
                        None if due != due else due,  # NaN: no deadline
                        client,
                        kinds[user],
                        labelled and not user,
                        number,
                    )
                )
        return jobs
