"""``gridmarket trace qbets TRACE [--quantile 0.95] [--confidence 0.95] [--format table|json]``:
QBETS's correctness and tightness on a trace's recorded waits
(:mod:`market.experiments.qbets_replay`)."""

from __future__ import annotations

import argparse
import json
import math
import sys


def add_parser(trace_commands) -> None:
    """Register ``qbets`` under ``gridmarket trace``."""
    qbets = trace_commands.add_parser(
        "qbets", help="replay a trace's recorded waits through QBETS: correctness, tightness"
    )
    qbets.add_argument("file", help="an SWF file (.swf or .swf.gz), or a name on the trace path")
    qbets.add_argument("--quantile", type=float, default=0.95, help="quantile bounded (0.95)")
    qbets.add_argument("--confidence", type=float, default=0.95, help="confidence (0.95)")
    qbets.add_argument("--first-jobs", type=int, help="only the first N jobs")
    qbets.add_argument(
        "--cluster", type=int, metavar="K", help="K classes by clustering (default: the grid)"
    )
    qbets.add_argument("--format", choices=["table", "json"], default="table")


def run(args: argparse.Namespace, out=None) -> int:
    """Run ``gridmarket trace qbets``; bad values, and a trace too short for any bound (after
    its table), raise :class:`market.core.qbets.QbetsError`."""
    from market.experiments.qbets_replay import format_accuracy, qbets_accuracy

    out = sys.stdout if out is None else out
    report = qbets_accuracy(
        args.file, args.quantile, args.confidence, first_jobs=args.first_jobs, cluster=args.cluster
    )
    if args.format == "json":
        clean = json.loads(json.dumps(report, default=float).replace("NaN", "null"))
        out.write(json.dumps(clean, indent=2) + "\n")
    else:
        out.write(format_accuracy(report) + "\n")
    if math.isnan(report["correct_pct"]):  # (the table says why: too little history)
        from market.core.qbets import QbetsError

        raise QbetsError(
            f"{args.file}: no job got a bound (too little history: give more jobs, or a trace "
            "with more jobs in each class)"
        )
    return 0
