"""Batch runs: every run of a sweep on local processes or a Dask cluster, each saved as it
finishes, what is missing resumed, and the results loaded as one tidy DataFrame.

:mod:`market.experiments.sweep` expands a scenario's sweep into runs,
:mod:`market.experiments.executors` runs them, :mod:`market.experiments.results_store` saves
and reads them; :func:`run_sweep` drives them and decides what ``--resume`` runs. Their public
names are importable from here. Call it under ``if __name__ == "__main__":``, as for any
multiprocessing (workers re-import the script).
"""

from __future__ import annotations

import contextlib
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

from market.experiments.executors import (
    BatchError,
    DaskCluster,
    Executor,
    InProcess,
    LocalProcesses,
    RunOutcome,
    default_workers,
    execute_run,
    make_executor,
)
from market.experiments.results_store import (
    FORMAT,
    MERGE_EVERY,
    ResultsStore,
    load_manifest,
    load_results,
    metric_columns,
    result_rows,
    timestamp,
)
from market.experiments.sweep import SweepPlan
from market.inputs.os_errors import reason
from market.inputs.scenario_files import shown
from market.inputs.sweep_spec import column_values

__all__ = [
    "FORMAT",
    "MERGE_EVERY",
    "BatchError",
    "DaskCluster",
    "Executor",
    "InProcess",
    "LocalProcesses",
    "ResultsStore",
    "RunOutcome",
    "SweepInterrupted",
    "SweepReport",
    "default_workers",
    "execute_run",
    "load_manifest",
    "load_results",
    "make_executor",
    "metric_columns",
    "result_rows",
    "run_sweep",
]


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a sweep; finished runs are saved. ``report`` says how far it
    got."""

    def __init__(self, report: SweepReport) -> None:
        super().__init__("sweep interrupted")
        self.report = report


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for name in ("gridmarket", "mesa", "numpy", "pandas"):
        with contextlib.suppress(PackageNotFoundError):
            found[name] = version(name)
    return found


def _manifest(plan: SweepPlan, source: str | None, sessions: list[dict]) -> dict:
    values = plan.spec.parameter_values()
    return {
        "format": FORMAT,
        "name": plan.name,
        "source": source,
        "parameters": plan.parameters,
        "parameter_values": {path: column_values(vs) for path, vs in values.items()},
        "labels": dict(plan.spec.labels),
        "mode": plan.spec.mode,
        "variants": plan.variants,
        "replications": plan.spec.replications,
        "base_seed": plan.base_seed,
        "seeds": plan.spec.seeds,
        "metrics": plan.metrics,
        "runs": len(plan.runs),
        "versions": _versions(),
        "sessions": sessions,
        "scenario": plan.scenario.model_dump(mode="json"),
    }


# -- running a sweep -------------------------------------------------------------------------------
@dataclass
class SweepReport:
    """What :func:`run_sweep` did."""

    out: Path
    planned: int
    skipped: int  # already in OUT
    executor: str
    ran: list[str] = field(default_factory=list)  # run ids saved by this call
    failed: list[tuple[str, str]] = field(default_factory=list)  # (run id, error)
    seconds: float = 0.0  # wall time
    cpu_seconds: float = 0.0  # CPU time of the runs, wherever they ran (RunOutcome.cpu_seconds)
    interrupted: bool = False
    damaged: list[Path] = field(default_factory=list)  # unreadable parts set aside, re-run

    @property
    def todo(self) -> int:
        return self.planned - self.skipped

    @property
    def missing(self) -> int:
        """Runs of the plan not in OUT after this call."""
        return self.todo - len(self.ran)


def _prepare(
    store: ResultsStore, plan: SweepPlan, resume: bool
) -> tuple[set[str], list[dict], list[Path]]:
    """The run ids already done, the manifest's sessions, and the damaged parts set aside."""
    if not store.has_results():
        return set(), [], []
    if not resume:
        raise BatchError(
            f"--out: {store.root} already holds sweep results; add --resume to finish that "
            "sweep, or choose another --out"
        )
    manifest = store.manifest()
    if manifest is None:
        raise BatchError(f"--resume: {store.root} has runs but no manifest.json")
    if manifest.get("format") != FORMAT:
        raise BatchError(f"--resume: {store.root} was written by another version of gridmarket")
    if manifest.get("metrics") != plan.metrics:
        raise BatchError(
            f"--resume: {store.root} keeps metrics {manifest.get('metrics') or 'all'}, this "
            f"sweep keeps {plan.metrics or 'all'}; choose another --out"
        )
    damaged = store.set_aside_damaged()  # their runs are run again (see ResultsStore)
    done = store.done_ids()
    stray = done - {run.run_id for run in plan.runs}
    if stray:
        raise BatchError(
            f"--resume: {store.root} holds {len(stray)} runs that are not in this sweep (was the "
            "scenario changed?); choose another --out"
        )
    return done, list(manifest.get("sessions", [])), damaged


