"""The ``gridmarket`` command.

``gridmarket run SCENARIO [--seed N] [--set key=value ...] [--format table|json|csv]
[--columns a,b] [--jobs-out FILE] [--market-out FILE]`` runs a scenario (each of its variants, on
the same seed) and prints one record per service provider with its policies and every summary
metric, then one per batch site, VARQ user and site broker (``table``: ``sites``); the table
format prints the provider table fitted to the terminal (or the ``--columns`` asked for), the site
table, and the market table where the run is a market (:mod:`market.cli.tables`), and
``--market-out`` writes it (``RunResult.market`` of every variant) as CSV, Parquet or JSON.

``gridmarket sweep SCENARIO [--workers N] [--scheduler tcp://HOST:PORT|local] [--out DIR]
[--resume] [--set key=value ...]`` runs the scenario's sweep (:mod:`market.experiments.sweep`) on
local
processes (default: one per core; ``--workers 1``: in this process), on the Dask cluster at a
scheduler address, or on a local Dask cluster (``--scheduler local``), saving every run as it
finishes (:mod:`market.experiments.batch`). ``gridmarket report RESULTS [--out DIR] [--error
ci95|sd]
[--metrics a,b]`` draws its figures (:mod:`market.experiments.report`).

A scenario is a path or a name on the search path of :mod:`market.inputs.scenario_files`
(``gridmarket run profit/default``). ``gridmarket --version`` prints the installed version.

Bad input (a missing or invalid scenario file, a malformed ``--set``, an unknown format, a seed
or port out of range) ends with a one-line ``gridmarket: error: ...`` on stderr and exit status
2, never a traceback. ``run`` prints its summary before writing ``--jobs-out``, so a failed
write loses nothing printed (it is reported in one line, exit status 2). ``--format json`` keeps
every float exactly (shortest repr that reads back as the same double; NaN as null).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from market.cli import qbets as qbets_cli
from market.cli import scenarios as scenarios_cli
from market.cli.ending import exit_now, one_line_error

if TYPE_CHECKING:  # (each command imports what it runs when it runs: market/cli/ending.py)
    import pandas as pd


class UsageError(Exception):
    """A bad command line; the message is one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not usage + error
        raise UsageError(f"{self.prog}: {message}")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gridmarket", description="Simulate compute markets.")
    parser.add_argument("--version", action="version", version=f"gridmarket {version()}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("run", help="run a scenario and print its summary")
    run.add_argument("scenario", help="a scenario file, or a name such as profit/default")
    run.add_argument("--seed", type=int, help="random seed (default: the scenario's)")
    run.add_argument(
        "--variant",
        action="append",
        metavar="LABEL",
        help="run only this variant (repeatable; default: every variant)",
    )
    run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario field, e.g. clients.0.workload.mean_interarrival=0.3",
    )
    run.add_argument("--format", choices=["table", "json", "csv"], default="table")
    run.add_argument(
        "--columns",
        metavar="A,B",
        help="the table's columns, by name (e.g. variant,profit,utilization; default: those "
        "that mean something for this run, fitted to the terminal)",
    )
    run.add_argument(
        "--jobs-out", metavar="FILE", help="write the per-job table (.csv or .parquet)"
    )
    run.add_argument(
        "--jobs-format",
        choices=["table", "swf", "evalys"],
        help="--jobs-out as the per-job table (default; .swf: swf), an SWF trace of each "
        "schedule, or Batsim/evalys jobs.csv (see market/results/export.py)",
    )
    run.add_argument(
        "--market-out",
        metavar="FILE",
        help="write the market table: a row per agent and the market (.csv, .parquet, .json)",
    )

    sweep = commands.add_parser("sweep", help="run a scenario's sweep, saving every run")
    sweep.add_argument("scenario", help="a scenario file or name with a sweep: section")
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
    report.add_argument(
        "--markdown",
        metavar="PAGE.md",
        help="also write the tables and figure links into this Markdown page (its block for "
        "RESULTS is replaced, the rest kept), stamped with the command, version and date",
    )

    calibrate = commands.add_parser(
        "calibrate", help="score a calibration sweep against the profit paper's statements"
    )
    calibrate.add_argument("results", help="results of scenarios/profit/calibration.yaml")
    calibrate.add_argument("--top", type=int, default=10, help="parameter sets shown (10)")

    trace = commands.add_parser("trace", help="inspect SWF traces")
    trace_commands = trace.add_subparsers(dest="trace_command", required=True, parser_class=_Parser)
    info = trace_commands.add_parser("info", help="summarise an SWF trace")
    info.add_argument("file", help="an SWF file (.swf or .swf.gz), or a name on the trace path")
    info.add_argument("--skip-bad", action="store_true", help="skip malformed lines, counted")
    info.add_argument("--processors", type=int, help="machine size (default: the trace's MaxProcs)")
    qbets_cli.add_parser(trace_commands)
    scenarios_cli.add_parser(commands)

    for plugin in plugins().values():
        plugin.add_arguments(commands.add_parser(plugin.NAME, help=plugin.HELP))
    return parser


