"""How the ``gridmarket`` command ends: which errors are bad input, reported in one line (exit
status 2) rather than as a traceback, and ending the process at once after a run.

Each command imports what it runs when it runs (so that ``--version`` and ``--help`` need
neither Mesa nor pandas), so the error classes are named by the module that defines them and
their name, and an error (or any of its base classes) is matched by its own module and name.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

#: The one-line errors, as (module, class name).
ONE_LINE_ERRORS = (
    ("market.cli.usage", "UsageError"),
    ("market.core.compiled", "CompileError"),
    ("market.core.errors", "ScenarioError"),
    ("market.experiments.executors", "BatchError"),
    ("market.experiments.report", "ReportError"),
    ("market.inputs.trace_file", "SwfError"),
    ("market.core.qbets", "QbetsError"),
    ("market.sim.model", "MarketStalled"),
)


def one_line_error(exc: BaseException) -> bool:
    """Whether ``exc`` is bad input reported as one line, not a bug."""
    return any((cls.__module__, cls.__qualname__) in ONE_LINE_ERRORS for cls in type(exc).__mro__)


def exit_now(code: int) -> NoReturn:
    """End the process with ``code`` at once, after flushing stdout and stderr: the objects of a
    finished run are not freed one by one at interpreter exit, work nobody waits for."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            code = 141
        except (OSError, ValueError):
            pass
    os._exit(code)
