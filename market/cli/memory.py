"""How the ``gridmarket`` process takes memory: two allocator settings for the whole process,
made once when the console script starts, before any command imports pandas.

- glibc's malloc serves a request of at least ``M_MMAP_THRESHOLD`` bytes from a memory map of its
  own, returned to the system when freed. By default the threshold rises to the size of each such
  block freed (up to 32 MiB), so after a trace's parse buffers are freed the later big buffers
  come from the heap, which keeps them. We fix it at glibc's default, :data:`MMAP_THRESHOLD`
  (what ``MALLOC_MMAP_THRESHOLD_`` would do, which the user may still set instead). Only on
  glibc: elsewhere, or if anything fails, nothing is done.
- pandas holds text columns in pyarrow arrays by default, whose first use touches megabytes of
  pyarrow's code and of its own memory pool (mimalloc or jemalloc) for a few strings: pandas
  keeps them as Python strings instead (``mode.string_storage``; the values, the ``str`` dtype
  and every file written are the same), and pyarrow, where it is used (Parquet files), takes its
  memory from malloc (``ARROW_DEFAULT_MEMORY_POOL=system``, inherited by child processes) unless
  the user chose a pool. Every command imports pandas anyway.
"""

from __future__ import annotations

import os

#: glibc's mallopt parameter number of the mmap threshold (malloc.h).
M_MMAP_THRESHOLD = -3
#: Requests of this many bytes or more get a memory map of their own: glibc's default, fixed.
MMAP_THRESHOLD = 128 * 1024


def tune_process_memory() -> None:
    """The settings of the module docstring, for this process (and pyarrow's, its children's)."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")  # (before pyarrow loads)
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:  # the user's own choice wins
        fix_mmap_threshold(MMAP_THRESHOLD)
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
