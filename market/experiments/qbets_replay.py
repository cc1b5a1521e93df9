"""QBETS's accuracy on a trace's recorded waits: ``gridmarket trace qbets TRACE`` (VARQ TR
2007-09 §2.3: QBETS's bounds are "conservative").

Jobs are replayed in time order: at each submission the bound comes from a
:class:`market.core.qbets.QBETS` that has seen exactly the delays of the jobs that started
before it (equal times: submissions first); at a start its recorded wait is learnt. Reported:
``correct_pct`` (wait <= bound), overall and per class; ``no_bound``, jobs predicted before
there was enough history; ``median_tightness``, bound / wait over waits of at least
``tightness_floor`` seconds (60 s: our floor, a parameter).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from market.core.qbets import QBETS, JobClasses, QbetsError
from market.core.qbets_cluster import ClusteredQBETS
from market.inputs.swf import read_swf
from market.inputs.trace_selection import select_records
from market.inputs.traces import resolve_trace

SECONDS = 1.0 / 3600.0  # hours per second


def replay_waits(
    submit: np.ndarray,
    wait: np.ndarray,
    nodes: np.ndarray,
    requested: np.ndarray,
    predictor: QBETS,
    classes_out: np.ndarray | None = None,
) -> np.ndarray:
    """The bound predicted for each job at its submission (``inf`` where none), learning each
    delay at ``submit + wait``. Arrays are in the predictor's time unit. ``classes_out``, if
    given, receives each job's class at its prediction (clustered classes change)."""
    n = len(submit)
    start = submit + wait
    # One sorted stream of events: (time, kind, job) with submissions (kind 0) before starts.
    times = np.concatenate([submit, start])
    kinds = np.concatenate([np.zeros(n, np.int8), np.ones(n, np.int8)])
    order = np.lexsort((kinds, times))
    bounds = np.full(n, math.inf)
    nodes_l, req_l, wait_l = nodes.tolist(), requested.tolist(), wait.tolist()
    observe, bound = predictor.observe, predictor.bound
    for event in order.tolist():
        if event < n:
            bounds[event] = bound(nodes_l[event], req_l[event])
            if classes_out is not None:
                classes_out[event] = predictor.class_of(nodes_l[event], req_l[event])
        else:
            j = event - n
            observe(nodes_l[j], req_l[j], wait_l[j])
    return bounds


def qbets_accuracy(
    trace: str,
    quantile: float = 0.95,
    confidence: float = 0.95,
    classes: JobClasses | None = None,
    tightness_floor: float = 60.0,
    first_jobs: int | None = None,
    cluster: int | None = None,
) -> dict[str, Any]:
    """Replay ``trace``'s recorded waits through QBETS (see the module docstring) and report
    its correctness and tightness, overall and per class. ``first_jobs`` keeps only the first
    N selected jobs (for quick checks); ``cluster`` = k uses k clustered classes
    (:mod:`market.core.qbets_cluster`) instead of ``classes``."""
    if cluster is not None:
        if cluster < 1:
            raise QbetsError(f"cluster: must be >= 1 classes, got {cluster!r}")
        predictor = ClusteredQBETS(quantile, confidence, k=cluster, time_scale=SECONDS)
    else:
        predictor = QBETS(quantile, confidence, classes, time_scale=SECONDS)
    if tightness_floor < 0:
        raise QbetsError(f"tightness_floor: must be >= 0, got {tightness_floor!r}")
    if first_jobs is not None and first_jobs < 1:
        raise QbetsError(f"first_jobs: must be >= 1, got {first_jobs!r}")
    path = resolve_trace(trace)
    traced = read_swf(path)
    records = traced.records
    records = records[records["wait"].notna() & (records["wait"] >= 0)]
    if records.empty:
        raise QbetsError(f"{path}: no job has a recorded wait (SWF field 3), which QBETS needs")
    jobs, _ = select_records(records, traced.max_procs, preemption=traced.header.get("Preemption"))
    if first_jobs is not None:
        jobs = jobs.iloc[:first_jobs]
    submit = jobs["submit"].to_numpy(float)
    wait = jobs["wait"].to_numpy(float)
    nodes = jobs["processors"].to_numpy()
    requested = jobs["req_time"].to_numpy(float)
    labels = np.zeros(len(submit), dtype=np.int64)
    bounds = replay_waits(submit, wait, nodes, requested, predictor, labels)
    has = np.isfinite(bounds)
    correct = has & (wait <= bounds)
    ratios = bounds[has & (wait >= tightness_floor)] / wait[has & (wait >= tightness_floor)]
    per_class = []
    for cls in range(len(predictor.classes)):
        mine = labels == cls
        if not mine.any():
            continue
        with_bound = mine & has
        cls_ratios = bounds[with_bound & (wait >= tightness_floor)]
        cls_waits = wait[with_bound & (wait >= tightness_floor)]
        per_class.append(
            {
                "class": predictor.classes.label(cls),
                "jobs": int(with_bound.sum()),
                "no_bound": int((mine & ~has).sum()),
                "correct_pct": _pct(int((correct & mine).sum()), int(with_bound.sum())),
                "median_tightness": (
                    float(np.median(cls_ratios / cls_waits)) if len(cls_ratios) else math.nan
                ),
                "changepoints": predictor.histories[cls].changepoints,
            }
        )
    return {
        "trace": str(trace),
        "quantile": quantile,
        "confidence": confidence,
        "jobs": int(has.sum()),
        "no_bound": int((~has).sum()),
        "correct_pct": _pct(int(correct.sum()), int(has.sum())),
        "median_tightness": float(np.median(ratios)) if len(ratios) else math.nan,
        "tightness_floor_s": tightness_floor,
        "changepoints": predictor.changepoints,
        "classes": per_class,
    }


def _pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else math.nan


def format_accuracy(report: dict[str, Any]) -> str:
    """The report as lines for the command line."""
    lines = [
        f"trace             {report['trace']}",
        f"quantile          {report['quantile']:g} at confidence {report['confidence']:g}",
        f"jobs with a bound {report['jobs']:,} ({report['no_bound']:,} without: too little "
        "history)",
        f"correct           {report['correct_pct']:.1f} % (wait <= bound)",
        f"median tightness  {report['median_tightness']:.2f} (bound / wait, waits >= "
        f"{report['tightness_floor_s']:g} s)",
        f"change points     {report['changepoints']:,}",
        "",
        f"{'class':<28} {'jobs':>7} {'correct %':>9} {'tightness':>9}",
    ]
    for row in report["classes"]:
        lines.append(
            f"{row['class']:<28} {row['jobs']:>7,} {row['correct_pct']:>9.1f} "
            f"{row['median_tightness']:>9.2f}"
        )
    return "\n".join(lines)
