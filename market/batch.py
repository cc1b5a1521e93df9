"""Batch runs: run every run of a sweep on local processes or a Dask cluster, save each as it
finishes, resume what is missing, and load the results as one tidy DataFrame.

::

    from market.batch import LocalProcesses, load_results, run_sweep
    from market.scenario import load
    from market.sweep import SweepPlan

    if __name__ == "__main__":  # as for any multiprocessing: workers re-import the script
        plan = SweepPlan.from_scenario(load("scenarios/profit/fig3_load.yaml"))
        run_sweep(plan, "results/fig3", executor=LocalProcesses(2), resume=True)
        frame = load_results("results/fig3")      # one row per (run, service provider)

**Executors.** :class:`InProcess` runs one run after the other in this process (``--workers 1``:
for debugging, profiling, and the reference numbers). :class:`LocalProcesses` (the default, one
process per core) is the standard library's :class:`~concurrent.futures.ProcessPoolExecutor`; its
workers are forked from a ``forkserver`` that has imported the model once, so they start in
milliseconds. :class:`DaskCluster` runs on a Dask distributed cluster: an existing one given its
scheduler address (``tcp://host:port``; every worker needs gridmarket and its dependencies
installed, and only this process writes results, so workers need no shared disk), or a
``LocalCluster`` it starts itself. Each executor keeps only a few runs per worker in flight, so
memory stays flat and Ctrl-C stops quickly (workers ignore SIGINT, the parent stops them; a
worker whose parent was SIGKILLed exits by itself). A run is :func:`execute_run`, a pure
function of its resolved scenario and seed, so its numbers do not depend on which executor ran
it.

**Why not Mesa's ``batch_run``.** It is not used, on purpose: it calls
``multiprocessing.set_start_method("spawn", force=True)`` for the whole program; it varies
keyword arguments of the model's constructor, where ours are dotted paths into a nested
scenario; it steps the model ``max_steps`` times, where ours is event-driven and runs until every
job is done; it returns all rows at the end, so a crash loses everything and nothing can be
resumed; it has no distributed backend; and it is removed in Mesa 4.

**Results directory** (``OUT``)::

    OUT/manifest.json        the scenario (with its sweep), the plan's shape, versions, sessions
    OUT/runs/part-*.parquet  the rows: one per (run, service provider)
    OUT/errors.jsonl         runs that raised, with the error (they are retried by --resume)
    OUT/.lock                held while a sweep writes, so two sweeps never share a directory

Each finished run is written at once to its own small Parquet part (written to a temporary name,
then renamed, so a part is either whole or absent), so a sweep killed at any point, even with
SIGKILL, loses no finished run. Every 256 runs, and when the sweep ends or is interrupted, the
small parts are merged into one; :func:`load_results` drops the duplicates a kill during a merge
can leave. ``resume=True`` runs exactly the runs of the plan whose ``run_id`` is not in ``OUT``;
it refuses a directory that holds runs the plan does not have (the scenario was changed) or keeps
other metrics. Since run ids and seeds do not move when points, variants or replications are
added, resuming with a larger sweep runs only the new runs. Without ``resume``, a directory that
already holds results is refused. Run ids cover the scenario, not the code: after changing a
policy's code, start a new ``OUT`` (the manifest records the package versions of each session).

**Columns**: ``run_id``, ``variant``, ``replication``, ``seed``, one column per swept parameter
(named by its dotted path), ``provider``, ``scheduler``, ``admission``, the kept metrics,
``finished`` (the market emptied; sweeps run every market to the end), and ``run_seconds`` (the
run's wall time on its worker: the only column that differs between two runs of the same sweep).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from market.sweep import IDENTITY_COLUMNS, SUMMARY_METRICS, RunSpec, SweepPlan, column_values

FORMAT = 1
MERGE_EVERY = 256  # small parts merged into one every this many runs


class BatchError(ValueError):
    """A sweep that cannot start or go on, or results that cannot be read; one line."""


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a sweep; finished runs are saved. ``report`` says how far it
    got."""

    def __init__(self, report: SweepReport) -> None:
        super().__init__("sweep interrupted")
        self.report = report


# -- one run ---------------------------------------------------------------------------------------
@dataclass
class RunOutcome:
    """What a worker sends back: the run's summary records, or the error it raised."""

    run_id: str
    records: list[dict[str, Any]] | None
    finished: bool
    seconds: float
    error: str | None = None
    trace: str | None = None


