"""What the README and the site name in code spans exists: each project path
(```market/results/windows.py```, ```scenarios/profit/default.yaml```) is a file or folder of the
checkout (or a scenario's name, ```market/competition```), and each dotted name
(```market.sim.model.MarketStalled```) imports, so a page does not send a reader to a module
that moved when the layers were split."""

from __future__ import annotations

import importlib
import re

import pytest

from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
TOP = ("market", "agents", "dashboards", "envs", "scenarios", "tests", "docs", "examples")
PATH = re.compile(rf"`((?:{'|'.join(TOP)})/[A-Za-z0-9_./-]+)`")
TOP_FILE = re.compile(r"`([A-Z][A-Z_]+\.md)`")  # README.md, DESIGN.md: at the checkout's top
DOTTED = re.compile(r"`((?:market|agents|envs|dashboards)\.[A-Za-z0-9_.]+)`")
# Names a page uses for what a command makes or a reader writes, not for a file of the checkout.
NOT_FILES = re.compile(r"[A-Z]{2,}|^docs/results/figures/|^market/scenarios$")


def _named(pattern: re.Pattern) -> list[tuple[str, str]]:
    found = set()
    for page in PAGES:
        for name in pattern.findall(page.read_text(encoding="utf-8")):
            found.add((str(page.relative_to(ROOT)), name))
    return sorted(found)


def importable(name: str) -> bool:
    """Whether ``name`` is a module, or an attribute path below the longest module it starts
    with."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


PATHS = [(page, name) for page, name in _named(PATH) if not NOT_FILES.search(name)]
PATHS += [(page, name) for page, name in _named(TOP_FILE) if name != "PAGE.md"]  # a placeholder
NAMES = _named(DOTTED)


def test_the_pages_name_paths_and_modules():
    assert len(PATHS) > 50 and len(NAMES) > 20


@pytest.mark.parametrize(("page", "path"), PATHS, ids=[f"{p}:{n}" for p, n in PATHS])
def test_a_named_path_exists(page, path):
    path = path.rstrip("/")
    scenario = ROOT / "scenarios" / path  # market/competition: a scenario's name
    found = (ROOT / path).exists() or scenario.exists() or scenario.with_suffix(".yaml").exists()
    assert found, f"{page} names {path}, which is not there"


@pytest.mark.parametrize(("page", "name"), NAMES, ids=[f"{p}:{n}" for p, n in NAMES])
def test_a_named_module_or_object_imports(page, name):
    assert importable(name), f"{page} names {name}, which does not import"


def test_the_check_tells_a_moved_name():
    assert importable("market.sim.model.MarketStalled")
    assert not importable("market.model.MarketStalled.nothing")
    assert not importable("market.sim.model.NoSuchThing")
