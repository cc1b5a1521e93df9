"""Trace-driven workloads: rigid jobs from a Standard Workload Format file, with the load scaling
and deadlines of Islam et al., "QoPS: a QoS based scheme for parallel job scheduling"
(OSU-CISRC-4/03-TR21) §4 and "Analyzing and minimizing the impact of opportunity cost in
QoS-aware job scheduling" (VQoPS, OSU-CISRC-3/07-TR17) §3.

How a trace becomes a job stream (:meth:`TraceWorkload.prepare`), in order:

1. **Find and read** the file on the trace search path (:func:`market.inputs.traces.resolve_trace`:
   the name as a path, ``$GRIDMARKET_TRACES``, ``./traces``, ``<project>/../shared/traces``).
   A scenario file's own directory is not searched: :meth:`generate` is not told where the
   scenario came from, so give a path relative to the working directory, or a bare file name
   found on the search path. Traces are never shipped or copied by the project.
2. **Select records** (:mod:`market.inputs.trace_selection`: by default no cancelled-before-running,
   zero-length or processor-less jobs, none wider than the machine; every rule where simulators
   differ is a field below), in submit order. ``processors`` is the machine size (default: the
   header's MaxProcs); give the resource provider the same capacity.
3. **Subset** (QoPS used 5000-job subsets, VQoPS 10,000): ``first_jobs``, ``last_jobs`` or a
   ``window`` of submit times (hours after the first selected job's submission).
4. **Convert** seconds to hours, with the subset's first submission at time 0. Each job is
   rigid: ``shapes=(processors,)``, ``work = processors x runtime``, ``work_estimate =
   processors x estimate``. ``estimates="exact"`` plans with the actual runtime (QoPS assumed
   this); ``"trace"`` with the user's requested time, raised to the runtime where the request is
   missing or shorter (``short_estimates="raise"``, the default: we keep the recorded runtime and
   never let a job outrun its estimate; ``"truncate"`` cuts the runtime to the request as a
   batch system killing the job at its limit would, ``"drop"`` drops such jobs, both at step 2).
   ``estimate_inaccuracy`` p (LibraRisk §4, with ``estimates="trace"``) plans with ``runtime +
   p % x (estimate - runtime)``: 0 is the exact runtime (the same jobs as ``"exact"``), 100 the
   trace's estimate. Each job carries its SWF job number (``Job.swf_job``; a duplicate, its
   original's).
5. **Scale the load** to ``load_factor`` >= 1 (QoPS §4.2, 1.0 to 1.6):

   - ``duplicate``: add ``round((l - 1) x N)`` copies of jobs taken in one fixed random order of
     the N jobs (cycling through it again above l = 2), each with the original's runtime,
     estimate and processors. ``duplicate_arrival="same"``: the copy is submitted with the
     original (VQoPS §3: "Duplicated jobs have the same submission time, runtime estimate,
     runtime, and deadline"); ``"random"``: at a uniformly random time in the subset's span
     (QoPS §4.2: "duplicates are introduced into the trace at random points in time").
     The order and the random times come from their own streams, drawn in full whatever the
     load, so the jobs at load 1.6 include every job at load 1.4 with the same arrival times
     (QoPS §5: "the workload for a load of 1.6 would include all the jobs in the trace for load
     1.4, with the same arrival times for the common jobs").
   - ``expand``: every job's runtime and estimate times l, arrivals unchanged. QoPS §4.2 names
     "job expansion" as its second scheme without defining it; we read it as jobs expanded in
     length (the same jobs, each l times longer), which scales the offered processor-seconds by
     exactly l.
   - ``compress``: arrival times divided by l (the same jobs, submitted l times as fast); not
     in QoPS, offered as the other common way to raise a trace's load.

   Then ``arrival_delay_factor`` f (LibraRisk §4) multiplies every arrival time, so every
   inter-arrival time: 0.1 is ten times the load, 1 the trace as it is.

6. **Deadlines** (``deadlines``):

   - ``none``: no job has one.
   - ``stringency`` (QoPS §4.1): the scaled trace is first scheduled by EASY backfilling on
     ``processors`` (the market's own EASY, replayed by
     :func:`market.inputs.workloads.deadlines.easy_response_times` with the same estimates), then
     ``deadline = arrival + max(estimate, (1 - s) x EASY response time)``. The
     paper writes ``runtime`` for our ``estimate``: they are equal with exact estimates, and with
     trace estimates the estimate keeps every deadline reachable by a planner that trusts it.
   - ``factor`` (VQoPS §3): ``deadline = arrival + k x estimate`` (k = 5 there).
   - ``urgency`` (Yeo & Buyya, LibraRisk §4): ``deadline = arrival + f x runtime`` with f drawn
     per original job from a high-urgency class (``urgent_share``, mean ``urgent_factor``) or a
     low-urgency one (mean ``urgency_ratio`` x that); see
     :func:`market.inputs.workloads.deadlines.urgency_factors`.

   With ``deadline_share`` < 1 (QoPS §4.2, §5.2: 20 % or 80 % deadline jobs), each original
   job has a user deadline with that probability (a copy shares its original's draw); the
   others get the artificial ``arrival + max(24 h, R x estimate)`` with R = ``relaxation``
   (2, 5 or 10 in §5.3; 5 is our default), or no deadline at all if ``relaxation`` is None.
   Job ``kind`` is ``"deadline"`` or ``"no-deadline"`` then (empty with ``deadlines: none``).

7. **Value**: a constant utility, ``price_per_processor_hour x processors x runtime`` (0 by
   default: QoPS has no prices).
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
from market.inputs.swf import read_swf
from market.inputs.trace_selection import (
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
from market.inputs.workloads.deadlines import (
    easy_response_times,
    factor_deadlines,
    relaxed_deadlines,
    stringency_deadlines,
    urgency_factors,
)

SECONDS_PER_HOUR = 3600.0
_FEWER = " (first_jobs, window or a smaller load_factor give fewer)"


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
    trace = read_swf(path, skip_bad=skip_bad)
    records, report = trace.select(processors, rules)
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
        chosen = [k for k in ("first_jobs", "last_jobs", "window") if getattr(self, k) is not None]
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
        """The job stream as arrays (steps 1-6 of the module docstring)."""
        path = self.path()
        stat = os.stat(path)
        arrays, report, capacity = _selected(
            str(path), stat.st_mtime, stat.st_size, self.skip_bad, self.processors,
            self.selection_rules(),
        )  # fmt: skip
        # Independent streams, each drawn in full whatever the parameters, so that changing
        # the load or the deadline rule never changes the other draws (incremental loads).
        order_stream, time_stream, mark_stream, urgency_stream = rng.spawn(4)

        submit = arrays["submit"]
        keep = slice(None)
        if self.first_jobs is not None:
            keep = slice(0, self.first_jobs)
        elif self.last_jobs is not None:
            keep = slice(max(len(submit) - self.last_jobs, 0), None)
        elif self.window is not None and len(submit):
            lo, hi = (submit[0] + w * SECONDS_PER_HOUR for w in self.window)
            keep = slice(
                int(np.searchsorted(submit, lo, "left")), int(np.searchsorted(submit, hi, "left"))
            )
        submit = submit[keep]
        n = len(submit)
        arrival = (submit - submit[0]) / SECONDS_PER_HOUR if n else np.empty(0)
        runtime = arrays["runtime"][keep] / SECONDS_PER_HOUR
        processors = arrays["processors"][keep].astype(np.int64)
        source = arrays["job"][keep].astype(np.int64)
        raised = 0
        if self.estimates == "exact":
            estimate = runtime.copy()
        else:
            requested = arrays["req_time"][keep] / SECONDS_PER_HOUR
            short = np.isnan(requested) | (requested < runtime)
            raised = int(short.sum())
            estimate = np.where(short, runtime, requested)
            if self.estimate_inaccuracy is not None:
                estimate = runtime + (self.estimate_inaccuracy / 100.0) * (estimate - runtime)

        # 5. load (the jobs it makes counted first: market.inputs.limits)
        extra = round((self.load_factor - 1.0) * n) if self.load_method == "duplicate" else 0
        check_run_jobs(n + extra, 0, f"trace {self.trace}", _FEWER)
        perm = order_stream.permutation(n) if n else np.empty(0, dtype=np.int64)
        marks = mark_stream.random(n) < self.deadline_share
        urgency = urgency_factors(
            urgency_stream, n, self.urgent_share, self.urgent_factor, self.urgency_ratio,
            self.urgency_sd_ratio,
        )  # fmt: skip
        origin = np.arange(n)
        copy = np.zeros(n, dtype=np.int64)
        factor = self.load_factor
        if factor > 1.0 and n:
            if self.load_method == "duplicate":
                picks = perm[np.arange(extra) % n]
                when = arrival[picks]
                if self.duplicate_arrival == "random":
                    when = time_stream.uniform(0.0, float(arrival[-1]), extra)
                origin = np.concatenate([origin, picks])
                copy = np.concatenate([copy, np.arange(extra) // n + 1])
                arrival = np.concatenate([arrival, when])
            elif self.load_method == "expand":
                runtime = runtime * factor
                estimate = estimate * factor
            else:  # compress
                arrival = arrival / factor
        if len(origin) > n:
            runtime, estimate = runtime[origin], estimate[origin]
            processors, source = processors[origin], source[origin]
        marks, urgency = marks[origin], urgency[origin]
        ordered = np.lexsort((np.arange(len(arrival)), arrival))  # by arrival, originals first
        arrival, runtime, estimate = arrival[ordered], runtime[ordered], estimate[ordered]
        processors, source = processors[ordered], source[ordered]
        copy, marks, urgency = copy[ordered], marks[ordered], urgency[ordered]
        if self.arrival_delay_factor != 1.0:
            arrival = arrival * self.arrival_delay_factor
        # Whole seconds, as the trace's own times are (scaled ones rounded), so that the replay
        # is exact: every event lands on the clock's second grid (market.sim.clock).
        arrival, runtime, estimate = (
            np.rint(x * SECONDS_PER_HOUR) / SECONDS_PER_HOUR for x in (arrival, runtime, estimate)
        )

        # 6. deadlines
        deadline = np.full(len(arrival), np.nan)
        if self.deadlines == "none":
            marks = np.zeros(len(arrival), dtype=bool)
        else:
            if self.deadlines == "stringency":
                response = easy_response_times(
                    arrival, processors, runtime, estimate, capacity, SECONDS_PER_HOUR
                )
                user = stringency_deadlines(arrival, estimate, response, self.stringency)
            elif self.deadlines == "urgency":
                user = arrival + urgency * runtime
            else:
                user = factor_deadlines(arrival, estimate, self.deadline_factor)
            deadline = np.where(marks, user, np.nan)
            if self.relaxation is not None:
                relaxed = relaxed_deadlines(arrival, estimate, self.relaxation, self.relaxed_floor)
                deadline = np.where(marks, deadline, relaxed)
        return TraceJobs(
            arrival=arrival,
            runtime=runtime,
            estimate=estimate,
            processors=processors,
            deadline=deadline,
            user_deadline=marks,
            source=source,
            copy=copy,
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
        jobs = []
        for i, (t, run, est, n, due, user, number) in enumerate(
            zip(
                prepared.arrival.tolist(),
                prepared.runtime.tolist(),
                prepared.estimate.tolist(),
                prepared.processors.tolist(),
                prepared.deadline.tolist(),
                prepared.user_deadline.tolist(),
                prepared.source.tolist(),
                strict=True,
            )
        ):
            jobs.append(
                Job.rigid(
                    first_id + i,
                    t,
                    n * run,
                    UtilityFunction.constant(price * n * run),
                    n,
                    n * est,
                    deadline=None if due != due else due,  # NaN: no deadline
                    client=client,
                    kind=("deadline" if user else "no-deadline") if labelled else "",
                    best_effort=labelled and not user,
                    swf_job=number,
                )
            )
        return jobs