def execute_run(spec: RunSpec) -> RunOutcome:
    """Run one run of a sweep (in whichever process or worker calls it). An exception in the
    model is returned as the outcome's error, not raised, so one bad run does not stop a
    sweep."""
    from market.model import GridMarket

    start = time.perf_counter()
    try:
        result = GridMarket(spec.scenario, seed=spec.seed).run()
    except Exception as exc:
        return RunOutcome(
            spec.run_id,
            None,
            False,
            time.perf_counter() - start,
            f"{type(exc).__name__}: {exc}",
            traceback.format_exc(),
        )
    records = result.summary.to_dict("records")
    return RunOutcome(spec.run_id, records, result.finished, time.perf_counter() - start)


def result_rows(spec: RunSpec, outcome: RunOutcome, metrics: list[str] | None) -> list[dict]:
    """The results rows of a finished run: its labels, the point, and the kept metrics (counts
    as integers, the rest as floats, so every part has the same column types)."""
    rows = []
    for record in outcome.records or []:
        row: dict[str, Any] = {
            "run_id": spec.run_id,
            "variant": spec.variant,
            "replication": spec.replication,
            "seed": spec.seed,
            **spec.columns,
        }
        for column in IDENTITY_COLUMNS:
            row[column] = record[column]
        names = metrics or [k for k in record if k not in IDENTITY_COLUMNS]
        for name in names:
            row[name] = _stored(record[name], SUMMARY_METRICS.get(name))
        row["finished"] = outcome.finished
        row["run_seconds"] = outcome.seconds
        rows.append(row)
    return rows


def _stored(value: Any, kind: type | None) -> Any:
    if kind is int:
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value if kind is None else float(value)
    return float(value)


# -- executors -------------------------------------------------------------------------------------
def default_workers() -> int:
    """The cores this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


class Executor:
    """Runs :func:`execute_run` over runs and yields the outcomes as they finish (any order)."""

    description = "executor"

    def map(self, specs: Iterable[RunSpec]) -> Iterator[RunOutcome]:
        raise NotImplementedError


class InProcess(Executor):
    """One run after the other, in this process (no pool): ``--workers 1``."""

    description = "this process"

    def map(self, specs: Iterable[RunSpec]) -> Iterator[RunOutcome]:
        for spec in specs:
            yield execute_run(spec)


def _worker_init(parent: int) -> None:
    """Set up a pool worker: Ctrl-C goes to the whole process group, and the parent handles it
    (and stops the workers); and a worker whose parent was killed outright (SIGKILL, where no
    clean-up runs) exits within a second instead of waiting on its queue for ever."""
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)
            except OSError:  # exists, not ours to signal
                pass

    threading.Thread(target=watch, name="gridmarket-parent-watch", daemon=True).start()


@contextlib.contextmanager
def _sigint_ignored():
    """Ignore Ctrl-C while starting processes, which then ignore it too (a Python started with
    SIGINT ignored keeps it ignored)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _mp_context():
    import multiprocessing

    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["market.model", "market.batch"])
        return ctx
    return multiprocessing.get_context("spawn")


