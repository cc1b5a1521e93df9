"""Why a file could not be read, in the few words a one-line error ends with: the operating
system's own reason (``strerror``, "Permission denied", "Is a directory") for an OSError that
has one, else the first line of the error's message (a NUL byte in a name is a ValueError)."""

from __future__ import annotations


def reason(exc: Exception) -> str:
    """The reason ``exc`` gives, on one line."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    lines = str(exc).splitlines()
    return lines[0] if lines else type(exc).__name__
