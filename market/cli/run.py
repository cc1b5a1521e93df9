"""``gridmarket run``: every variant of a scenario on one seed, its tables printed before any
file is written (a failed write loses nothing printed); ``--format json`` keeps floats exact. A
variant that cannot run (a missing trace, a stalled market) ends the run with its one-line error
after the tables and files of the variants run before it."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from market.cli import scenarios as scenarios_cli
from market.cli.output_paths import check_writable
from market.cli.usage import UsageError, in_range

if TYPE_CHECKING:
    import pandas as pd


def run_command(args: argparse.Namespace, out=None) -> int:
    """``gridmarket run``: every variant of the scenario on one seed."""
    import pandas as pd

    from market.cli.memory import free_cycles
    from market.cli.progress import RunProgress
    from market.cli.tables import chosen_columns, print_run_tables, run_frames, run_records
    from market.inputs.limits import MAX_SEED
    from market.inputs.scenario import ScenarioError, load, parse_overrides
    from market.inputs.swf import SwfError
    from market.inputs.traces import check_traces
    from market.sim.model import GridMarket, MarketStalled

    out = sys.stdout if out is None else out
    jobs_out = Path(args.jobs_out) if args.jobs_out else None
    jobs_format = _jobs_format(jobs_out, args.jobs_format)
    market_out = Path(args.market_out) if args.market_out else None
    if market_out is not None and market_out.suffix.lower() not in (".csv", ".parquet", ".json"):
        raise UsageError(f"--market-out: {market_out} must end in .csv, .parquet or .json")
    in_range("--seed", args.seed, 0, MAX_SEED)
    check_writable("--jobs-out", jobs_out)  # before the run, not after it
    check_writable("--market-out", market_out)
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
    for label, variant in variants:  # and finds every trace
        try:
            check_traces(variant)
        except SwfError as exc:
            where = args.scenario if len(variants) == 1 else f"{args.scenario}: {label}"
            raise type(exc)(f"{where}: {exc}") from None
    summaries, sites, jobs, runs, markets = [], [], [], [], []
    failed = None  # the one-line error of a variant that could not run
    with RunProgress(len(variants)) as progress:  # on a terminal only
        results = []
        for label, variant in variants:
            progress.running(label)
            if results:
                free_cycles()  # the variant before: its model is garbage by now
            try:
                model = GridMarket(variant, seed=args.seed)
                progress.watch(model)
                result = model.run(jobs=jobs_out is not None)
                model = None  # (not kept: the result holds what the tables need)
                results.append((label, variant, result))
            except (MarketStalled, ScenarioError, SwfError) as exc:  # one line: say which run
                where = args.scenario if len(variants) == 1 else f"{args.scenario}: {label}"
                before = "the variant" if len(results) == 1 else f"the {len(results)} variants"
                kept = f" (printed: {before} before it)" if results else ""
                failed = type(exc)(f"{where}: {exc}{kept}")
                break
    if not results:
        raise failed
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
    if failed is not None:  # after what the variants before it made is printed and written
        raise failed
    return 0


def json_records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame`` as JSON-ready dicts, every float exact (Python's shortest repr
    reads back as the same double), NaN and infinities as None, numpy scalars as Python's."""
    import numpy as np

    def plain(value):
        value = value.item() if isinstance(value, np.generic) else value
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    return [{str(k): plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


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


def writes_parquet(args: argparse.Namespace) -> bool:
    """Whether this ``run`` writes a Parquet file (its ``--jobs-out`` or ``--market-out``): it
    then needs pandas with pyarrow (market/cli/startup.py)."""
    return any(_is_parquet(Path(path)) for path in (args.jobs_out, args.market_out) if path)


def _is_parquet(path: Path) -> bool:
    return path.suffix.lower() == ".parquet"


def _write_frame(frame: pd.DataFrame, path: Path, option: str) -> None:
    """``frame`` as Parquet, JSON (records, every float exact) or CSV, by ``path``'s suffix."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if _is_parquet(path):
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