class LocalProcesses(Executor):
    """A pool of ``workers`` local processes (:class:`concurrent.futures.ProcessPoolExecutor`,
    forked from a forkserver that preloads the model, spawned where there is none)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or default_workers()
        self.description = f"{self.workers} local process{'es' if self.workers > 1 else ''}"

    def map(self, specs: Iterable[RunSpec]) -> Iterator[RunOutcome]:
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        pool = ProcessPoolExecutor(
            self.workers,
            mp_context=_mp_context(),
            initializer=_worker_init,
            initargs=(os.getpid(),),
        )
        todo = iter(specs)
        pending: set = set()
        clean = False
        try:

            def fill() -> None:
                while len(pending) < 2 * self.workers:
                    spec = next(todo, None)
                    if spec is None:
                        return
                    pending.add(pool.submit(execute_run, spec))

            fill()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    pending.discard(future)
                    try:
                        outcome = future.result()
                    except BrokenProcessPool:
                        raise BatchError(
                            "a worker process died (out of memory, or killed); finished runs are "
                            "saved, --resume runs the rest"
                        ) from None
                    yield outcome
                fill()
            clean = True
        finally:
            if not clean:  # interrupted or failed: do not wait for the runs in flight
                for process in list((getattr(pool, "_processes", None) or {}).values()):
                    with contextlib.suppress(Exception):
                        process.terminate()
            pool.shutdown(wait=True, cancel_futures=True)


class DaskCluster(Executor):
    """Runs on a Dask distributed cluster: the scheduler at ``address`` (``tcp://host:port``),
    or, without one, a ``LocalCluster`` of ``workers`` single-threaded processes started for the
    sweep and closed after it."""

    def __init__(
        self, address: str | None = None, workers: int | None = None, timeout: str = "10s"
    ) -> None:
        self.address = address
        self.timeout = timeout
        self.workers = workers or default_workers()
        self.description = (
            f"the Dask cluster at {address}"
            if address
            else f"a local Dask cluster of {self.workers} processes"
        )

    def _connect(self):
        import logging

        from distributed import Client, LocalCluster

        if self.address:
            try:
                return Client(self.address, timeout=self.timeout), None
            except (OSError, TimeoutError, ValueError) as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise BatchError(f"--scheduler: cannot reach {self.address} ({first})") from None
        with _sigint_ignored():  # the workers inherit it: Ctrl-C is this process's business
            cluster = LocalCluster(
                n_workers=self.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
        return Client(cluster), cluster

    def map(self, specs: Iterable[RunSpec]) -> Iterator[RunOutcome]:
        from distributed import as_completed

        client, cluster = self._connect()
        todo = iter(specs)
        futures = as_completed()
        in_flight: set = set()
        clean = False

        def window() -> int:
            return max(8, 2 * sum(client.nthreads().values()))

        def submit(count: int) -> None:
            for _ in range(count):
                spec = next(todo, None)
                if spec is None:
                    return
                future = client.submit(execute_run, spec, key=f"gridmarket-run-{spec.run_id}")
                in_flight.add(future)
                futures.add(future)

        try:
            size, checked = window(), time.monotonic()
            submit(size)
            for future in futures:
                in_flight.discard(future)
                try:
                    outcome = future.result()
                except Exception as exc:
                    raise BatchError(
                        f"the Dask cluster failed a run ({type(exc).__name__}: {exc}); finished "
                        "runs are saved, --resume runs the rest"
                    ) from None
                future.release()
                yield outcome
                if time.monotonic() - checked > 5:  # the cluster may have grown or shrunk
                    size, checked = window(), time.monotonic()
                submit(size - len(in_flight))
            clean = True
        finally:
            if not clean and in_flight:
                with contextlib.suppress(Exception):
                    client.cancel(list(in_flight))
            with contextlib.suppress(Exception):
                client.close()
            if cluster is not None:
                with contextlib.suppress(Exception):
                    cluster.close()


def make_executor(workers: int | None = None, scheduler: str | None = None) -> Executor:
    """The executor the command line asks for: ``scheduler`` an address or ``"local"`` (Dask),
    else ``workers`` local processes (default: every core), or this process if 1."""
    if scheduler:
        return DaskCluster(None if scheduler == "local" else scheduler, workers)
    workers = workers or default_workers()
    return InProcess() if workers == 1 else LocalProcesses(workers)


# -- the results directory -------------------------------------------------------------------------
class ResultsStore:
    """A sweep's results directory (see the module docstring for its layout)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.manifest_path = self.root / "manifest.json"
        self.errors_path = self.root / "errors.jsonl"
        self._next = None
        self._small: list[tuple[Path, pa.Table]] = []

    def parts(self) -> list[Path]:
        """The finished part files, oldest first."""
        return sorted(self.runs.glob("part-*.parquet")) if self.runs.is_dir() else []

    def has_results(self) -> bool:
        return self.manifest_path.exists() or bool(self.parts())

    def manifest(self) -> dict | None:
        try:
            return json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise BatchError(f"{self.manifest_path}: cannot read ({exc})") from None

    def write_manifest(self, data: dict) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.manifest_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, self.manifest_path)

    def done_ids(self) -> set[str]:
        """The run ids already saved."""
        ids: set[str] = set()
        for part in self.parts():
            ids.update(pq.read_table(part, columns=["run_id"]).column("run_id").to_pylist())
        return ids

    def open(self) -> None:
        """Get ready to write: remove what a killed writer left half-written."""
        self.runs.mkdir(parents=True, exist_ok=True)
        for tmp in self.runs.glob("*.tmp"):
            tmp.unlink(missing_ok=True)
        numbers = [int(p.stem.split("-")[1]) for p in self.parts()]
        self._next = max(numbers, default=0) + 1
        self._small = []

    def _write(self, table: pa.Table) -> Path:
        path = self.runs / f"part-{self._next:06d}.parquet"
        self._next += 1
        tmp = path.with_name(path.name + ".tmp")
        pq.write_table(table, tmp)
        os.replace(tmp, path)
        return path

    def append(self, rows: list[dict]) -> None:
        """Save one run's rows as a part of its own (merged later)."""
        if rows:
            table = pa.Table.from_pylist(rows)
            self._small.append((self._write(table), table))
            if len(self._small) >= MERGE_EVERY:
                self.merge()

    def merge(self) -> None:
        """Merge the small parts written since the last merge into one: write the merged part
        (from memory), then delete the small ones (a kill in between leaves duplicates, which
        the loader drops)."""
        small, self._small = self._small, []
        if len(small) < 2:
            return
        self._write(_concat([table for _, table in small]))
        for path, _ in small:
            path.unlink(missing_ok=True)

    def log_error(self, spec: RunSpec, outcome: RunOutcome) -> None:
        entry = {
            "time": _now(),
            "run_id": spec.run_id,
            "variant": spec.variant,
            "point": spec.point,
            "replication": spec.replication,
            "seed": spec.seed,
            "error": outcome.error,
            "traceback": outcome.trace,
        }
        with self.errors_path.open("a", encoding="utf-8") as file:
            file.write(json.dumps(entry, default=str) + "\n")


