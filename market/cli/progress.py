"""Progress of ``gridmarket run`` on a terminal: which variant runs, its simulated time and the
jobs submitted so far, shown (on stderr, with rich) once a run has lasted ``delay`` seconds and
erased when it ends. In a pipe, or when stdout or stderr is not a terminal, nothing is shown.

A thread reads the running model's clock and arrival count a few times a second; it never
writes to the model, so the run is the same with or without it.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from market.sim.model import GridMarket


def on_terminal() -> bool:
    """Whether both output streams are terminals (progress would not end up in a file)."""
    return sys.stdout.isatty() and sys.stderr.isatty()


class RunProgress:
    """A context manager around the runs of one command; :meth:`running` names each run.

    Args:
        runs: how many runs the command makes.
        enabled: show anything at all (default: :func:`on_terminal`).
        delay: seconds before the display appears (short runs show nothing).
        console: where to draw (default: stderr).
    """

    def __init__(
        self, runs: int, enabled: bool | None = None, delay: float = 1.0, console: Any = None
    ) -> None:
        self.runs = runs
        self.enabled = on_terminal() if enabled is None else enabled
        self.delay = delay
        self.console = console
        self._model: GridMarket | None = None
        self._label = ""
        self._done = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> RunProgress:
        if self.enabled:
            self._thread = threading.Thread(target=self._show, name="gridmarket-progress")
            self._thread.daemon = True
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def running(self, label: str) -> None:
        """Run ``label`` starts now (the one before, if any, is done)."""
        if self._label:
            self._done += 1
        self._label, self._model = label, None

    def watch(self, model: GridMarket) -> None:
        """The model of the current run, built (its clock and arrivals are shown)."""
        self._model = model

    def _state(self) -> str:
        model = self._model
        if model is None:
            return "reading its workload" if self._label else ""
        return f"t = {model.time:,.1f} h, {model.arrivals:,} jobs submitted"

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        if self._stop.wait(self.delay):
            return
        console = self.console if self.console is not None else Console(stderr=True)
        columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn()]
        columns += [MofNCompleteColumn(), TextColumn("{task.fields[state]}"), TimeElapsedColumn()]
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task(self._label, total=self.runs, state=self._state())
            while True:
                progress.update(
                    task, description=self._label, completed=self._done, state=self._state()
                )
                if self._stop.wait(0.2):
                    break
