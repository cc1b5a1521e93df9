"""A service provider's job records as columns, read once for both the per-job table
(:mod:`market.results.result`) and the summary metrics (:mod:`market.results.provider_metrics`).

One list per column, one list comprehension per attribute: Python specialises a comprehension's
attribute read, which makes it several times cheaper than ``operator.attrgetter`` or
``getattr`` per item. Number columns become float64 arrays, NaN where a value is missing (None).
Beside the table's columns the summary reads the jobs' ``best_effort``, which the table leaves
out (its ``kind`` says it). The table's generic columns are here; a policy family's own columns
(the value-aware policies' parameters, the market's price terms) are :class:`JobColumns` its
module of :mod:`market.results.metrics` registers, after these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

BASE_COLUMNS = [
    "provider", "job", "swf_job", "client", "kind", "arrival", "work", "deadline", "max_processors",
    "accepted", "committed", "reason", "detail", "planned_processors", "planned_start", "planned_end",
    "expected_value", "expected_profit", "processors", "start", "end", "paid", "rent", "profit",
]  # fmt: skip

BASE_FLOATS = frozenset({
    "arrival", "work", "planned_processors", "planned_start", "planned_end", "expected_value",
    "expected_profit", "processors", "start", "end", "paid", "rent", "profit", "deadline",
})  # fmt: skip


@dataclass(frozen=True)
class JobColumns:
    """A family's columns of the per-job table: ``names`` (``floats`` of them numbers) and
    ``read(sp, records, decisions)``, which gives one list per name, one item per record."""

    family: str
    names: tuple[str, ...]
    floats: frozenset[str]
    read: Callable[[Any, list, list], dict[str, list]]


_FAMILIES: list[JobColumns] = []


def register_job_columns(columns: JobColumns) -> None:
    """Add a family's columns to the per-job table (after those registered before)."""
    taken = set(job_column_names())
    if taken & set(columns.names):
        raise ValueError(f"job columns {sorted(taken & set(columns.names))} are registered twice")
    _FAMILIES.append(columns)


def job_column_names() -> list[str]:
    """The per-job table's columns, in order."""
    return [*BASE_COLUMNS, *(name for family in _FAMILIES for name in family.names)]


def float_columns() -> frozenset[str]:
    """The columns held as float64 (NaN: missing)."""
    return BASE_FLOATS.union(*(family.floats for family in _FAMILIES))


def job_columns(sp: Any, table: bool = True) -> dict[str, Any]:
    """The columns of ``sp``'s records (a service or cluster provider's ``JobRecord``\\ s): the
    numbers the summary reads (with ``deadline`` and ``best_effort``), and with ``table`` the
    rest of the per-job table: the job, its decision, what happened, and each registered
    family's columns."""
    records = list(sp.records.values())
    jobs = [r.job for r in records]
    decisions = [r.decision for r in records]
    cols = {
        "arrival": floats([j.arrival for j in jobs]),
        "work": floats([j.work for j in jobs]),
        "deadline": floats([j.deadline for j in jobs]),
        "best_effort": [j.best_effort for j in jobs],
        "expected_profit": floats([d.expected_profit for d in decisions]),
        "committed": [r.committed for r in records],
        "processors": floats([r.processors for r in records]),
        "start": floats([r.start for r in records]),
        "end": floats([r.end for r in records]),
        "paid": floats([r.paid for r in records]),
        "profit": floats([r.profit for r in records]),
    }
    floating = BASE_FLOATS
    if table:
        cols |= {
            "provider": [sp.name] * len(records),
            "job": [j.id for j in jobs],
            "swf_job": [j.swf_job for j in jobs],
            "client": [j.client for j in jobs],
            "kind": [j.kind for j in jobs],
            "max_processors": [j.max_shape for j in jobs],
            "accepted": [d.accepted for d in decisions],
            "reason": [d.reason for d in decisions],
            "detail": [d.detail for d in decisions],
            "planned_processors": floats([d.processors for d in decisions]),
            "planned_start": floats([d.start for d in decisions]),
            "planned_end": floats([d.end for d in decisions]),
            "expected_value": floats([d.expected_value for d in decisions]),
            "rent": floats([r.rent for r in records]),
        }
        for family in _FAMILIES:
            cols |= family.read(sp, records, decisions)
        floating = float_columns()
    for name in floating.intersection(cols):  # (the base ones became arrays as they were read,
        if isinstance(cols[name], list):  # so that their lists are not all held at once)
            cols[name] = floats(cols[name])
    return cols


def floats(values: list) -> np.ndarray:
    """``values`` (numbers, None where missing) as float64, NaN for None. Without numpy's
    per-item type discovery where it can: a column of numbers item by item (``fromiter``), a
    column of None only (e.g. a policy parameter no decision had) at once."""
    n = len(values)
    if values and values[0] is None:
        if values.count(None) == n:
            return np.full(n, np.nan)
    else:
        try:
            return np.fromiter(values, np.float64, n)
        except (TypeError, ValueError):  # a None further on
            pass
    return np.array(values, dtype=np.float64)
