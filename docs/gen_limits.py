"""The generated Limits page (``reference/limits.md``, written by ``docs/gen_ref.py``): every
constant that bounds a run, a trace or the dashboard, with its value and the meaning its comment
gives, read from the code so that the page never states a limit the code does not have.
"""

from __future__ import annotations

import importlib
import inspect
import re

#: The modules whose constants bound a run, a trace or the dashboard: every ``NAME = value`` with
#: its meaning in a ``#`` comment after it or ``#:`` lines before it, or only those named
#: (``NAME``, or a class attribute ``Class.name``).
LIMITS = {
    "market.inputs.limits": ("A scenario and its traces (the CLI and the dashboard)", ()),
    "market.inputs.scenario_files": ("A scenario file", ()),
    "market.sim.model": ("A run", ()),
    "dashboards.run_limits": ("The dashboard: jobs a tab and a server may hold", ()),
    "dashboards.session": ("The dashboard: the work of one update", ("Session.budget",)),
    "dashboards.paper_session": ("The dashboard's view pages", ("ViewSession.budget",)),
    "dashboards.served_scenarios": ("The dashboard: uploads and scenario files", ()),
    "dashboards.confined_paths": ("The dashboard: paths", ("MAX_PATH",)),
    "dashboards.app": ("The dashboard: requests", ()),
}
_AFTER = r"^{indent}({name}) = [^#\n]+?  # (.+)$"
_BEFORE = r"^((?:#: .*\n)+)({name}) = "


def _shown(value) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"`{value!r}`"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:g}"
    return f"{int(value):,}"


def _limits_of(module, names: tuple[str, ...]) -> list[tuple[str, object, str]]:
    """``(name, value, meaning)`` of the module's commented constants, or of ``names``."""
    source = inspect.getsource(module)
    meanings = dict(re.findall(_AFTER.format(indent=r"\s*", name="[A-Za-z_]+"), source, re.M))
    for text, name in re.findall(_BEFORE.format(name="[A-Z][A-Z_]*"), source, re.M):
        meanings.setdefault(name, " ".join(line[3:] for line in text.splitlines()))
    found = []
    for dotted in names or [n for n in meanings if n.isupper() and n[0] != "_"]:
        owner, _, name = dotted.rpartition(".")
        value = getattr(getattr(module, owner) if owner else module, name)
        found.append((dotted, value, meanings[name]))
    return found


def limits_page() -> str:
    """Every limit of :data:`LIMITS`' modules: its name, its value and its meaning."""
    lines = [
        "# Limits",
        "",
        "Generated from the constants in the code (`docs/gen_limits.py`): what a run, a trace and",
        "the dashboard may hold. A scenario over a limit is refused before any work, in one line",
        "naming the field or file (`gridmarket` exits with status 2; the dashboard says it in the",
        "page).",
        "What the limits mean for a scenario is in [Scenarios](../guide/scenarios.md#limits); the",
        "dashboard's in [the dashboard guide]"
        "(../guide/dashboard.md#what-a-browser-can-make-the-server-do).",
    ]
    for name, (title, attributes) in LIMITS.items():
        rows = [f"| `{n}` | {_shown(v)} | {m} |" for n, v, m in
                _limits_of(importlib.import_module(name), attributes)]  # fmt: skip
        lines += ["", f"## {title}", "", f"`{name}`", "", "| limit | value | meaning |",
                  "| --- | --- | --- |", *rows]  # fmt: skip
    return "\n".join(lines)