def _concat(tables: list[pa.Table]) -> pa.Table:
    return pa.concat_tables(tables, promote_options="permissive")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


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
    seconds: float = 0.0
    interrupted: bool = False

    @property
    def todo(self) -> int:
        return self.planned - self.skipped

    @property
    def missing(self) -> int:
        """Runs of the plan not in OUT after this call."""
        return self.todo - len(self.ran)


def _prepare(store: ResultsStore, plan: SweepPlan, resume: bool) -> tuple[set[str], list[dict]]:
    if not store.has_results():
        return set(), []
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
    done = store.done_ids()
    stray = done - {run.run_id for run in plan.runs}
    if stray:
        raise BatchError(
            f"--resume: {store.root} holds {len(stray)} runs that are not in this sweep (was the "
            "scenario changed?); choose another --out"
        )
    return done, list(manifest.get("sessions", []))


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
        raise BatchError(f"{store.root}: cannot write results ({exc.strerror or exc})") from None


def _run_sweep(plan, store, executor, resume, progress, source) -> SweepReport:
    done, sessions = _prepare(store, plan, resume)
    todo = [run for run in plan.runs if run.run_id not in done]
    report = SweepReport(
        store.root, len(plan.runs), len(plan.runs) - len(todo), executor.description
    )
    session = {"started": _now(), "executor": executor.description, "skipped": report.skipped}
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
            finished=_now(),
            ran=len(report.ran),
            failed=len(report.failed),
            seconds=round(report.seconds, 3),
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


# -- reading results -------------------------------------------------------------------------------
def load_manifest(path: str | Path) -> dict:
    """The manifest of the results directory ``path`` (:class:`BatchError` if there is none)."""
    manifest = ResultsStore(path).manifest()
    if manifest is None:
        raise BatchError(f"{path}: no sweep results here (no manifest.json)")
    return manifest


def load_results(path: str | Path) -> pd.DataFrame:
    """Every saved run of the sweep in ``path`` (a results directory, or one Parquet file) as one
    tidy frame: one row per (run, service provider), sorted by parameters, variant (in the
    scenario's order), replication and provider. ``frame.attrs`` holds the sweep's
    ``parameters``, ``variants``, ``metrics`` and ``name`` when the manifest is there."""
    path = Path(path)
    if path.is_file():
        parts, manifest = [path], None
    else:
        store = ResultsStore(path)
        if not path.is_dir():
            raise BatchError(f"{path}: no such results directory")
        parts, manifest = store.parts(), store.manifest()
        if not parts:
            if manifest is None:
                raise BatchError(f"{path}: no sweep results here (no manifest.json, no runs/)")
            raise BatchError(f"{path}: the sweep has no finished runs yet")
    try:
        frame = _concat([pq.read_table(p) for p in parts]).to_pandas()
    except (OSError, pa.ArrowException) as exc:
        raise BatchError(f"{path}: cannot read results ({exc})") from None
    frame = frame.drop_duplicates(["run_id", "provider"], ignore_index=True)
    parameters = (manifest or {}).get("parameters", [])
    variants = (manifest or {}).get("variants") or list(dict.fromkeys(frame["variant"]))
    order = {label: i for i, label in enumerate(variants)}
    keys = [p for p in parameters if p in frame.columns]
    frame = (
        frame.assign(_variant=frame["variant"].map(order).fillna(len(order)))
        .sort_values([*keys, "_variant", "replication", "provider"], kind="stable")
        .drop(columns="_variant")
        .reset_index(drop=True)
    )
    if manifest is not None:
        frame.attrs.update(
            name=manifest.get("name"),
            parameters=parameters,
            variants=variants,
            metrics=manifest.get("metrics"),
        )
    return frame


def metric_columns(frame: pd.DataFrame) -> list[str]:
    """The metric columns of a results frame (numeric, not labels, not the point)."""
    fixed = {"run_id", "variant", "replication", "seed", "finished", "run_seconds"}
    fixed |= set(IDENTITY_COLUMNS) | set(frame.attrs.get("parameters", []))
    return [
        c
        for c in frame.columns
        if c not in fixed and "." not in c and pd.api.types.is_numeric_dtype(frame[c])
        and not pd.api.types.is_bool_dtype(frame[c])
    ]  # fmt: skip
