"""``gridmarket reproduce PAPER``: run the sweeps behind a paper's headline claims and judge each.

The claims are :mod:`market.experiments.claims` (one list per paper). Each sweep runs through
:func:`market.experiments.batch.run_sweep` into ``OUT/<sweep>-<size>``, resumed, so a second
call runs only what is missing; run ids cover the scenario, not the code, so after changing a
policy start a new ``OUT``. A sweep whose SWF trace is not on the trace search path is not run
(its claims say ``not run: needs TRACE``). ``stored`` runs nothing and judges the runs ``OUT``
holds (the docs' tables); ``replications`` runs fewer seeds a point (a reduced size, which the
stamp says). :func:`markdown` gives the table for the docs, stamped with command, version, date.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from market.experiments.batch import BatchError, Executor, load_results, run_sweep
from market.experiments.claims import Claim, Paper, Results, Sweep
from market.experiments.sweep import SweepPlan
from market.inputs.scenario import load
from market.inputs.sweep_spec import SweepSpec
from market.inputs.traces import ARCHIVE_URL, TRACES_ENV, TraceNotFoundError, resolve_trace

NOT_RUN = "not run"


@dataclass
class Row:
    """One line of the verdict table."""

    claim: Claim
    verdict: str  # holds / partial / fails / not applicable / not run
    ours: str
    reason: str


@dataclass
class Reproduction:
    """The verdicts of one paper at one size, and what it took."""

    paper: Paper
    size: str
    rows: list[Row]
    runs: int = 0  # runs of the sweeps (done now or before)
    ran: int = 0  # runs this call ran
    seconds: float = 0.0
    failed: dict[str, int] = field(default_factory=dict)  # sweep -> runs that raised
    replications: int | None = None  # fewer seeds a point than the size's, if given

    @property
    def size_text(self) -> str:
        """``full size`` or ``full size reduced to 5 replications a point (the size's: 10)``."""
        reduced = {
            sweep.size(self.size).replications
            for sweep in self.paper.sweeps
            if self.replications is not None
            and sweep.size(self.size).replications > self.replications
        }
        if not reduced:
            return f"{self.size} size"
        sizes = ", ".join(str(n) for n in sorted(reduced))
        return (
            f"{self.size} size reduced to {self.replications} replications a point "
            f"(the {self.size} size's: {sizes})"
        )


def plan(sweep: Sweep, size: str, replications: int | None = None) -> SweepPlan:
    """The sweep plan of ``sweep`` at ``size`` (``quick`` or ``full``), with at most
    ``replications`` seeds a point if given."""
    scenario = load(sweep.scenario)
    chosen = sweep.size(size)
    if replications is not None and replications < chosen.replications:
        chosen = dataclasses.replace(chosen, replications=replications)
    where = f"reproduce {sweep.name} ({size})"
    if chosen.sets:
        scenario = scenario.with_overrides(dict(chosen.sets), where)
    variants = dict(scenario.variants)
    if sweep.variants is not None:
        variants = {label: variants[label] for label in sweep.variants}
    variants |= {label: dict(sets) for label, sets in sweep.extra.items()}
    spec = SweepSpec(
        parameters={sweep.paths[a]: list(values) for a, values in chosen.axes.items()},
        mode=chosen.mode,
        replications=chosen.replications,
        base_seed=1,
        seeds="common",
        metrics=None if sweep.metrics is None else list(sweep.metrics),
    )
    scenario = scenario.model_copy(update={"variants": variants, "sweep": spec})
    return SweepPlan.from_scenario(scenario, where)


def traces(sweep_plan: SweepPlan) -> list[str]:
    """The SWF traces the runs of ``sweep_plan`` read."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "trace" and isinstance(value, str):
                    found.add(value)
                else:
                    walk(value)
        elif isinstance(node, list | tuple):
            for value in node:
                walk(value)

    for run in sweep_plan.runs:
        walk(run.scenario.model_dump(mode="python"))
    return sorted(found)


def missing_traces(sweep_plan: SweepPlan) -> list[str]:
    """The traces of ``sweep_plan`` that the trace search path does not find."""
    missing = []
    for name in traces(sweep_plan):
        try:
            resolve_trace(name)
        except TraceNotFoundError:
            missing.append(name)
    return missing


def needs(missing: Iterable[str]) -> str:
    """The reason of a claim whose traces are missing."""
    names = ", ".join(missing)
    return (
        f"{NOT_RUN}: needs {names} (get it from the Parallel Workloads Archive, {ARCHIVE_URL}, "
        f"and put it in ./traces or a directory named by ${TRACES_ENV})"
    )


def reproduce(
    paper: Paper,
    size: str,
    out: str | Path,
    executor: Executor | None,
    progress: bool | None = None,
    stored: bool = False,
    replications: int | None = None,
) -> Reproduction:
    """Run the sweeps of ``paper`` at ``size`` into ``out`` (resuming) and judge every claim;
    with ``stored``, run nothing and judge the runs ``out`` holds."""
    out = Path(out)
    start = time.perf_counter()
    frames: dict[str, pd.DataFrame] = {}
    unavailable: dict[str, str] = {}  # sweep -> why its claims are not run
    report = Reproduction(paper, size, [], replications=replications)
    for sweep in paper.sweeps:
        sweep_plan = plan(sweep, size, replications)
        target = out / f"{sweep.name}-{size}"
        if stored:
            frame, why = stored_results(sweep_plan, target)
            if why:
                unavailable[sweep.name] = why
            else:
                frames[sweep.name] = frame
                report.runs += len(sweep_plan.runs)
            continue
        missing = missing_traces(sweep_plan)
        if missing:
            unavailable[sweep.name] = needs(missing)
            continue
        done = run_sweep(
            sweep_plan,
            target,
            executor=executor,
            resume=True,
            progress=progress,
            source=sweep.scenario,
        )
        report.runs += done.planned
        report.ran += len(done.ran)
        if done.failed:
            report.failed[sweep.name] = len(done.failed)
            unavailable[sweep.name] = (
                f"{NOT_RUN}: {len(done.failed)} runs failed (see {target / 'errors.jsonl'}; "
                "run again to retry them)"
            )
            continue
        frames[sweep.name] = load_results(target)
    results = Results(frames, {s.name: s for s in paper.sweeps})
    report.rows = [judge(claim, results, unavailable) for claim in paper.claims]
    report.seconds = time.perf_counter() - start
    return report


def stored_results(sweep_plan: SweepPlan, target: Path) -> tuple[pd.DataFrame | None, str]:
    """The runs of ``sweep_plan`` stored in ``target``, or why its claims cannot be judged."""
    if not (target / "manifest.json").is_file():
        return None, f"{NOT_RUN}: no results in {target}"
    wanted = {run.run_id for run in sweep_plan.runs}
    try:
        frame = load_results(target)
    except BatchError as exc:
        if "no finished runs" not in str(exc):
            raise
        frame = None
    else:
        frame = frame[frame["run_id"].isin(wanted)]
    have = 0 if frame is None else frame["run_id"].nunique()
    if have < len(wanted):
        return None, (
            f"{NOT_RUN}: {target} holds {have} of its {len(wanted)} runs (run the same command "
            "without --stored to finish them)"
        )
    return frame, ""


def judge(claim: Claim, results: Results, unavailable: Mapping[str, str] | None = None) -> Row:
    """The verdict row of ``claim`` on ``results``."""
    for name in claim.sweeps:
        if unavailable and name in unavailable:
            return Row(claim, NOT_RUN, "", unavailable[name])
    ours = claim.ours(results)
    reason = ""
    if ours.verdict != "holds":
        reason = claim.reason(results) or "unexplained: no reason recorded for this claim"
    return Row(claim, ours.verdict, ours.text, reason)


# -- output ----------------------------------------------------------------------------------------
STYLE = {"holds": "green", "partial": "yellow", "fails": "red", "not applicable": "dim"}


def tally(rows: Iterable[Row]) -> str:
    """``9 hold, 2 partial, 3 fail``."""
    counts: dict[str, int] = {}
    for row in rows:
        key = NOT_RUN if row.verdict.startswith(NOT_RUN) else row.verdict
        counts[key] = counts.get(key, 0) + 1
    words = {"holds": "hold", "fails": "fail"}
    return ", ".join(f"{n} {words.get(k, k)}" for k, n in counts.items())


def print_table(report: Reproduction, out) -> None:
    """The verdict table on ``out`` (rich; plain width when not a terminal)."""
    from rich.console import Console
    from rich.table import Table

    title = f"{report.paper.title}: claims ({report.size_text}) — {tally(report.rows)}"
    table = Table(title=title, show_lines=True)
    for name, ratio in (("claim", 4), ("paper", 2), ("ours", 3), ("verdict", 1), ("why", 4)):
        table.add_column(name, ratio=ratio, overflow="fold")
    for row in report.rows:
        c = row.claim
        style = STYLE.get(row.verdict, "dim")
        table.add_row(
            f"[bold]{c.id}[/] {c.where}: “{c.quote}”",
            c.paper,
            row.ours,
            f"[{style}]{row.verdict}[/]",
            row.reason,
        )
    width = None if out.isatty() else 200
    Console(file=out, width=width).print(table)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(report: Reproduction, command: str, version: str) -> str:
    """The verdict table as Markdown, stamped with the command, version and date."""
    date = datetime.now(UTC).strftime("%Y-%m-%d")
    size = report.size_text
    missing = sum(row.verdict.startswith(NOT_RUN) for row in report.rows)
    if missing:
        size += f" except {missing} claims not run (their rows say why)"
    lines = [
        "<!-- generated by gridmarket reproduce: do not edit by hand -->",
        f"# {report.paper.title}: claims",
        "",
        f"Generated by `{command}` (gridmarket {version}, {date}; {size}, "
        f"{report.runs} runs). Verdicts: {tally(report.rows)}.",
        "",
        "| claim | where | paper | ours | verdict | why not |",
        "|---|---|---|---|---|---|",
    ]
    for row in report.rows:
        c = row.claim
        cells = [f"**{c.id}**: “{c.quote}”", c.where, c.paper, row.ours, row.verdict, row.reason]
        lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return "\n".join(lines) + "\n"
