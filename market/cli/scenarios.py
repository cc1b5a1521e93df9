"""``gridmarket scenarios [FOLDER] [--format table|csv|json]``: the scenarios on the search path,
each with its one-line description and the traces it needs, marked found or missing; and
``gridmarket run S --variant LABEL``'s choice of variants (:func:`chosen_variants`).

The files are read, not validated (a listing should show a broken file too): the description is
the file's ``description:`` (else its first comment line); the traces are every ``trace:`` of its
clients and batch sites, and those its variants and sweep switch to. A trace is found as a run
would find it (:func:`market.inputs.traces.resolve_trace`: ``$GRIDMARKET_TRACES``, ``./traces``,
``../shared/traces``).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from typing import Any, TextIO


@dataclass(frozen=True)
class ScenarioEntry:
    """One scenario file as listed."""

    name: str  # e.g. profit/default (what `gridmarket run` takes)
    description: str
    traces: tuple[str, ...]  # the trace files it needs (none: a synthetic workload)
    missing: tuple[str, ...]  # those not found on the trace search path


def add_parser(commands) -> None:
    """Register ``gridmarket scenarios``."""
    parser = commands.add_parser(
        "scenarios", help="list the scenarios, what each is, and the traces it needs"
    )
    parser.add_argument("folder", nargs="?", help="only this folder, e.g. qops")
    parser.add_argument("--format", choices=["table", "csv", "json"], default="table")


def _description(data: Any, text: str) -> str:
    if isinstance(data, dict) and isinstance(data.get("description"), str):
        return " ".join(data["description"].split())
    for line in text.splitlines():
        if line.startswith("#") and line.strip("# "):
            return line.strip("# ")
    return ""


def _traces(data: Any) -> list[str]:
    """Every trace file the scenario (its variants and its sweep included) may read."""
    if not isinstance(data, dict):
        return []
    found: list[Any] = []
    for client in data.get("clients") or []:
        if isinstance(client, dict) and isinstance(client.get("workload"), dict):
            found.append(client["workload"].get("trace"))
    for site in data.get("batch_sites") or []:
        if isinstance(site, dict):
            found.append(site.get("trace"))
    for sets in (data.get("variants") or {}).values():
        if isinstance(sets, dict):
            found += [v for k, v in sets.items() if str(k).endswith("trace")]
    sweep = data.get("sweep")
    parameters = sweep.get("parameters") if isinstance(sweep, dict) else None
    for key, values in (parameters or {}).items():
        if str(key).endswith("trace") and isinstance(values, list):
            found += values
    return list(dict.fromkeys(t for t in found if isinstance(t, str)))


def list_scenarios(folder: str | None = None) -> list[ScenarioEntry]:
    """Every scenario on the search path (``./scenarios`` first, then the shipped ones; a name
    listed once), or only those under ``folder``."""
    from market.inputs.scenario_files import (
        ScenarioFileError,
        list_files,
        parse_yaml,
        read_text,
        scenario_dirs,
    )
    from market.inputs.traces import TraceNotFoundError, resolve_trace

    entries: dict[str, ScenarioEntry] = {}
    for root in scenario_dirs():
        for name, path in list_files(root):
            short = name.removesuffix(".yaml").removesuffix(".yml")
            if short in entries or (folder and not short.startswith(folder.strip("/") + "/")):
                continue
            try:
                text = read_text(path)
                data = parse_yaml(text, name)
            except ScenarioFileError as exc:
                entries[short] = ScenarioEntry(short, f"(cannot be read: {exc})", (), ())
                continue
            traces = _traces(data)
            missing = []
            for trace in traces:
                try:
                    resolve_trace(trace)
                except TraceNotFoundError:
                    missing.append(trace)
            entry = ScenarioEntry(short, _description(data, text), tuple(traces), tuple(missing))
            entries[short] = entry
    return sorted(entries.values(), key=lambda e: e.name)


def chosen_variants(scenario: Any, labels: list[str], source: str) -> Any:
    """``scenario`` with only the variants ``labels`` (in the file's order); a one-line
    ``ScenarioError`` naming the labels there are if one is not among them."""
    from market.core.suggest import did_you_mean
    from market.inputs.scenario import ScenarioError

    for label in labels:
        if label not in scenario.variants:
            known = ", ".join(repr(v) for v in scenario.variants)
            there = f"its variants: {known}" if known else "it has no variants"
            near = did_you_mean(label, scenario.variants)
            raise ScenarioError(f"--variant: {source} has no variant {label!r}{near} ({there})")
    kept = {k: v for k, v in scenario.variants.items() if k in labels}
    return scenario.model_copy(update={"variants": kept})


def run(args: argparse.Namespace, out=None) -> int:
    """Print the listing; a folder with no scenario is a one-line error (exit status 2)."""
    from market.core.suggest import did_you_mean
    from market.inputs.scenario import ScenarioError
    from market.inputs.scenario_files import list_files, scenario_dirs, shown

    out = sys.stdout if out is None else out
    entries = list_scenarios(args.folder)
    if not entries:
        where = ", ".join(str(d) for d in scenario_dirs()) or "no scenario folder"
        folders = {n.split("/")[0] for d in scenario_dirs() for n, _ in list_files(d) if "/" in n}
        near = did_you_mean(args.folder, folders) if args.folder else ""
        what = (
            f"no scenario in folder {shown(repr(args.folder))}{near}"
            if args.folder
            else "no scenario"
        )
        raise ScenarioError(f"scenarios: {what} (looked in {where})")
    if args.format == "json":
        out.write(json.dumps([asdict(e) for e in entries], indent=2) + "\n")
    elif args.format == "csv":
        import csv

        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["name", "description", "traces", "missing"])
        for e in entries:
            writer.writerow([e.name, e.description, " ".join(e.traces), " ".join(e.missing)])
    else:
        _print_table(entries, out)
    return 0


def _print_table(entries: list[ScenarioEntry], out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    from market.cli.formatting import console_width
    from market.inputs.traces import ARCHIVE_URL, TRACES_ENV, trace_dirs

    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("scenario", no_wrap=True)
    table.add_column("description", ratio=3)
    table.add_column("trace", ratio=2, overflow="fold")
    for e in entries:
        marks = [f"{t} ({'missing' if t in e.missing else 'found'})" for t in e.traces]
        table.add_row(e.name, e.description, "\n".join(marks) or "-")
    console = Console(file=out, width=console_width(out, 120))
    console.print(table)
    missing = sorted({t for e in entries for t in e.missing})
    if missing:
        dirs = ", ".join(str(d) for d in trace_dirs())
        console.print(
            f"\n{len(missing)} trace(s) not found: {', '.join(missing)}. Download them from the "
            f"Parallel Workloads Archive ({ARCHIVE_URL}) into one of: {dirs} (or a folder named "
            f"in {TRACES_ENV}).",
            highlight=False,
        )
