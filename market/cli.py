"""The ``gridmarket`` command.

``gridmarket run SCENARIO [--seed N] [--set key=value ...] [--format table|json|csv]
[--jobs-out FILE]`` runs a scenario (each of its variants, on the same seed) and prints one
record per service provider with its policies and every summary metric.

Bad input (a missing or invalid scenario file, a malformed ``--set``, an unknown format) ends
with a one-line ``gridmarket: error: ...`` on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import pandas as pd

from market.model import GridMarket
from market.scenario import ScenarioError, load, parse_overrides

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
    except (UsageError, ScenarioError) as exc:
        print(f"gridmarket: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gridmarket: interrupted", file=sys.stderr)
        return 130
    return 1


if __name__ == "__main__":
    sys.exit(main())
