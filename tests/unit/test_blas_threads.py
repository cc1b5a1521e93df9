"""The ``gridmarket`` process's linear-algebra threads (market/cli/threads.py): one OpenBLAS
thread unless the user set a count, checked in fresh processes by the threads numpy leaves
running once loaded (Linux's /proc), and the user's own count kept."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from market.cli import threads
from tests.conftest import ROOT

# The threads of a process that sets (or not) the count, then imports numpy as pandas does.
PROBE = """
import os, sys
from market.cli.threads import one_blas_thread
print(one_blas_thread() if sys.argv[1] == "set" else None)
import numpy
print(len(os.listdir("/proc/self/task")))
"""


def threads_after_numpy(mode: str, **env: str) -> tuple[str, int]:
    clean = {k: v for k, v in os.environ.items() if k not in threads.BLAS_THREADS}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        check=True,
    )
    said, count = done.stdout.split()
    return said, int(count)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_numpy_starts_one_thread_once_set_and_the_users_count_is_kept():
    if (os.cpu_count() or 1) < 2:
        pytest.skip("OpenBLAS starts one thread on one core anyway")
    said, unset = threads_after_numpy("leave")
    if unset == 1:
        pytest.skip("this numpy's BLAS starts no threads of its own")
    assert said == "None" and unset > 1
    assert threads_after_numpy("set") == ("True", 1)
    assert threads_after_numpy("set", OMP_NUM_THREADS="2") == ("False", 2)  # (the main one too)


def test_a_count_the_user_set_is_never_replaced(monkeypatch):
    environ = {k: v for k, v in os.environ.items() if k not in threads.BLAS_THREADS}
    monkeypatch.setattr(os, "environ", environ)  # (this test's own, the process's kept)
    assert threads.one_blas_thread() is True
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    environ["OPENBLAS_NUM_THREADS"] = "4"
    assert threads.one_blas_thread() is False
    assert environ["OPENBLAS_NUM_THREADS"] == "4"
    del environ["OPENBLAS_NUM_THREADS"]
    environ["GOTO_NUM_THREADS"] = "3"
    assert threads.one_blas_thread() is False and "OPENBLAS_NUM_THREADS" not in environ
