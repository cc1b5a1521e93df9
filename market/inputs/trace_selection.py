"""Record selection: which lines of an SWF trace become jobs, and why the others do not.

The Parallel Workloads Archive's logs hold lines a scheduling simulation cannot or should not
replay as they are; simulators differ on several of them, so every rule where users differ is a
field of :class:`SelectionRules` (and of the trace workload, :mod:`market.inputs.workloads.trace`).
The defaults are the project's choices since the first trace replay; the README's Traces section
lists each rule with what other tools do.

Rules, in order (a record is counted under the first one that drops it, so ``kept + dropped ==
total``):

1. **partial executions** (status 2, 3, 4: parts of a checkpointed or swapped job). SWF
   §"Preemption": ``Double`` files hold a summary line per job *and* its parts, ``Yes`` files only
   the parts. ``partial="summary"`` keeps summary lines and drops parts; ``"parts"`` keeps every
   part as a job of its own and drops the summaries of split jobs; ``"auto"`` (default) is
   ``parts`` for a ``Preemption: Yes`` header and ``summary`` otherwise. (Until this rule had a
   parameter, parts were always dropped: a ``Preemption: Yes`` trace lost every split job.)
2. **no submit time**: dropped (nothing to replay).
3. **run time unknown or negative**: dropped (cancelled before it ran).
4. **run time 0**: ``zero_runtime="drop"`` (default; a job needs work > 0) or ``"one_second"``
   (replayed as 1 s jobs: they still pass through the queue and can hold it up).
5. **cancelled** (status 5) and 6. **failed** (status 0) jobs that ran: kept by default (they
   held processors: the log's load includes them), or ``"drop"``. Status -1 (unknown, e.g.
   NASA-iPSC) counts as completed.
7. **processors**: the allocated count (field 5), else the requested one (field 8), or the other
   way round with ``processors="requested"``; neither >= 1: dropped.
8. **short estimates** (a known requested time, field 9, below the run time; batch systems allow
   some overrun): ``"raise"`` (default: kept; a workload planning with estimates raises the
   estimate to the run time), ``"truncate"`` (the run time is cut to the request, as a batch
   system killing the job at its limit would), or ``"drop"``. A missing request (or one of 0 s)
   is not short.
9. **too wide** (more processors than ``max_procs``, the header's MaxProcs or the given machine
   size): ``"drop"`` (default) or ``"error"`` (an :class:`SwfError` naming the line, as Batsim's
   converter refuses a platform smaller than the widest job). Without a machine size nothing is
   too wide.

Pure functions of the records (a pandas frame as :func:`market.inputs.swf.read_swf` gives it).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar, Literal

import numpy as np
import pandas as pd

#: Status codes of partial-execution lines (SWF field 11).
PARTIAL_STATUS = (2, 3, 4)


#: The choices of each rule (the trace workload's fields use the same types).
Partial = Literal["auto", "summary", "parts"]
ZeroRuntime = Literal["drop", "one_second"]
KeepOrDrop = Literal["keep", "drop"]
ProcessorsFrom = Literal["allocated", "requested"]
ShortEstimates = Literal["raise", "truncate", "drop"]
TooWide = Literal["drop", "error"]


@dataclass(frozen=True, slots=True)
class SelectionRules:
    """How to treat the lines simulators disagree on (see the module docstring, rule by rule)."""

    partial: Partial = "auto"
    zero_runtime: ZeroRuntime = "drop"
    cancelled: KeepOrDrop = "keep"
    failed: KeepOrDrop = "keep"
    processors: ProcessorsFrom = "allocated"
    short_estimates: ShortEstimates = "raise"
    too_wide: TooWide = "drop"


class TooWideError(ValueError):
    """A job wider than the machine under ``too_wide="error"``; ``index`` is its record's row."""

    def __init__(self, index: int, processors: int, max_procs: int) -> None:
        super().__init__(
            f"job needs {processors} processors, the machine has {max_procs} "
            "(too_wide: drop skips such jobs)"
        )
        self.index = index


