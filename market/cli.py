"""The ``gridmarket`` command.

``gridmarket run SCENARIO [--seed N] [--set key=value ...] [--format table|json|csv]
[--jobs-out FILE]`` runs a scenario (each of its variants, on the same seed) and prints one
record per service provider with its policies and every summary metric.

``gridmarket sweep SCENARIO [--workers N] [--scheduler tcp://HOST:PORT|local] [--out DIR]
[--resume] [--set key=value ...]`` runs the scenario's sweep (:mod:`market.sweep`) on local
processes (default: one per core; ``--workers 1``: in this process), on the Dask cluster at a
scheduler address, or on a local Dask cluster (``--scheduler local``), saving every run as it
finishes (:mod:`market.batch`). ``gridmarket report RESULTS [--out DIR] [--error ci95|sd]
[--metrics a,b]`` draws its figures (:mod:`market.report`).

Bad input (a missing or invalid scenario file, a malformed ``--set``, an unknown format) ends
with a one-line ``gridmarket: error: ...`` on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from market.batch import BatchError, SweepInterrupted, make_executor, run_sweep
from market.model import GridMarket
from market.report import ReportError, make_report
from market.scenario import ScenarioError, load, parse_overrides
from market.sweep import SweepPlan
from market.swf import SwfError, format_trace_info, trace_info
from market.value_metrics import with_revenue_gain

TABLE_COLUMNS = {
    "variant": "variant",
    "provider": "provider",
    "scheduler": "scheduler",
    "admission": "admission",
    "accepted_pct": "accepted %",
    "mean_processors": "procs/job",
    "utilization": "util %",
    "revenue": "revenue",
    "rent": "rent",
    "profit": "profit",
    "profit_rate": "profit/h",
    "realised_pct": "realised %",
}


class UsageError(Exception):
    """A bad command line; the message is one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not usage + error
        raise UsageError(f"{self.prog}: {message}")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gridmarket", description="Simulate compute markets.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("run", help="run a scenario and print its summary")
    run.add_argument("scenario", help="a scenario YAML file (see scenarios/)")
    run.add_argument("--seed", type=int, help="random seed (default: the scenario's)")
    run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario field, e.g. clients.0.workload.mean_interarrival=0.3",
    )
    run.add_argument("--format", choices=["table", "json", "csv"], default="table")
    run.add_argument(
        "--jobs-out", metavar="FILE", help="write the per-job table (.csv or .parquet)"
    )

    sweep = commands.add_parser("sweep", help="run a scenario's sweep, saving every run")
    sweep.add_argument("scenario", help="a scenario YAML file with a sweep: section")
    sweep.add_argument(
        "--workers", type=int, metavar="N", help="processes (default: every core; 1: no pool)"
    )
    sweep.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster at tcp://HOST:PORT, or on a new local one: 'local'",
    )
    sweep.add_argument("--out", metavar="DIR", help="results directory (results/<scenario name>)")
    sweep.add_argument("--resume", action="store_true", help="run only what DIR is missing")
    sweep.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario field, e.g. sweep.replications=2",
    )

    report = commands.add_parser("report", help="draw the figures of a sweep's results")
    report.add_argument("results", help="a results directory written by gridmarket sweep")
    report.add_argument("--out", metavar="DIR", help="where to write (default: RESULTS/report)")
    report.add_argument(
        "--error", choices=["ci95", "sd"], default="ci95", help="error bars (default: ci95)"
    )
    report.add_argument("--metrics", metavar="A,B", help="only these metrics (default: all)")

    trace = commands.add_parser("trace", help="inspect SWF traces")
    trace_commands = trace.add_subparsers(dest="trace_command", required=True, parser_class=_Parser)
    info = trace_commands.add_parser("info", help="summarise an SWF trace")
    info.add_argument("file", help="an SWF file (.swf or .swf.gz), or a name on the trace path")
    info.add_argument("--skip-bad", action="store_true", help="skip malformed lines, counted")
    info.add_argument("--processors", type=int, help="machine size (default: the trace's MaxProcs)")

    dashboard = commands.add_parser("dashboard", help="watch and steer market runs in a browser")
    dashboard.add_argument(
        "scenario", nargs="?", help="the scenario new tabs start with (profit/default.yaml)"
    )
    dashboard.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    dashboard.add_argument("--port", type=int, default=8050, help="port (8050)")
    return parser


