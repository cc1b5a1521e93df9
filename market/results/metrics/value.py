"""The VQoPS family: admission of the urgent and normal job classes and the revenue gain over
QoPS (Islam, Balaji, Sabin & Sadayappan, OSU-CISRC-3/07-TR17, §5; see
:mod:`market.results.value_metrics`). The gain compares the runs of one job stream, so it is
derived from a frame of runs (``derive``), not from one provider."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from market.results.metrics.provider_run import ProviderRun
from market.results.metrics.registry import METRICS, Metric, RunKind
from market.results.value_metrics import class_acceptance, with_revenue_gain


def _classes(kind: RunKind) -> bool:
    return kind.classes


def _acceptance(run: ProviderRun) -> dict[str, float]:
    return class_acceptance(run.records)


def _gain(frame: pd.DataFrame, keys: Sequence[str]) -> pd.Series | None:
    """The gain of every row, where the runs have the job classes (a priced workload)."""
    classes = frame.get("urgent_accepted_pct")
    if classes is None or not classes.notna().any():
        return None
    return with_revenue_gain(frame, keys)["revenue_gain_pct"]


METRICS.register(
    Metric("urgent_accepted_pct", "value", "urgent %", "urgent jobs accepted (%)", float, "%", 1,
           ("providers",), _classes, 1,
           compute=lambda run: run.once(_acceptance)["urgent_accepted_pct"]),
    Metric("normal_accepted_pct", "value", "normal %", "normal jobs accepted (%)", float, "%", 1,
           ("providers",), _classes, 1,
           compute=lambda run: run.once(_acceptance)["normal_accepted_pct"]),
    Metric("revenue_gain_pct", "value", "gain %", "revenue gain over QoPS (%)", float, "%", 1,
           ("providers",), _classes, 1, derive=_gain),
)  # fmt: skip
