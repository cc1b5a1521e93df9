"""``gridmarket sweep`` (the scenario's sweep, saved run by run, resumable, interrupted cleanly
by SIGINT or SIGTERM) and ``gridmarket report`` (figures and tables from saved results)."""

from __future__ import annotations

import argparse
import math
import signal
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from market.cli.compile import hint as compile_hint
from market.cli.usage import UsageError, workers_in_range

if TYPE_CHECKING:
    import pandas as pd


def sweep_command(args: argparse.Namespace, out=None) -> int:
    """``gridmarket sweep``: every run of the scenario's sweep that ``--out`` does not hold."""
    from market.experiments.batch import SweepInterrupted, make_executor, run_sweep
    from market.experiments.sweep import SweepPlan
    from market.inputs.scenario import load, parse_overrides
    from market.inputs.swf import SwfError
    from market.inputs.traces import check_traces

    out = sys.stdout if out is None else out
    workers_in_range(args.workers)
    if note := compile_hint():
        print(note, file=sys.stderr)
    if args.scheduler and args.scheduler != "local" and "://" not in args.scheduler:
        raise UsageError(f"--scheduler: {args.scheduler!r} is not tcp://HOST:PORT or local")
    if args.scheduler and args.scheduler != "local" and args.workers is not None:
        raise UsageError("--workers: the Dask cluster at --scheduler has its own workers")
    scenario = load(args.scenario)
    if args.set:
        scenario = scenario.with_overrides(parse_overrides(args.set))
    plan = SweepPlan.from_scenario(scenario, args.scenario)
    for run in {id(run.scenario): run for run in plan.runs}.values():  # every trace, found
        try:  # before any run starts
            check_traces(run.scenario)
        except SwfError as exc:
            point = ", ".join(f"{key}={value}" for key, value in run.point.items())
            raise type(exc)(f"{args.scenario}: {run.variant} at {point}: {exc}") from None
    target = Path(args.out) if args.out else Path("results") / plan.name
    executor = make_executor(args.workers, args.scheduler)
    print(f"sweep {plan.name}: {plan.describe()}", file=out, flush=True)
    try:
        with _sigterm_interrupts():
            report = run_sweep(
                plan, target, executor=executor, resume=args.resume, source=args.scenario
            )
    except SweepInterrupted as stop:
        done = stop.report.skipped + len(stop.report.ran)
        print(
            f"gridmarket: interrupted: {done} of {stop.report.planned} runs are saved in "
            f"{target}; --resume runs the other {stop.report.planned - done}",
            file=sys.stderr,
        )
        return 130
    if report.damaged:
        print(
            f"gridmarket: warning: {len(report.damaged)} damaged results part(s) set aside as "
            f"*.damaged (e.g. {report.damaged[0]}); their runs were run again",
            file=sys.stderr,
        )
    if report.todo == 0:
        print(f"nothing to run: all {report.planned} runs are in {target}", file=out)
    else:
        rate = len(report.ran) / report.seconds if report.seconds > 0 else math.inf
        print(
            f"ran {len(report.ran)} of {report.todo} missing runs ({report.skipped} were done) in "
            f"{report.seconds:.1f} s, {rate:.2f} runs/s, on {report.executor} "
            f"({report.cpu_seconds:.1f} CPU s in the runs)",
            file=out,
        )
    print(f"results: {target} (gridmarket report {target})", file=out)
    _print_sweep_risk(target, out)
    if report.failed:
        run_id, error = report.failed[0]
        count = len(report.failed)
        print(
            f"gridmarket: error: {count} run{'s' if count > 1 else ''} failed, e.g. {run_id}: "
            f"{error} "
            f"(all in {target / 'errors.jsonl'}; --resume retries them)",
            file=sys.stderr,
        )
        return 1
    return 0


def _print_sweep_risk(target: Path, out) -> None:
    """The risk table of the finished sweep in ``target``, when its results have profit."""
    from market.experiments.executors import BatchError
    from market.experiments.report import risk_of
    from market.experiments.results_store import load_manifest, load_results

    try:
        frame, manifest = load_results(target), load_manifest(target)
    except BatchError:
        return
    parameters = [p for p in manifest.get("parameters", []) if p in frame.columns]
    table = risk_of(frame, parameters)
    if table is not None and len(table):
        print_risk(table, out)


@contextmanager
def _sigterm_interrupts():
    """SIGTERM (``kill``) stops a sweep like Ctrl-C: finished runs are merged and saved."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def report_command(args: argparse.Namespace, out=None) -> int:
    """``gridmarket report``: the figures of a sweep, one per metric and parameter."""
    from market.experiments.report import make_report

    out = sys.stdout if out is None else out
    metrics = None
    if args.metrics is not None:
        metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
        if not metrics:
            raise UsageError("--metrics: name at least one metric")
    report = make_report(
        args.results,
        args.out,
        error=args.error,
        metrics=metrics,
        markdown=args.markdown,
        command=report_command_line(args),
    )
    for path in report.files:
        print(path, file=out)
    if report.png_note:
        print(report.png_note, file=out)
    if report.empty:
        print(f"no figure for {', '.join(report.empty)}: no run has a value", file=out)
    if report.risk_table is not None:
        print_risk(report.risk_table, out)
    return 0


def report_command_line(args: argparse.Namespace) -> str:
    """The ``gridmarket report`` command that ``args`` stand for (a Markdown block's stamp)."""
    import shlex

    words = ["gridmarket", "report", args.results]
    for option, value in (("--out", args.out), ("--metrics", args.metrics)):
        if value is not None:
            words += [option, value]
    if args.error != "ci95":
        words += ["--error", args.error]
    if args.markdown is not None:
        words += ["--markdown", args.markdown]
    return shlex.join(words)


def print_risk(table: pd.DataFrame, out: TextIO) -> None:
    """The risk table of a sweep (:mod:`market.experiments.replication_risk`): per point and
    policy, each money
    outcome's mean +- 95 % CI, 5 % quantile, CVaR at 5 % and P(loss)."""
    from rich.console import Console
    from rich.table import Table

    from market.cli.formatting import cell, console_width

    keys = list(table.columns[: list(table.columns).index("outcome")])
    if "provider" in keys and table["provider"].nunique() == 1:
        keys.remove("provider")
    shown = Table(title="risk across replications (market/experiments/replication_risk.py)")
    for key in keys:
        shown.add_column(key.rsplit(".", 1)[-1], justify="left")
    for label in ("outcome", "n", "mean", "± ci95", "q05", "CVaR 5 %", "P(loss) %"):
        shown.add_column(label, justify="left" if label == "outcome" else "right")
    for row in table.itertuples(index=False):
        record = dict(zip(table.columns, row, strict=True))
        shown.add_row(
            *(f"{record[k]:g}" if isinstance(record[k], float) else str(record[k]) for k in keys),
            record["outcome"],
            str(record["n"]),
            *(cell(record[k]) for k in ("mean", "ci95", "q05", "cvar05")),
            cell(100.0 * record["p_loss"], 0),
        )
    Console(file=out, width=console_width(out, 200)).print(shown)
