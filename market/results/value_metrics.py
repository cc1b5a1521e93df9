"""Metrics of value-aware admission (Islam, Balaji, Sabin & Sadayappan, OSU-CISRC-3/07-TR17, §5).

- ``urgent_accepted_pct`` and ``normal_accepted_pct`` (Figures 5b-10b): the share of the
  offered jobs of each class (the job ``kind`` of :mod:`market.inputs.workloads.priced`) that were
  admitted; NaN for a workload without the class.
- ``revenue_gain_pct`` (Table 1, Figures 5a-12): revenue over the revenue of the QoPS run on
  the same job stream (the variant whose admission is ``qops``, same seed and point), minus 1,
  in %; NaN where there is no such run.
- The policy's adaptive parameters (DVQoPS's ``oc_factor`` and ``rollback_window``; VQoPS's
  fixed ``oc_factor``) for the time series.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from agents.provider import Provider

CLASSES = ("urgent", "normal")
REFERENCE = "qops"  # the admission whose revenue the gain is measured against


def class_acceptance(records: Iterable[Any]) -> dict[str, float]:
    """``<class>_accepted_pct`` of the job records (``.job.kind``, ``.committed``)."""
    offered = dict.fromkeys(CLASSES, 0)
    accepted = dict.fromkeys(CLASSES, 0)
    for r in records:
        kind = r.job.kind
        if kind in offered:
            offered[kind] += 1
            accepted[kind] += bool(r.committed)
    return {
        f"{c}_accepted_pct": 100.0 * accepted[c] / offered[c] if offered[c] else math.nan
        for c in CLASSES
    }


def admission_param(sp: Provider, name: str) -> float:
    """The admission policy's adaptive parameter ``name`` now (``Admission.parameters``), NaN
    where there is none: a deadline cluster has no admission policy, and most policies have no
    such parameter."""
    if sp.admission is None:
        return math.nan
    return float(sp.admission.parameters().get(name, math.nan))


def with_revenue_gain(frame: pd.DataFrame, keys: Sequence[str] = ()) -> pd.DataFrame:
    """``frame`` (one row per run and provider, with ``admission`` and ``revenue``) with
    ``revenue_gain_pct``: against the row of the same ``keys`` (point, seed, provider) whose
    admission is QoPS."""
    frame = frame.copy()
    if "revenue" not in frame or "admission" not in frame:
        frame["revenue_gain_pct"] = math.nan
        return frame
    keys = [k for k in keys if k in frame.columns]
    is_ref = frame["admission"].astype(str).str.match(rf"^{REFERENCE}(\(|$)")
    reference = frame[is_ref].drop_duplicates(keys or None)
    if not keys:
        base = reference["revenue"].iloc[0] if len(reference) else math.nan
        frame["revenue_gain_pct"] = 100.0 * (frame["revenue"] / base - 1.0) if base else math.nan
        return frame
    base = frame[keys].merge(reference[[*keys, "revenue"]], on=keys, how="left")["revenue"]
    gain = 100.0 * (frame["revenue"].to_numpy() / base.to_numpy() - 1.0)
    frame["revenue_gain_pct"] = gain
    return frame
