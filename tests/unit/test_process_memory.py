"""The ``gridmarket`` process's allocator settings (market/cli/memory.py): glibc's mmap threshold
fixed (checked in a fresh process, where a freed big block would otherwise raise it), a no-op
that never raises elsewhere, pandas' text columns in Python strings, pyarrow's pool set to
malloc unless the user chose one, made only when a built-in command is the whole process (as
are the Mesa modules it defers, market/cli/startup.py); ``run`` as its own process without the
cyclic collector, each variant's model freed before the next is built."""

from __future__ import annotations

import ctypes
import gc
import os
import subprocess
import sys
import weakref

import numpy as np
import pandas as pd
import pytest

from market.cli import main as cli_main
from market.cli import memory
from tests.conftest import ROOT, easy_trace_scenario


def glibc() -> bool:
    try:
        return bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (ValueError, OSError, AttributeError):
        return False


# Frees a 16 MiB block malloc mapped, then asks for 2 MiB: is it mapped too? glibc's default
# raises its threshold to 16 MiB on that free (the block comes from the heap); fixed, it maps.
PROBE = """
import ctypes, sys
from market.cli.memory import MMAP_THRESHOLD, fix_mmap_threshold

FIELDS = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in FIELDS.split()]

libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.mallinfo2.restype = Info
if sys.argv[1] == "fixed":
    assert fix_mmap_threshold(MMAP_THRESHOLD)
libc.free(libc.malloc(16 << 20))
before = libc.mallinfo2().hblks
block = libc.malloc(2 << 20)
print(libc.mallinfo2().hblks - before)
"""


@pytest.mark.skipif(not glibc(), reason="glibc's malloc only")
def test_a_fixed_threshold_keeps_mapping_big_blocks_after_a_big_free():
    if not hasattr(ctypes.CDLL("libc.so.6"), "mallinfo2"):
        pytest.skip("glibc before 2.33 has no mallinfo2")

    def mapped(mode: str) -> int:
        done = subprocess.run(
            [sys.executable, "-c", PROBE, mode],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={"PYTHONPATH": str(ROOT), "PATH": ""},
        )
        return int(done.stdout.split()[-1])

    assert mapped("default") == 0  # the heap served it (and keeps it once freed)
    assert mapped("fixed") == 1


def test_off_glibc_or_on_any_failure_nothing_is_done_and_nothing_raised(monkeypatch):
    def unknown(name):
        raise ValueError(f"unrecognized configuration name {name!r}")

    monkeypatch.setattr(os, "confstr", unknown)  # macOS: no such name
    assert memory.fix_mmap_threshold(memory.MMAP_THRESHOLD) is False
    monkeypatch.setattr(os, "confstr", lambda name: None)  # no glibc version
    assert memory.fix_mmap_threshold(memory.MMAP_THRESHOLD) is False
    monkeypatch.delattr(os, "confstr")  # Windows
    assert memory.fix_mmap_threshold(memory.MMAP_THRESHOLD) is False


def test_no_libc_to_load_is_no_error(monkeypatch):
    monkeypatch.setattr(os, "confstr", lambda name: "glibc 2.36")

    def missing(name):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(ctypes, "CDLL", missing)
    assert memory.fix_mmap_threshold(memory.MMAP_THRESHOLD) is False


@pytest.fixture
def pandas_storage():
    """pandas' string storage put back after the test (the settings are the process's)."""
    before = pd.get_option("mode.string_storage")
    yield
    pd.set_option("mode.string_storage", before)


def test_text_columns_in_python_and_pyarrow_on_malloc_unless_chosen(monkeypatch, pandas_storage):
    fixed = []
    monkeypatch.setattr(memory, "fix_mmap_threshold", fixed.append)
    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    memory.tune_process_memory()
    assert os.environ["ARROW_DEFAULT_MEMORY_POOL"] == "system"
    assert fixed == [memory.MMAP_THRESHOLD]
    text = pd.DataFrame({"provider": ["site", None]}).provider
    assert text.dtype == pd.StringDtype("python", na_value=np.nan)  # pandas' str, in Python
    assert text.isna().tolist() == [False, True] and text.str.upper()[0] == "SITE"

    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")  # glibc reads it: not overridden
    memory.tune_process_memory()
    assert os.environ["ARROW_DEFAULT_MEMORY_POOL"] == "jemalloc"
    assert fixed == [memory.MMAP_THRESHOLD]


def test_the_built_in_commands_are_the_parsers_own():
    parser = cli_main._parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert set(commands) - set(cli_main.plugins()) == set(cli_main.BUILT_IN)


def test_only_the_console_script_tunes_its_process(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(cli_main, "one_blas_thread", lambda: calls.append("threads"))
    monkeypatch.setattr(
        cli_main, "tune_process_memory", lambda arrow: calls.append(f"memory, arrow {arrow}")
    )
    monkeypatch.setattr(cli_main, "defer_unused_mesa", lambda: calls.append("unused mesa"))
    assert cli_main.main(["scenarios", "profit"]) == 0  # called from Python: not its process
    assert calls == []
    monkeypatch.setattr(sys, "argv", ["gridmarket", "scenarios", "profit"])
    assert cli_main.main() == 0
    assert calls == ["threads", "memory, arrow True", "unused mesa"]  # (threads before numpy; the
    # threads: tests/unit/test_blas_threads.py; the Mesa modules: tests/unit/test_startup.py)
    assert "profit/default" in capsys.readouterr().out


def test_only_a_run_as_its_own_process_turns_the_collector_off(monkeypatch, tmp_path, capsys):
    calls = []
    for name in ("one_blas_thread", "defer_unused_mesa"):
        monkeypatch.setattr(cli_main, name, lambda: None)
    monkeypatch.setattr(cli_main, "tune_process_memory", lambda arrow: None)
    monkeypatch.setattr(cli_main, "collector_off", lambda: calls.append("collector off"))
    monkeypatch.setattr(cli_main, "exit_now", lambda code: calls.append(f"exit {code}"))
    path = easy_trace_scenario(tmp_path)
    assert cli_main.main(["run", path]) == 0  # called from Python: the caller's process
    monkeypatch.setattr(sys, "argv", ["gridmarket", "scenarios", "profit"])
    assert cli_main.main() == 0
    assert calls == []
    monkeypatch.setattr(sys, "argv", ["gridmarket", "run", path])
    cli_main.main()
    assert calls == ["collector off", "exit 0"]
    assert capsys.readouterr().out.count("t (seed 1)") == 2


def test_with_the_collector_off_a_variant_is_freed_before_the_next_is_built(monkeypatch, tmp_path):
    import market.sim.model

    alive = []  # weak references to every model built

    class Watched(market.sim.model.GridMarket):
        def __init__(self, *args, **kwargs):
            assert all(model() is None for model in alive), "a variant before is alive"
            super().__init__(*args, **kwargs)
            alive.append(weakref.ref(self))

    monkeypatch.setattr(market.sim.model, "GridMarket", Watched)
    path = easy_trace_scenario(tmp_path, variants={"A": {}, "B": {}, "C": {}})
    gc.collect()
    gc.disable()
    try:
        assert cli_main.main(["run", path, "--format", "csv"]) == 0
    finally:
        gc.enable()
    assert len(alive) == 3
