"""A service provider's job records as columns, read once for both the per-job table
(:mod:`market.results.result`) and the summary metrics (:mod:`market.results.provider_metrics`).

One list per column, one list comprehension per attribute: Python specialises a comprehension's
attribute read, which makes it several times cheaper than ``operator.attrgetter`` or
``getattr`` per item. Number columns become float64 arrays, NaN where a value is missing (None).
Beside the table's columns (:data:`JOB_COLUMNS`) the summary reads the jobs' ``deadline`` and
``best_effort``, which the table leaves out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

JOB_COLUMNS = [
    "provider", "job", "swf_job", "client", "kind", "arrival", "work", "max_processors", "accepted",
    "committed", "reason", "detail", "planned_processors", "planned_start", "planned_end",
    "expected_value", "expected_profit", "processors", "start", "end", "paid", "rent", "profit",
    "oc_factor", "rollback_window", "pool", "price", "promised_end", "quote_markup", "surplus",
]  # fmt: skip

FLOAT_COLUMNS = frozenset({
    "arrival", "work", "planned_processors", "planned_start", "planned_end", "expected_value",
    "expected_profit", "processors", "start", "end", "paid", "rent", "profit", "oc_factor",
    "rollback_window", "price", "promised_end", "quote_markup", "surplus", "deadline",
})  # fmt: skip


def job_columns(sp: Any, table: bool = True) -> dict[str, Any]:
    """The columns of ``sp``'s records (a service or cluster provider's ``JobRecord``\\ s): the
    numbers the summary reads (with ``deadline`` and ``best_effort``), and with ``table`` the
    rest of the per-job table: the job, its decision (with the OC-Factor and rollback window a
    value-aware policy decided with), what happened, and its market terms."""
    records = list(sp.records.values())
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
        params = [d.params for d in decisions]
        quotes = [r.quote for r in records]
        pools = [pool.name for pool in getattr(sp, "pools", None) or [sp.resource_provider]]
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
            "surplus": [r.surplus for r in records],
            "oc_factor": [p.get("oc_factor") if p else None for p in params],
            "rollback_window": [p.get("rollback_window") if p else None for p in params],
            "pool": [pools[r.pool] for r in records],
            "price": [q.price if q is not None else None for q in quotes],
            "promised_end": [q.promised if q is not None else None for q in quotes],
            "quote_markup": [q.markup if q is not None else None for q in quotes],
        }
    for name in FLOAT_COLUMNS.intersection(cols):
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
