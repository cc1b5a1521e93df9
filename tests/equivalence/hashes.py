"""How the equivalence harness hashes a run's outcomes: exact floats, tables sorted, site
internals."""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from typing import Any


# -- hashing
# ----------------------------------------------------------------------------------------
def canon(value: Any) -> Any:
    """A JSON-able, exact, dtype-blind form of a cell: numbers as repr(float), missing as None."""
    if value is None:
        return None
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return None
    except ImportError:  # pragma: no cover
        pass
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, str):
        return value
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        with contextlib.suppress(ValueError, AttributeError):
            value = value.item()  # numpy scalars
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        f = float(value)
        return None if math.isnan(f) else repr(f)
    if isinstance(value, (list, tuple)):
        return [canon(v) for v in value]
    if isinstance(value, dict):
        return {str(k): canon(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    return repr(value)


def digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


JOB_KEYS = ["provider", "job"]
JOB_OUTCOME = ["accepted", "committed", "reason", "processors", "start", "end", "paid", "rent"]


def jobs_hash(frame) -> tuple[str, int]:
    """Hash of every (provider, job) outcome in the per-job table, and the number of rows."""
    if frame is None or len(frame) == 0:
        return digest([]), 0
    missing = [c for c in JOB_KEYS + JOB_OUTCOME if c not in frame.columns]
    if missing:
        raise KeyError(f"per-job table lacks {missing}")
    cols = {c: frame[c].tolist() for c in JOB_KEYS + JOB_OUTCOME}
    rows = [[canon(cols[c][i]) for c in JOB_KEYS + JOB_OUTCOME] for i in range(len(frame))]
    rows.sort(key=lambda r: (str(r[0]), float(r[1]) if r[1] is not None else -1.0))
    return digest(rows), len(rows)


def table_hash(frame) -> str | None:
    """Hash of a whole table: columns sorted by name, rows in their order."""
    if frame is None:
        return None
    names = sorted(str(c) for c in frame.columns)
    by_name = {str(c): frame[c].tolist() for c in frame.columns}
    rows = [[canon(by_name[n][i]) for n in names] for i in range(len(frame))]
    return digest({"columns": names, "rows": rows})


def _attrs(obj: Any, names: list[str]) -> list[Any]:
    return [canon(getattr(obj, n, "<missing>")) for n in names]


def sites_hash(model) -> str | None:
    """Hash of what batch sites, VARQ users and site brokers recorded, or None if none."""
    sites = getattr(model, "batch_sites", None) or {}
    users = getattr(model, "varq_users", None) or []
    if not sites and not users:
        return None
    out: dict[str, Any] = {"sites": {}, "users": {}}
    site_job = ["id", "nodes", "runtime", "request", "owner", "hold_until", "submit", "start",
                "end", "killed", "reserved_until", "bound"]  # fmt: skip
    for name, site in sorted(sites.items()):
        jobs = getattr(site, "jobs", None)
        out["sites"][name] = {
            "killed": canon(getattr(site, "killed", "<missing>")),
            "jobs": None
            if jobs is None
            else [_attrs(j, site_job) for _, j in sorted(jobs.items())],
        }
    for user in users:
        entry: dict[str, Any] = {"type": type(user).__name__}
        if hasattr(user, "records"):  # a VARQ user
            recs = []
            for r in user.records:
                plan = getattr(r, "plan", None)
                job = getattr(r, "job", None)
                fields = _attrs(r, ["id", "nodes", "walltime", "runtime", "deadline", "asked"])
                planned = None
                if plan is not None:
                    planned = canon(vars(plan) if hasattr(plan, "__dict__") else _plan_fields(plan))
                job_id = None if job is None else canon(getattr(job, "id", None))
                success = canon(r.success) if hasattr(r, "success") else "<missing>"
                recs.append([*fields, planned, job_id, success])
            entry |= {"records": recs, "refused": canon(getattr(user, "refused", "<missing>")),
                      "plain": canon(getattr(user, "plain", "<missing>"))}  # fmt: skip
        if hasattr(user, "quotes"):  # a site broker
            entry["quotes"] = [
                [canon(k), None if q is None else _attrs(q, ["processors", "completion",
                                                             "probability", "profit"])]
                for k, q in sorted(user.quotes.items())
            ]  # fmt: skip
            entry["submitted"] = [
                [canon(k), canon(getattr(sj, "id", None))]
                for k, (_, sj) in sorted(getattr(user, "submitted", {}).items())
            ]
        out["users"][getattr(user, "name", repr(user))] = entry
    return digest(out)


def _plan_fields(plan: Any) -> dict[str, Any]:
    names = getattr(plan, "__slots__", None) or getattr(plan, "__dataclass_fields__", {})
    return {n: getattr(plan, n) for n in names}