@dataclass(slots=True)
class DropReport:
    """How many data lines a selection read, kept, and dropped for each reason (the rules of
    the module docstring), and how many kept records it changed.

    Attributes:
        total: data lines in the file (well-formed records plus malformed lines).
        kept: records selected.
        malformed: lines skipped with ``skip_bad=True`` (wrong field count, not a number).
        partial, no_submit, no_runtime, zero_runtime, cancelled, failed, no_processors,
        short_estimate, too_wide: records dropped by rules 1-9.
        one_second: zero-length records kept as 1 s jobs (rule 4).
        truncated: records whose run time was cut to their request (rule 8).
    """

    total: int = 0
    kept: int = 0
    malformed: int = 0
    partial: int = 0
    no_submit: int = 0
    no_runtime: int = 0
    zero_runtime: int = 0
    cancelled: int = 0
    failed: int = 0
    no_processors: int = 0
    short_estimate: int = 0
    too_wide: int = 0
    one_second: int = 0
    truncated: int = 0

    #: The counts of kept records that a rule changed (not drop reasons).
    ADJUSTED: ClassVar[tuple[str, ...]] = ("one_second", "truncated")

    @property
    def dropped(self) -> int:
        """Lines not selected, for every reason."""
        return sum(self.reasons().values())

    def reasons(self) -> dict[str, int]:
        """``{reason: count}`` for every drop reason (malformed first)."""
        names = [f.name for f in fields(self)[2:] if f.name not in self.ADJUSTED]
        return {name: getattr(self, name) for name in names}

    def as_dict(self) -> dict[str, int]:
        """Every count, with ``dropped``."""
        return {**asdict(self), "dropped": self.dropped}

    def __str__(self) -> str:
        why = ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in self.reasons().items() if v)
        return f"{self.total:,} records: {self.kept:,} kept, {self.dropped:,} dropped" + (
            f" ({why})" if why else ""
        )


def select_records(
    records: pd.DataFrame,
    max_procs: int | None = None,
    malformed: int = 0,
    rules: SelectionRules | None = None,
    preemption: str | None = None,
) -> tuple[pd.DataFrame, DropReport]:
    """The records a simulation uses, in submit order, and a :class:`DropReport` of the rest.

    ``preemption`` is the header's ``Preemption`` value (for ``partial="auto"``). The result
    keeps every SWF field (``runtime`` as changed by rules 4 and 8) and adds ``processors``
    (rule 7's count, int64); it is sorted by submit time (stable: ties keep file order) with a
    fresh index. Raises :class:`TooWideError` under ``too_wide="error"``.
    """
    rules = rules or SelectionRules()
    n = len(records)
    status = records["status"].to_numpy()
    submit = records["submit"].to_numpy()
    runtime = records["runtime"].to_numpy().copy()
    first, second = records["procs"].to_numpy(), records["req_procs"].to_numpy()
    if rules.processors == "requested":
        first, second = second, first
    procs = np.where(np.isnan(first) | (first < 1), second, first)
    requested = records["req_time"].to_numpy()
    is_part = np.isin(status, PARTIAL_STATUS)
    parts = rules.partial == "parts" or (
        rules.partial == "auto" and str(preemption or "").strip().lower().startswith("yes")
    )
    if parts:  # the summary lines of split jobs go; their parts stay
        split = np.isin(records["job"].to_numpy(), records["job"].to_numpy()[is_part])
        partial = split & ~is_part
    else:
        partial = is_part
    never = np.zeros(n, dtype=bool)
    wide = procs > max_procs if max_procs else never
    short = (requested > 0) & (requested < runtime)  # NaN compares False: unknown
    rules_in_order = [
        ("partial", partial),
        ("no_submit", np.isnan(submit)),
        ("no_runtime", np.isnan(runtime) | (runtime < 0)),
        ("zero_runtime", runtime == 0 if rules.zero_runtime == "drop" else never),
        ("cancelled", status == 5 if rules.cancelled == "drop" else never),
        ("failed", status == 0 if rules.failed == "drop" else never),
        ("no_processors", np.isnan(procs) | (procs < 1)),
        ("short_estimate", short if rules.short_estimates == "drop" else never),
        ("too_wide", wide),
    ]
    report = DropReport(total=n + malformed, malformed=malformed)
    keep = np.ones(n, dtype=bool)
    for reason, drop in rules_in_order:
        drop = drop & keep
        if reason == "too_wide" and rules.too_wide == "error" and drop.any():
            i = int(np.argmax(drop))
            raise TooWideError(i, int(procs[i]), int(max_procs))
        setattr(report, reason, int(drop.sum()))
        keep &= ~drop
    if rules.zero_runtime == "one_second":
        zero = keep & (runtime == 0)
        runtime[zero] = 1.0
        report.one_second = int(zero.sum())
    if rules.short_estimates == "truncate":
        cut = keep & short
        runtime[cut] = requested[cut]
        report.truncated = int(cut.sum())
    report.kept = int(keep.sum())
    chosen = records[keep].copy()
    chosen["runtime"] = runtime[keep]
    chosen["processors"] = procs[keep].astype(np.int64)
    chosen = chosen.sort_values("submit", kind="stable").reset_index(drop=True)
    return chosen, report
