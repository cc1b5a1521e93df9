"""The project's one-line error for bad input, free of every other module so that any layer
(the policies included) can raise it: the command line and the dashboard report it as one line,
never a traceback."""

from __future__ import annotations

import math
from typing import Any


class ScenarioError(ValueError):
    """A scenario that cannot be read or is not valid; the message is one line."""


def first_non_finite(data: Any, path: tuple[str, ...] = ()) -> tuple[str, float] | None:
    """``(dotted path, value)`` of the first float in ``data`` (mappings, lists) that is
    infinite or NaN, or None."""
    if isinstance(data, float):
        return None if math.isfinite(data) else (".".join(path), data)
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list | tuple):
        items = enumerate(data)
    else:
        return None
    for key, value in items:
        found = first_non_finite(value, (*path, str(key)))
        if found is not None:
            return found
    return None
