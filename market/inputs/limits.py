"""Limits that keep a valid scenario's run bounded: every number finite, and 0 or between
:data:`MIN_MAGNITUDE` and :data:`MAX_MAGNITUDE` in size (seeds aside: products and quotients of
such numbers stay far from overflowing), text free of control characters and lone surrogates
(:func:`first_bad_value`), and no setting that makes a run take endless samples or events.

The bounds are relative to the run. The expected horizon of an all-synthetic scenario is the
longest client's arrival span plus all the work over the total capacity; over it a run may take
at most :data:`MAX_SAMPLES` samples and each varying pool :data:`MAX_EVENTS` availability draws
and expected outages. A trace's horizon is known once it is read: :data:`MIN_STEP` (one second)
bounds the sample interval and the period before, the draws after. Counts are checked before
anything is built: ``jobs`` <= :data:`MAX_JOBS` per client and per run; a trace at most
:data:`MAX_TRACE_RECORDS` records, :data:`MAX_TRACE_LINES` lines in all and
:data:`MAX_TRACE_BYTES` bytes decompressed, lines at most :data:`MAX_LINE_CHARS` characters;
at most :data:`MAX_PROCESSORS` processors per pool or machine.
"""

from __future__ import annotations

import math
import unicodedata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from market.inputs.scenario import Scenario

MAX_SAMPLES = 1_000_000  # time-series samples over the expected horizon
MAX_EVENTS = 1_000_000  # availability draws, and expected outages, per pool over the horizon
MIN_STEP = 1 / 3600  # hours: one second, the floor when the horizon is unknown (traces)
MAX_JOBS = 1_000_000  # jobs a client submits, and all clients of a run together
MAX_PROCESSORS = 1_000_000  # processors of a pool or a machine (clusters keep arrays of them)
MAX_TRACE_RECORDS = 1_000_000  # data lines of a trace file (the archive's largest logs: ~10^6)
MAX_TRACE_LINES = 2_000_000  # lines of a trace file in all: records, comments, blank lines
MAX_TRACE_BYTES = 200_000_000  # a trace file's text, decompressed (a record is ~100 bytes)
MAX_LINE_CHARS = 4096  # characters on one line of a trace file (a record has ~100)
MAX_TRACE_VALUE = 1e12  # the largest field of a trace record, in size (s: 31,000 years)
MAX_SEED = 2**63 - 1  # seeds are stored as signed 64-bit integers
MAX_MAGNITUDE = 1e12  # the largest number (in size) a scenario may hold, seeds aside
MIN_MAGNITUDE = 1e-12  # the smallest, but for 0
_SEEDS = frozenset({"seed", "base_seed"})
_LINES_ALLOWED = frozenset({"description"})  # text fields that may hold line breaks


