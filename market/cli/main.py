"""The ``gridmarket`` command: the parser and the dispatch to each command's module
(:mod:`market.cli.run`, :mod:`market.cli.sweep` for ``sweep`` and ``report``,
:mod:`market.cli.reproduce`, :mod:`market.cli.scenarios`, ``trace``, ``calibrate``) and to
commands other packages register (entry-point group ``gridmarket.commands``: the dashboard).

Bad input (a missing or invalid scenario file, a malformed ``--set``, an unknown format, a seed
or port out of range) ends with a one-line ``gridmarket: error: ...`` on stderr and exit status
2, never a traceback. Each command imports what it runs when it runs, so ``--version`` and
``--help`` load neither Mesa nor pandas.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from market.cli import compile as compile_cli
from market.cli import qbets as qbets_cli
from market.cli import scenarios as scenarios_cli
from market.cli.ending import exit_now, one_line_error
from market.cli.memory import collector_off, tune_process_memory
from market.cli.reproduce import add_reproduce, reproduce_command
from market.cli.run import run_command, writes_parquet
from market.cli.startup import defer_unused_mesa
from market.cli.sweep import report_command, sweep_command
from market.cli.threads import one_blas_thread
from market.cli.usage import Parser, UsageError, in_range, parse, shortened
from market.cli.version import VersionAction

if TYPE_CHECKING:  # (each command imports what it runs when it runs: market/cli/ending.py)
    pass


def _parser(plugin_commands: bool = True) -> argparse.ArgumentParser:
    """The command line's parser; ``plugin_commands=False``: without the commands other packages
    add (:func:`plugins`), which a built-in command named first never reaches."""
    parser = Parser(prog="gridmarket", description="Simulate compute markets.")
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
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
    trace_commands = trace.add_subparsers(dest="trace_command", required=True, parser_class=Parser)
    info = trace_commands.add_parser("info", help="summarise an SWF trace")
    info.add_argument("file", help="an SWF file (.swf or .swf.gz), or a name on the trace path")
    info.add_argument("--skip-bad", action="store_true", help="skip malformed lines, counted")
    info.add_argument("--processors", type=int, help="machine size (default: the trace's MaxProcs)")
    qbets_cli.add_parser(trace_commands)
    scenarios_cli.add_parser(commands)

    add_reproduce(commands)
    compile_cli.add_parser(commands)

    for plugin in plugins().values() if plugin_commands else ():
        plugin.add_arguments(commands.add_parser(plugin.NAME, help=plugin.HELP))
    return parser


PLUGIN_GROUP = "gridmarket.commands"
#: The commands of this module, which run to an end (the others are plugins').
BUILT_IN = (
    "run",
    "sweep",
    "report",
    "reproduce",
    "calibrate",
    "scenarios",
    "trace",
    "compile",
)


def may_use_parquet(args: argparse.Namespace) -> bool:
    """Whether the command may read or write Parquet (pandas then needs pyarrow): every command
    but a ``run`` that writes no Parquet file (:func:`market.cli.run.writes_parquet`)."""
    return args.command != "run" or writes_parquet(args)


def plugins() -> dict[str, Any]:
    """Commands other packages register under the ``gridmarket.commands`` entry point (the
    dashboard's): modules with ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args)``."""
    from importlib import metadata

    found = {}
    for entry in metadata.entry_points(group=PLUGIN_GROUP):
        module = entry.load()
        found[module.NAME] = module
    return found


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gridmarket`` console script. Called without ``argv`` (as the
    script), a built-in command sets how many threads its linear algebra starts
    (:mod:`market.cli.threads`) and how it takes memory (:mod:`market.cli.memory`), defers the
    Mesa modules it never uses (:mod:`market.cli.startup`), and a ``run`` that ends well ends
    the process at once (:func:`market.cli.ending.exit_now`)."""
    _user_modules_importable()
    try:
        words = sys.argv[1:] if argv is None else argv
        args = parse(_parser(plugin_commands=not words or words[0] not in BUILT_IN), argv)
        if argv is None and args.command in BUILT_IN:  # the whole process is the command's
            one_blas_thread()  # (first: numpy, which starts them, comes with pandas below)
            if args.command == "run":  # (one scenario's runs, then the process ends)
                collector_off()
            # (a plugin's process, e.g. the dashboard's server, keeps glibc's malloc settings)
            tune_process_memory(arrow=may_use_parquet(args))
            defer_unused_mesa()  # (a plugin's process imports Mesa whole)
        if args.command == "run":
            code = run_command(args)
            if argv is None:
                exit_now(code)
            return code
        if args.command == "sweep":
            return sweep_command(args)
        if args.command == "report":
            return report_command(args)
        if args.command == "reproduce":
            return reproduce_command(args)
        if args.command == "calibrate":
            from market.experiments.calibration import report

            in_range("--top", args.top, 1, 10**6)
            print(report(args.results, args.top), end="")
            return 0
        if args.command == "scenarios":
            return scenarios_cli.run(args)
        if args.command == "compile":
            return compile_cli.run(args)
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
        print(f"gridmarket: error: {shortened(str(exc))}", file=sys.stderr)
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
