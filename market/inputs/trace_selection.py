"""Record selection: which lines of an SWF trace become jobs, and why the others do not.

Simulators differ on several rules, so each is a field of :class:`SelectionRules` (and of the
trace workload); the defaults are the project's choices, and the traces guide lists them with
what other tools do. In order, each record counted under the first rule that drops it: partial
executions (``partial``: ``summary``, ``parts`` or ``auto`` by the ``Preemption`` header); no
submit time; run time unknown or negative; run time 0 (``zero_runtime``); cancelled and failed
jobs that ran (``cancelled``, ``failed``; status -1 counts as completed); processors allocated or
requested (``processors``); requested time below the run time (``short_estimates``: ``raise``,
``truncate`` or ``drop``); wider than ``max_procs`` (``too_wide``: ``drop`` or ``error``).
Pure functions of the records.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar, Literal

import numpy as np
import pandas as pd

#: Status codes of partial-execution lines (SWF field 11).
PARTIAL_STATUS = (2, 3, 4)

#: The SWF fields the rules read (a reader may keep only these).
SELECTION_FIELDS = ("job", "submit", "runtime", "procs", "req_procs", "req_time", "status")


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
        counts = asdict(self)
        return {f.name: counts[f.name] for f in fields(self)[2:] if f.name not in self.ADJUSTED}

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
