"""How a ``gridmarket`` process takes memory, set once when a built-in command starts
(:func:`tune_process_memory`), before it imports pandas:

- glibc's malloc maps each request above a threshold on its own, given back when freed; by
  default the threshold rises to each such block freed, so once a trace's parse buffers are
  freed later big buffers come from the heap, which keeps them. We fix it (as
  ``MALLOC_MMAP_THRESHOLD_`` would, which the user may set instead); only on glibc, never an error.
- pandas keeps text columns as Python strings (``mode.string_storage``; the same values and
  ``str`` dtype), not pyarrow arrays, whose first use touches megabytes of pyarrow's code and
  pool; pyarrow allocates with malloc (``ARROW_DEFAULT_MEMORY_POOL``) unless the user chose.
- a command that writes no Parquet imports pandas as if pyarrow were not installed
  (:func:`market.cli.startup.pandas_without_arrow`): pandas loads pyarrow, its optional
  dependency, at import, and such a command never uses it.
- ``gridmarket run`` runs without the cyclic garbage collector, whose passes would walk the
  run's objects for little garbage; each variant frees the one before (:func:`free_cycles`).
"""

from __future__ import annotations

import gc
import os

from market.cli.startup import pandas_without_arrow

#: glibc's mallopt parameter number of the mmap threshold (malloc.h).
M_MMAP_THRESHOLD = -3
#: Requests of this many bytes or more get a memory map of their own (a trace's parse blocks,
#: columns of over 131,072 numbers); smaller ones reuse the heap (mapped, each would cost a
#: system call and page faults for little memory).
MMAP_THRESHOLD = 1024 * 1024


def tune_process_memory(arrow: bool = True) -> None:
    """The settings of the module docstring, for this process (and pyarrow's, its children's);
    ``arrow=False``: pandas imported without pyarrow (the command writes no Parquet)."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")  # (before pyarrow loads)
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:  # the user's own choice wins
        fix_mmap_threshold(MMAP_THRESHOLD)
    if not arrow:
        pandas_without_arrow()
    import pandas as pd

    pd.set_option("mode.string_storage", "python")


def fix_mmap_threshold(size: int) -> bool:
    """Have glibc's malloc map every request of ``size`` bytes or more on its own, for good;
    whether it did (False off glibc, or if the call failed: never an error)."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):  # (ValueError where the name is unknown)
            return False
        import ctypes

        return ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, size) == 1
    except (ValueError, OSError, AttributeError):
        return False


def collector_off() -> None:
    """Turn the cyclic garbage collector off for the rest of this process (reference counting
    still frees everything outside cycles): for a process that runs one command and ends."""
    gc.disable()


def free_cycles() -> None:
    """Free the garbage in reference cycles now (a finished variant's model and agents) if the
    collector is off (:func:`collector_off`); with it on, it does so by itself."""
    if not gc.isenabled():
        gc.collect()