@contextlib.contextmanager
def _locked(root: Path):
    """Hold ``root/.lock`` for the sweep, so that two sweeps never write one directory."""
    if root.exists() and not root.is_dir():
        raise BatchError(f"--out: {root} is a file")
    foreign = root.is_dir() and any(p.name != ".lock" for p in root.iterdir())
    if foreign and not ResultsStore(root).has_results():
        raise BatchError(f"--out: {root} is not empty and holds no sweep; choose another --out")
    root.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    with (root / ".lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BatchError(f"--out: another sweep is writing to {root}") from None
        yield


def run_sweep(
    plan: SweepPlan,
    out: str | Path,
    *,
    executor: Executor | None = None,
    resume: bool = False,
    progress: bool | None = None,
    source: str | None = None,
) -> SweepReport:
    """Run the runs of ``plan`` that ``out`` does not hold yet, saving each as it finishes.

    Args:
        plan: the sweep (:meth:`SweepPlan.from_scenario`).
        out: the results directory.
        executor: where to run (default: :class:`LocalProcesses` on every core).
        resume: go on with the sweep already in ``out`` (else ``out`` must hold no results).
        progress: show a progress bar on stderr (default: when stderr is a terminal).
        source: the scenario file, recorded in the manifest.

    Raises:
        BatchError: ``out`` cannot be used or written, or the executor broke down (finished
            runs are saved).
        SweepInterrupted: on Ctrl-C, after saving what finished; ``.report`` has the counts.
    """
    store = ResultsStore(out)
    try:
        with _locked(store.root):
            return _run_sweep(plan, store, executor or LocalProcesses(), resume, progress, source)
    except OSError as exc:
        raise BatchError(f"{shown(store.root)}: cannot write results ({reason(exc)})") from None


def _run_sweep(plan, store, executor, resume, progress, source) -> SweepReport:
    done, sessions, damaged = _prepare(store, plan, resume)
    todo = [run for run in plan.runs if run.run_id not in done]
    report = SweepReport(
        store.root, len(plan.runs), len(plan.runs) - len(todo), executor.description
    )
    report.damaged = damaged
    session = {"started": timestamp(), "executor": executor.description, "skipped": report.skipped}
    if damaged:
        session["damaged_parts"] = [p.name for p in damaged]
    sessions = [*sessions, session]
    store.write_manifest(_manifest(plan, source, sessions))
    store.open()
    by_id = {run.run_id: run for run in todo}
    start = time.perf_counter()
    failing = True
    try:
        with _progress_bar(len(todo), plan.name, progress) as advance:
            outcomes = executor.map(todo) if todo else (o for o in ())
            with contextlib.closing(outcomes):
                for outcome in outcomes:
                    spec = by_id[outcome.run_id]
                    report.cpu_seconds += outcome.cpu_seconds
                    if outcome.error is not None:
                        store.log_error(spec, outcome)
                        report.failed.append((spec.run_id, outcome.error))
                    else:
                        store.append(result_rows(spec, outcome, plan.metrics))
                        report.ran.append(spec.run_id)
                    advance(len(report.failed))
        failing = False
    except KeyboardInterrupt:
        report.interrupted = True
        raise SweepInterrupted(report) from None
    finally:
        report.seconds = time.perf_counter() - start
        session.update(
            finished=timestamp(),
            ran=len(report.ran),
            failed=len(report.failed),
            seconds=round(report.seconds, 3),
            cpu_seconds=round(report.cpu_seconds, 3),
            interrupted=report.interrupted,
        )
        try:
            store.merge()
            store.write_manifest(_manifest(plan, source, sessions))
        except OSError:
            if not failing:  # else the error that stopped the sweep is the one to report
                raise
    return report


@contextlib.contextmanager
def _progress_bar(total: int, name: str, enabled: bool | None):
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    show = console.is_terminal if enabled is None else enabled
    if not show or total == 0:
        yield lambda failed: None
        return
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[failed]}"),
        console=console,
        transient=False,
    ) as bar:
        task = bar.add_task(name, total=total, rate="", failed="")
        start = time.perf_counter()

        def advance(failed: int) -> None:
            done = bar.tasks[0].completed + 1
            elapsed = time.perf_counter() - start
            bar.update(
                task,
                advance=1,
                rate=f"{done / elapsed:.1f} runs/s" if elapsed > 0 else "",
                failed=f"[red]{failed} failed" if failed else "",
            )

        yield advance
