"""Output files checked before the work that fills them: ``--jobs-out``, ``--market-out`` and
``--markdown`` name a file a run or a sweep writes at its end, so a path that cannot be written
(its folder is a file, it is a folder itself, the file system refuses a file there) is a one-line
usage error at once, not after minutes of simulation. The check writes and removes a probe file
in the nearest folder that exists and creates no folder; a write that still fails at the end
(a full disk) keeps what was printed, as before."""

from __future__ import annotations

import os
from pathlib import Path

from market.cli.usage import UsageError


def check_writable(option: str, path: str | Path | None) -> None:
    """A one-line :class:`UsageError` naming ``option`` unless ``path`` can be written."""
    if path is None:
        return
    import tempfile  # (only when checking: --version and --help stay lean)

    from market.inputs.os_errors import reason
    from market.inputs.scenario_files import shown

    path = Path(path)
    try:
        if path.is_dir():
            raise UsageError(f"{option}: cannot write {shown(path)} (Is a directory)")
        folder = path.absolute().parent
        while not folder.exists():
            folder = folder.parent
        if not folder.is_dir():
            raise UsageError(
                f"{option}: cannot write {shown(path)} ({shown(folder)} is not a directory)"
            )
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".gridmarket-probe-")
        os.close(handle)
        os.unlink(probe)
    except (OSError, ValueError) as exc:  # (ValueError: a NUL byte in the name)
        raise UsageError(f"{option}: cannot write {shown(path)} ({reason(exc)})") from None
