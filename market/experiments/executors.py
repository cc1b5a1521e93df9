"""Executors: where a sweep's runs run (this process, local processes, a Dask cluster), and the
one run each executes (:func:`execute_run`, a pure function of its scenario and seed).

:class:`InProcess` runs them one after the other (``--workers 1``); :class:`LocalProcesses`
(the default) is a ``ProcessPoolExecutor`` whose workers fork from a ``forkserver`` that has
imported the model; :class:`DaskCluster` runs on a Dask cluster at a scheduler address (workers
need gridmarket, not a shared disk) or a ``LocalCluster`` it starts. Each keeps a few runs per
worker in flight, so memory stays flat and Ctrl-C stops quickly. Mesa's ``batch_run`` is not
used: it forces the "spawn" start method, varies constructor arguments rather than dotted
scenario paths, steps rather than runs events, cannot resume and is removed in Mesa 4.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from market.experiments.sweep import RunSpec


class BatchError(ValueError):
    """A sweep that cannot start or go on, or results that cannot be read; one line."""


@dataclass
class RunOutcome:
    """What a worker sends back: the run's summary records, or the error it raised; the run's
    wall seconds, and the CPU seconds its process spent on it (``time.process_time``: what a
    parent cannot see of a worker that is not its child, such as a forkserver's)."""

    run_id: str
    records: list[dict[str, Any]] | None
    finished: bool
    seconds: float
    error: str | None = None
    trace: str | None = None
    cpu_seconds: float = 0.0


def execute_run(spec: RunSpec) -> RunOutcome:
    """Run one run of a sweep (in whichever process or worker calls it). An exception in the
    model is returned as the outcome's error, not raised, so one bad run does not stop a
    sweep."""
    from market.sim.model import GridMarket

    start, cpu = time.perf_counter(), time.process_time()
    try:
        result = GridMarket(spec.scenario, seed=spec.seed).run(jobs=False)  # (summary, sites)
    except Exception as exc:
        return RunOutcome(
            spec.run_id,
            None,
            False,
            time.perf_counter() - start,
            f"{type(exc).__name__}: {exc}",
            traceback.format_exc(),
            time.process_time() - cpu,
        )
    records = [
        *({**row, "table": "providers"} for row in result.summary.to_dict("records")),
        *({**row, "table": "sites"} for row in result.sites.to_dict("records")),
    ]
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return RunOutcome(spec.run_id, records, result.finished, seconds, cpu_seconds=cpu)


def default_workers() -> int:
    """The cores this process may use."""
    if hasattr(os, "sched_getaffinity"):  # (OS feature: Linux has it, macOS and Windows not)
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


def _worker_init(parent: int, path: list[str] | None = None) -> None:
    """Set up a pool worker: Ctrl-C goes to the whole process group, and the parent handles it
    (and stops the workers); a worker whose parent was killed outright (SIGKILL, where no
    clean-up runs) exits within a second instead of waiting on its queue for ever; and the
    parent's module ``path`` is on the worker's too (the forkserver may predate an entry), so
    a policy of the user's own (``module:Class``) imports there as it did in the parent."""
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.path.extend(p for p in path or () if p not in sys.path)

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
        ctx.set_forkserver_preload(["market.sim.model", "market.experiments.executors"])
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
            initargs=(os.getpid(), list(sys.path)),
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
                # (CPython internals: a process pool has no public way to stop its workers)
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
