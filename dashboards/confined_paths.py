"""Paths inside a scenario the dashboard runs (a client's or a batch site's ``trace:``, any
path-like field) resolve only inside the folders it serves: the trace folders
(:func:`market.inputs.traces.trace_dirs`) and the scenario folders
(:func:`dashboards.served_scenarios.folders`).

A browser chooses or uploads the scenario, so a path in it is a browser's path: it is resolved
(symlinks followed) in those folders only, and an absolute path or one with ``..`` counts only if
its real path lies inside one. Anything else is refused with one line that repeats the name as
given and says nothing of the file: the same words whether it exists or not, and nothing of its
content (it is never opened). The scenario the model gets names the real path found, so the
model opens exactly the file checked here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dashboards.served_scenarios import folders
from market.inputs.scenario import Scenario, ScenarioError
from market.inputs.traces import ARCHIVE_URL, TRACES_ENV, trace_dirs

#: Field names that hold a path (``trace``, ``..._trace``, ``..._file``, ``..._path``, ...).
PATH_KEYS = ("trace", "file", "path", "dir")
MAX_PATH = 1024  # characters: longer is not a name of a served file


def is_path_key(key: Any) -> bool:
    """Whether a field named ``key`` holds a path."""
    suffixes = tuple(f"_{k}" for k in PATH_KEYS)
    return isinstance(key, str) and (key in PATH_KEYS or key.endswith(suffixes))


def served_folders() -> list[Path]:
    """The real paths of the folders whose files a scenario may name."""
    found: list[Path] = []
    for folder in [*trace_dirs(), *folders()]:
        try:
            real = Path(folder).expanduser().resolve()
        except (OSError, RuntimeError, ValueError):
            continue
        if real.is_dir() and real not in found:
            found.append(real)
    return found


def path_fields(data: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(dotted path, value)`` of every path-like string field in ``data`` (a scenario dumped
    to plain data), e.g. ``("clients.0.workload.trace", "SDSC-SP2.swf")``."""
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list | tuple):
        items = enumerate(data)
    else:
        return
    for key, value in items:
        where = f"{prefix}{key}"
        if is_path_key(key) and isinstance(value, str):
            yield where, value
        else:
            yield from path_fields(value, f"{where}.")


def _shown(name: str) -> str:
    """``name`` as the refusal repeats it: printable, at most 200 characters."""
    text = "".join(c if c.isprintable() else "?" for c in name[:200])
    return repr(text + ("..." if len(name) > 200 else ""))


def hint(name: str) -> str:
    """For a bare file name (a trace named as the scenarios name them): where to get it."""
    if "/" in name or "\\" in name or name.startswith((".", "~")):
        return ""
    return (
        f"; download it from the Parallel Workloads Archive ({ARCHIVE_URL}) into ./traces "
        f"or a folder on ${TRACES_ENV}"
    )


def find_served(name: str, folders: list[Path] | None = None) -> Path | None:
    """The real path of the served file ``name`` stands for (as given, then with ``.gz``; a
    relative name in each served folder in turn), or None."""
    if not name or len(name) > MAX_PATH or not name.isprintable():
        return None
    folders = served_folders() if folders is None else folders
    try:
        given = Path(name).expanduser() if name.startswith("~") else Path(name)
    except (RuntimeError, ValueError):
        return None
    bases = [given] if given.is_absolute() else [folder / given for folder in folders]
    for base in bases:
        for candidate in (base, base.with_name(base.name + ".gz")):
            try:
                real = candidate.resolve()
                inside = any(real.is_relative_to(folder) for folder in folders)
                if inside and real.is_file():
                    return real
            except (OSError, RuntimeError, ValueError):
                continue
    return None


def confine(scenario: Scenario, source: str = "scenario") -> Scenario:
    """``scenario`` with every path-like field naming the real path of a served file; a
    one-line :class:`ScenarioError` (see the module docstring) if one names anything else."""
    folders = served_folders()
    found: dict[str, str] = {}
    for where, name in path_fields(scenario.model_dump(mode="python")):
        real = find_served(name, folders)
        if real is None:
            raise ScenarioError(
                f"{source}: {where}: {_shown(name)} is not a file of the trace or scenario "
                f"folders this dashboard serves{hint(name)}"
            )
        if str(real) != name:
            found[where] = str(real)
    return scenario.with_overrides(found, source) if found else scenario


def check_paths(scenario: Scenario, source: str = "scenario") -> None:
    """Refuse ``scenario`` (one line) if it or one of its variants names a path that is not
    served (see :func:`confine`)."""
    confine(scenario.model_copy(update={"variants": {}}), source)
    for label, variant in scenario.expand(source):
        confine(variant, f"{source}: {label}")