PLUGIN_GROUP = "gridmarket.commands"


def plugins() -> dict[str, Any]:
    """Commands other packages register under the ``gridmarket.commands`` entry point (the
    dashboard's): modules with ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args)``."""
    found = {}
    for entry in metadata.entry_points(group=PLUGIN_GROUP):
        module = entry.load()
        found[module.NAME] = module
    return found


def version() -> str:
    """The installed version of gridmarket (``unknown`` when running from an uninstalled
    source tree)."""
    try:
        return metadata.version("gridmarket")
    except metadata.PackageNotFoundError:
        return "unknown"


def in_range(option: str, value: int | None, low: int, high: int) -> None:
    """A one-line :class:`UsageError` unless ``low <= value <= high`` (or no value)."""
    if value is not None and not low <= value <= high:
        raise UsageError(f"{option}: {value} is out of range (from {low} to {high})")


def run_command(args: argparse.Namespace, out=None) -> int:
    """``gridmarket run``: every variant of the scenario on one seed."""
    import pandas as pd

    from market.cli.progress import RunProgress
    from market.cli.tables import chosen_columns, print_run_tables, run_frames, run_records
    from market.inputs.limits import MAX_SEED
    from market.inputs.scenario import load, parse_overrides
    from market.sim.model import GridMarket, MarketStalled

    out = sys.stdout if out is None else out
    jobs_out = Path(args.jobs_out) if args.jobs_out else None
    jobs_format = _jobs_format(jobs_out, args.jobs_format)
    market_out = Path(args.market_out) if args.market_out else None
    if market_out is not None and market_out.suffix.lower() not in (".csv", ".parquet", ".json"):
        raise UsageError(f"--market-out: {market_out} must end in .csv, .parquet or .json")
    in_range("--seed", args.seed, 0, MAX_SEED)
    try:
        chosen = chosen_columns(args.columns)
    except ValueError as exc:
        raise UsageError(f"--columns: {exc}") from None
    scenario = load(args.scenario)
    if args.set:
        scenario = scenario.with_overrides(parse_overrides(args.set))
    if args.variant:
        scenario = scenarios_cli.chosen_variants(scenario, args.variant, args.scenario)
    variants = scenario.expand(args.scenario)  # validates every variant before anything runs
    summaries, sites, jobs, runs, markets = [], [], [], [], []
    with RunProgress(len(variants)) as progress:  # on a terminal only
        results = []
        for label, variant in variants:
            progress.running(label)
            try:
                model = GridMarket(variant, seed=args.seed)
                progress.watch(model)
                results.append((label, variant, model.run()))
            except MarketStalled as exc:  # one line naming the cause; say which run
                where = args.scenario if len(variants) == 1 else f"{args.scenario}: {label}"
                raise MarketStalled(f"{where}: {exc}") from None
    for label, variant, result in results:
        summaries.append(result.summary.assign(variant=label, seed=result.seed))
        sites.append(result.sites.assign(variant=label, seed=result.seed))
        jobs.append(result.jobs.assign(variant=label, seed=result.seed))
        markets.append(result.market.assign(variant=label, seed=result.seed))
        runs.append((label, variant, result))
    summary, site_rows, market = run_frames(summaries, sites, markets)
    if args.format == "table":
        print_run_tables(summary, site_rows, market, scenario.name, out, chosen)
    else:
        records = run_records(summary, site_rows)
        if args.format == "json":
            out.write(json.dumps(json_records(records), indent=2) + "\n")
        else:
            records.to_csv(out, index=False)
    if jobs_out is not None:  # after the summary: a failed write loses nothing printed
        out.flush()
        if jobs_format != "table":
            from market.results.export import ExportError, export_schedules

            try:
                export_schedules(jobs_out, jobs_format, runs)
            except ExportError as exc:
                raise UsageError(f"--jobs-out: {exc}") from None
        else:
            _write_frame(pd.concat(jobs, ignore_index=True), jobs_out, "--jobs-out")
    if market_out is not None:
        out.flush()
        _write_frame(market, market_out, "--market-out")
    return 0