def run_command(args: argparse.Namespace, out=None) -> int:
    """``gridmarket run``: every variant of the scenario on one seed."""
    out = sys.stdout if out is None else out
    jobs_out = Path(args.jobs_out) if args.jobs_out else None
    if jobs_out is not None and jobs_out.suffix not in (".csv", ".parquet"):
        raise UsageError(f"--jobs-out: {jobs_out} must end in .csv or .parquet")
    if args.seed is not None and args.seed < 0:
        raise UsageError("--seed: must be >= 0")
    scenario = load(args.scenario)
    if args.set:
        scenario = scenario.with_overrides(parse_overrides(args.set))
    variants = scenario.expand()  # validates every variant before anything runs
    summaries, jobs = [], []
    for label, variant in variants:
        result = GridMarket(variant, seed=args.seed).run()
        summaries.append(result.summary.assign(variant=label, seed=result.seed))
        jobs.append(result.jobs.assign(variant=label, seed=result.seed))
    summary = pd.concat(summaries, ignore_index=True)
    if summary["urgent_accepted_pct"].notna().any():  # a priced workload: VQoPS's gain
        summary = with_revenue_gain(summary, ["seed", "provider"])
    summary = summary[["variant", "seed", *[c for c in summary if c not in ("variant", "seed")]]]
    if jobs_out is not None:
        _write_jobs(pd.concat(jobs, ignore_index=True), jobs_out)
    if args.format == "json":
        records = json.loads(summary.to_json(orient="records"))
        out.write(json.dumps(records, indent=2) + "\n")
    elif args.format == "csv":
        summary.to_csv(out, index=False)
    else:
        _print_table(summary, scenario.name, out)
    return 0


def sweep_command(args: argparse.Namespace, out=None) -> int:
    """``gridmarket sweep``: every run of the scenario's sweep that ``--out`` does not hold."""
    out = sys.stdout if out is None else out
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers: must be >= 1")
    if args.scheduler and args.scheduler != "local" and "://" not in args.scheduler:
        raise UsageError(f"--scheduler: {args.scheduler!r} is not tcp://HOST:PORT or local")
    if args.scheduler and args.scheduler != "local" and args.workers is not None:
        raise UsageError("--workers: the Dask cluster at --scheduler has its own workers")
    scenario = load(args.scenario)
    if args.set:
        scenario = scenario.with_overrides(parse_overrides(args.set))
    plan = SweepPlan.from_scenario(scenario, args.scenario)
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
    if report.todo == 0:
        print(f"nothing to run: all {report.planned} runs are in {target}", file=out)
    else:
        rate = len(report.ran) / report.seconds if report.seconds > 0 else math.inf
        print(
            f"ran {len(report.ran)} of {report.todo} missing runs ({report.skipped} were done) in "
            f"{report.seconds:.1f} s, {rate:.2f} runs/s, on {report.executor}",
            file=out,
        )
    print(f"results: {target} (gridmarket report {target})", file=out)
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
    out = sys.stdout if out is None else out
    metrics = None
    if args.metrics is not None:
        metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
        if not metrics:
            raise UsageError("--metrics: name at least one metric")
    report = make_report(args.results, args.out, error=args.error, metrics=metrics)
    for path in report.files:
        print(path, file=out)
    if report.png_note:
        print(report.png_note, file=out)
    return 0


def _write_jobs(frame: pd.DataFrame, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".parquet":
            frame.to_parquet(path, index=False)
        else:
            frame.to_csv(path, index=False)
    except OSError as exc:
        raise UsageError(f"--jobs-out: cannot write {path} ({exc.strerror})") from None


def _print_table(summary: pd.DataFrame, title: str, out) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{title} (seed {summary['seed'].iloc[0]})")
    for column, label in TABLE_COLUMNS.items():
        numeric = pd.api.types.is_numeric_dtype(summary[column])
        table.add_column(label, justify="right" if numeric else "left")
    for row in summary.itertuples(index=False):
        cells = []
        for column in TABLE_COLUMNS:
            value = getattr(row, column)
            if isinstance(value, float):
                cells.append("-" if math.isnan(value) else f"{value:,.1f}")
            else:
                cells.append(str(value))
        table.add_row(*cells)
    width = None if getattr(out, "isatty", lambda: False)() else 200
    Console(file=out, width=width).print(table)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gridmarket`` console script."""
    try:
        args = _parser().parse_args(argv)
        if args.command == "run":
            return run_command(args)
        if args.command == "sweep":
            return sweep_command(args)
        if args.command == "report":
            return report_command(args)
        if args.command == "trace":
            info = trace_info(args.file, skip_bad=args.skip_bad, max_procs=args.processors)
            print(format_trace_info(info))
            return 0
        if args.command == "dashboard":
            from dashboards.app import serve

            serve(args.host, args.port, args.scenario)
            return 0
    except (UsageError, ScenarioError, BatchError, ReportError, SwfError) as exc:
        print(f"gridmarket: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gridmarket: interrupted", file=sys.stderr)
        return 130
    return 1


if __name__ == "__main__":
    sys.exit(main())
