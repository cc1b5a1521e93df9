"""Dotted paths into plain nested data: ``"clients.0.workload.jobs"`` names
``data["clients"][0]["workload"]["jobs"]`` (list items by their index).

The one helper behind ``--set``, variants and sweep parameters (:mod:`market.inputs.scenario`) and
the
dashboard's parameter boxes: :func:`get_path` reads a field, :func:`set_path` writes one. Both
walk the same way, so a path that one accepts the other accepts too. Errors are one line naming
the path up to the key that failed (:class:`PathError`); callers add the source (file, flag).
"""

from __future__ import annotations

import copy
from typing import Any

from market.core.suggest import did_you_mean

#: What :func:`get_path` returns for a path that names no field (unless given a default).
MISSING: Any = object()


class PathError(ValueError):
    """A dotted path that names no field; the message is one line, ``where: why``."""


def _step(node: Any, key: str, where: str) -> tuple[Any, str | int]:
    """The container key for ``key`` in ``node`` (list index as an int), or PathError."""
    if isinstance(node, list):
        if not key.isdigit() or int(key) >= len(node):
            raise PathError(f"{where}: no item {key} (the list has {len(node)})")
        return node, int(key)
    if isinstance(node, dict):
        return node, key
    raise PathError(f"{where}: cannot set a field inside a {type(node).__name__}")


def get_path(data: Any, path: str | None, default: Any = MISSING) -> Any:
    """``data[a][b][c]`` for ``path`` "a.b.c", or ``default`` (:data:`MISSING`) if any key along
    the way is not there (or ``path`` is None)."""
    if path is None:
        return default
    node = data
    for key in path.split("."):
        if isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return default
    return node


def set_path(data: Any, path: str, value: Any) -> None:
    """Set ``data[a][b][c] = value`` (a deep copy) for ``path`` "a.b.c". Every key but the last
    must exist; the last may add a mapping key. Raises :class:`PathError` naming the path up to
    the key that failed."""
    keys = path.split(".")
    node = data
    for depth, key in enumerate(keys):
        where = ".".join(keys[: depth + 1])
        node, index = _step(node, key, where)
        if depth == len(keys) - 1:
            node[index] = copy.deepcopy(value)
        elif isinstance(node, dict) and index not in node:
            raise PathError(f"{where}: no such field{did_you_mean(index, node)}")
        else:
            node = node[index]
