"""A service provider's job records as columns, read once for both the per-job table
(:mod:`market.results.result`) and the summary metrics (:mod:`market.results.provider_metrics`).

One list comprehension per attribute (Python specialises a comprehension's attribute read,
which makes it several times cheaper than ``operator.attrgetter`` or ``getattr`` per item), over
a chunk of records at a time: number columns go straight into float64 arrays, NaN where a value
is missing (None), ids, widths and flags into int64 and bool arrays, the rest into lists.
Beside the table's columns the summary reads the jobs' ``best_effort``, which the table leaves
out (its ``kind`` says it). The table's generic columns are here; a policy family's own columns
(the value-aware policies' parameters, the market's price terms) are :class:`JobColumns` its
module of :mod:`market.results.metrics` registers, after these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import Any

import numpy as np

BASE_COLUMNS = [
    "provider", "job", "swf_job", "client", "kind", "arrival", "work", "deadline", "max_processors",
    "accepted", "committed", "reason", "detail", "planned_processors", "planned_start",
    "planned_end", "expected_value", "expected_profit", "processors", "start", "end", "paid",
    "rent", "profit",
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
    family's columns. Read :data:`CHUNK` records at a time, each number column straight into
    its array, so that no column is ever held whole as a list of numbers."""
    records = iter(sp.records.values())
    n = len(sp.records)
    floating = float_columns() if table else BASE_FLOATS
    cols: dict[str, Any] = {}
    for at in range(0, n, CHUNK) if n else (0,):
        chunk = list(islice(records, CHUNK))
        for name, values in _read(sp, chunk, table).items():
            if name in floating:
                column = cols.get(name)
                if column is None:
                    column = cols[name] = np.empty(n)
                column[at : at + len(chunk)] = floats(values)
            elif name in INTEGERS:
                column = cols.get(name)
                if column is None:
                    column = cols[name] = np.empty(n, dtype=INTEGERS[name])
                column[at : at + len(chunk)] = values
            else:
                cols.setdefault(name, []).extend(values)
    return cols


#: Records read at a time (a column's list of one chunk is the most held of it).
CHUNK = 4096

#: Columns whose values are never missing, held as numpy arrays of these types.
INTEGERS = {
    "job": np.int64, "max_processors": np.int64,
    "committed": np.bool_, "accepted": np.bool_, "best_effort": np.bool_,
}  # fmt: skip


def _read(sp: Any, records: list, table: bool) -> dict[str, list]:
    """One list per column of ``records`` (see :func:`job_columns`)."""
    jobs = [r.job for r in records]
    decisions = [r.decision for r in records]
    cols = {
        "arrival": [j.arrival for j in jobs],
        "work": [j.work for j in jobs],
        "deadline": [j.deadline for j in jobs],
        "best_effort": [j.best_effort for j in jobs],
        "expected_profit": [d.expected_profit for d in decisions],
        "committed": [r.committed for r in records],
        "processors": [r.processors for r in records],
        "start": [r.start for r in records],
        "end": [r.end for r in records],
        "paid": [r.paid for r in records],
        "profit": [r.profit for r in records],
    }
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
            "planned_processors": [d.processors for d in decisions],
            "planned_start": [d.start for d in decisions],
            "planned_end": [d.end for d in decisions],
            "expected_value": [d.expected_value for d in decisions],
            "rent": [r.rent for r in records],
        }
        for family in _FAMILIES:
            cols |= family.read(sp, records, decisions)
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