def first_bad_value(data: Any) -> tuple[str, str] | None:
    """``(dotted path, why)`` of the first value of ``data`` (plain nested mappings and lists)
    that no scenario may hold, or None: a number that is infinite, NaN, larger in size than
    :data:`MAX_MAGNITUDE` or nonzero and smaller than :data:`MIN_MAGNITUDE` (under a key other
    than a seed's), or text (a key or a value) with a
    control character (a line break is allowed in a ``description``) or a lone surrogate."""
    stack: list[tuple[tuple[str, ...], Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        where = ".".join(path)
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            if path and path[-1] in _SEEDS:
                continue
            if isinstance(value, float) and not math.isfinite(value):
                return where, f"must be a finite number, not {value}"
            if abs(value) > MAX_MAGNITUDE:
                shown = f"{value:.6g}" if isinstance(value, float) else f"{float(value):.6g}"
                return where, f"{shown} is larger than {MAX_MAGNITUDE:g}, the most a number may be"
            if value and abs(value) < MIN_MAGNITUDE:
                return where, f"{value:.6g} is closer to 0 than {MIN_MAGNITUDE:g} (give 0 or more)"
            continue
        if isinstance(value, str):
            why = _bad_text(value, bool(path) and path[-1] in _LINES_ALLOWED)
            if why is not None:
                return where, why
            continue
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list | tuple):
            items = list(enumerate(value))
        else:
            continue
        for key, item in reversed(items):  # (popped in order)
            if isinstance(key, str) and (why := _bad_text(key, False)) is not None:
                return ".".join((*path, "?")), f"a key {why.removeprefix('text ')}"
            stack.append(((*path, str(key)), item))
    return None


def _bad_text(text: str, lines: bool) -> str | None:
    """Why ``text`` cannot be in a scenario, or None."""
    for char in text:
        if char.isprintable() or char == " ":
            continue
        if char == "\t" or (lines and char in "\r\n"):
            continue
        category = unicodedata.category(char)
        if category == "Cs":
            return f"text with a lone surrogate (U+{ord(char):04X}): not valid Unicode"
        if category == "Cc":
            return f"text with a control character (U+{ord(char):04X})"
    return None


def expected_horizon(scenario: Scenario) -> float | None:
    """The expected length of a run in hours (see the module docstring), or None when a client
    replays a trace."""
    spans, work = [0.0], 0.0
    for client in scenario.clients:
        workload = client.workload
        if workload.kind != "profit":
            return None
        spans.append(workload.jobs * workload.mean_interarrival)
        work += workload.jobs * workload.mean_work
    capacity = sum(rp.capacity for rp in scenario.resource_providers)
    return max(spans) + work / capacity


def too_many_jobs(scenario: Scenario) -> str | None:
    """Why ``scenario``'s synthetic workloads (clients' and brokers') hold more than
    :data:`MAX_JOBS` jobs in all, or None (trace jobs are counted when the trace is read)."""
    workloads = [client.workload for client in scenario.clients]
    workloads += [broker.workload for site in scenario.batch_sites for broker in site.brokers]
    total = sum(w.jobs for w in workloads if w.kind == "profit")
    if total > MAX_JOBS:
        return f"clients: {total:,} jobs in all, more than the {MAX_JOBS:,} a run may have"
    return None


def check_run_jobs(count: int, before: int, source: str, hint: str = "") -> None:
    """Raise a one-line :class:`~market.core.errors.ScenarioError` if ``count`` jobs from
    ``source``, after ``before`` jobs of the clients before it, make more than :data:`MAX_JOBS`
    (called before they are built)."""
    if count > MAX_JOBS or before + count > MAX_JOBS:
        from market.core.errors import ScenarioError

        more = f" (with the {before:,} of the clients before it)" if before else ""
        raise ScenarioError(
            f"{source}: {count:,} jobs{more} make more than the {MAX_JOBS:,} a run may have{hint}"
        )


def check_machine(processors: int, source: str) -> int:
    """``processors``, or a one-line :class:`~market.core.errors.ScenarioError` if a machine
    of that many is more than :data:`MAX_PROCESSORS` (a trace's MaxProcs, or its widest job)."""
    if processors > MAX_PROCESSORS:
        from market.core.errors import ScenarioError

        raise ScenarioError(
            f"{source}: a machine of {processors:,} processors, more than the {MAX_PROCESSORS:,} "
            "one may have (give processors:)"
        )
    return processors


def jobs_horizon(scenario: Scenario, latest: float, work: float) -> float:
    """The expected horizon of jobs known by now (a trace's): the ``latest`` arrival plus all
    their ``work`` (processor-hours) over the pools' total capacity."""
    return latest + work / sum(rp.capacity for rp in scenario.resource_providers)


def unbounded_setting(scenario: Scenario, horizon: float | None = None) -> str | None:
    """Why ``scenario`` would take endless samples or events (``field: reason``), or None.
    ``horizon``: the expected horizon once the jobs are known (a trace's, :func:`jobs_horizon`);
    then only the pools' draws and outages count (sampling skips what does not change)."""
    known = horizon is not None
    horizon = horizon if known else expected_horizon(scenario)
    if horizon is None:
        return _unbounded_without_horizon(scenario)
    about = f"over the run's expected {horizon:,.6g} h"
    if not known and horizon / scenario.sample_interval > MAX_SAMPLES:
        return (
            f"sample_interval: {scenario.sample_interval:g} h takes more than {MAX_SAMPLES:,} "
            f"samples {about}; use at least {horizon / MAX_SAMPLES:.3g}"
        )
    for i, rp in enumerate(scenario.resource_providers):
        u = rp.uncertainty
        if not (u.sigma > 0 or u.overbooking > 0 or u.outage_rate > 0):
            continue  # a pool that never varies draws nothing
        where = f"resource_providers.{i}.uncertainty"
        if horizon / u.period > MAX_EVENTS:
            return (
                f"{where}.period: {u.period:g} h makes more than {MAX_EVENTS:,} availability "
                f"draws {about}; use at least {horizon / MAX_EVENTS:.3g}"
            )
        if u.outage_rate * horizon > MAX_EVENTS:
            return (
                f"{where}.outage_rate: {u.outage_rate:g} per hour makes more than "
                f"{MAX_EVENTS:,} outages {about}; use at most {MAX_EVENTS / horizon:.3g}"
            )
    return None


def _unbounded_without_horizon(scenario: Scenario) -> str | None:
    floor = "one second (0.000278 h)"
    if scenario.sample_interval < MIN_STEP:
        return f"sample_interval: must be at least {floor} with a trace workload"
    for i, rp in enumerate(scenario.resource_providers):
        u = rp.uncertainty
        where = f"resource_providers.{i}.uncertainty"
        if u.period < MIN_STEP:
            return f"{where}.period: must be at least {floor} with a trace workload"
        if u.outage_rate > 1 / MIN_STEP:
            return f"{where}.outage_rate: must be at most 3600 per hour with a trace workload"
    return None
