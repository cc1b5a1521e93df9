"""How many threads a ``gridmarket`` process's linear algebra starts (:func:`one_blas_thread`),
set once when a built-in command starts, before numpy is imported.

numpy's OpenBLAS starts a thread for each core when it loads, and those threads spin while they
wait for work. The market calls no linear algebra (its arrays are element-wise), so each extra
thread only burns CPU time; in a sweep, whose workers are one process a core, it would also
oversubscribe the machine. Our choice: one thread, as ``OPENBLAS_NUM_THREADS=1`` would give,
unless the user set OpenBLAS's thread count (``OPENBLAS_NUM_THREADS``, or the ``GOTO_NUM_THREADS``
and ``OMP_NUM_THREADS`` it falls back to). Child processes (a sweep's workers) inherit it.
"""

from __future__ import annotations

import os

#: The variables OpenBLAS reads its thread count from, in the order it reads them.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def one_blas_thread() -> bool:
    """Have OpenBLAS start one thread in this process and its children, unless the user set a
    count; whether it set it (no effect once numpy is imported)."""
    if any(name in os.environ for name in BLAS_THREADS):
        return False
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    return True