def json_records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame`` as JSON-ready dicts, every float exact (Python's shortest repr
    reads back as the same double), NaN and infinities as None, numpy scalars as Python's."""

    def plain(value):
        value = value.item() if hasattr(value, "item") else value
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    return [{str(k): plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def sweep_command(args: argparse.Namespace, out=None) -> int:
    """``gridmarket sweep``: every run of the scenario's sweep that ``--out`` does not hold."""
    from market.experiments.batch import SweepInterrupted, make_executor, run_sweep
    from market.experiments.sweep import SweepPlan
    from market.inputs.scenario import load, parse_overrides

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
            f"{report.seconds:.1f} s, {rate:.2f} runs/s, on {report.executor}",
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


def print_risk(table: pd.DataFrame, out) -> None:
    """The risk table of a sweep (:mod:`market.experiments.replication_risk`): per point and
    policy, each money
    outcome's mean +- 95 % CI, 5 % quantile, CVaR at 5 % and P(loss)."""
    from rich.console import Console
    from rich.table import Table

    from market.cli.formatting import cell

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
    width = None if getattr(out, "isatty", lambda: False)() else 200
    Console(file=out, width=width).print(shown)


def _jobs_format(path: Path | None, chosen: str | None) -> str:
    """The --jobs-out format: as chosen, else swf for .swf(.gz), else the per-job table."""
    if path is None:
        if chosen is not None:
            raise UsageError("--jobs-format: needs --jobs-out FILE")
        return "table"
    name = path.name.lower()
    fmt = chosen or ("swf" if name.endswith((".swf", ".swf.gz")) else "table")
    wanted = {"table": (".csv", ".parquet"), "swf": (".swf", ".swf.gz"), "evalys": (".csv",)}
    if not name.endswith(wanted[fmt]):
        raise UsageError(f"--jobs-out: {path} must end in {' or '.join(wanted[fmt])} for {fmt}")
    return fmt


def _write_frame(frame: pd.DataFrame, path: Path, option: str) -> None:
    """``frame`` as Parquet, JSON (records, every float exact) or CSV, by ``path``'s suffix."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix.lower() == ".parquet":
            frame.to_parquet(path, index=False)
        elif path.suffix.lower() == ".json":
            path.write_text(json.dumps(json_records(frame), indent=2) + "\n", encoding="utf-8")
        else:
            frame.to_csv(path, index=False)
    except OSError as exc:
        raise UsageError(f"{option}: cannot write {path} ({exc.strerror})") from None
    except ValueError as exc:  # e.g. pyarrow's ArrowInvalid
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{option}: cannot write {path} ({reason})") from None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gridmarket`` console script. Called without ``argv`` (as the
    script), a ``run`` that ends well ends the process at once
    (:func:`market.cli.ending.exit_now`)."""
    _user_modules_importable()
    try:
        args = _parser().parse_args(argv)
        if args.command == "run":
            code = run_command(args)
            if argv is None:
                exit_now(code)
            return code
        if args.command == "sweep":
            return sweep_command(args)
        if args.command == "report":
            return report_command(args)
        if args.command == "calibrate":
            from market.experiments.calibration import report

            in_range("--top", args.top, 1, 10**6)
            print(report(args.results, args.top), end="")
            return 0
        if args.command == "scenarios":
            return scenarios_cli.run(args)
        if args.command == "trace" and args.trace_command == "qbets":
            return qbets_cli.run(args)
        if args.command == "trace":
            from market.inputs.traces import format_trace_info, trace_info

            in_range("--processors", args.processors, 1, 10**9)
            info = trace_info(args.file, skip_bad=args.skip_bad, max_procs=args.processors)
            print(format_trace_info(info))
            return 0
        plugin = plugins().get(args.command)
        if plugin is not None:
            return plugin.run(args)
    except Exception as exc:
        if not (isinstance(exc, UsageError) or one_line_error(exc)):
            raise
        print(f"gridmarket: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gridmarket: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `gridmarket run ... | head`: stop quietly, as cat does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    return 1


def _user_modules_importable() -> None:
    """Put the current directory on the module path (last, so it shadows nothing), as
    ``python -m`` would: a scenario may name a policy of the user's own, ``mymodule:MyClass``,
    and worker processes inherit the path."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)


if __name__ == "__main__":
    sys.exit(main())
