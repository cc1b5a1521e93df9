"""Mesa's unused modules deferred in a ``gridmarket`` process (market/cli/startup.py): checked in
fresh processes, as the deferral must come before Mesa is imported. A run needs none of them;
each still works, from its first use, for whoever does use it; Mesa's module walk at import
loads none. Only the console script's own process defers: tests/unit/test_process_memory.py."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

from market.cli import startup
from tests.conftest import ROOT


def fresh(code: str) -> dict:
    """What ``code`` (run in a new Python after ``defer_unused_mesa()``) prints as JSON."""
    prelude = "import json, sys\nfrom market.cli.startup import defer_unused_mesa\n"
    done = subprocess.run(
        [sys.executable, "-c", prelude + code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    return json.loads(done.stdout.splitlines()[-1])


UNUSED = (
    "from market.cli.startup import UNUSED_MESA, UNUSED_BELOW_MESA\n"
    "UNUSED = UNUSED_MESA | UNUSED_BELOW_MESA\n"
)
STATE = """
def state():
    kinds = {name: type(sys.modules[name]).__name__ for name in sorted(UNUSED)}
    return {"kinds": kinds, "scipy": "scipy" in sys.modules, "networkx": "networkx" in sys.modules}
"""


def test_a_run_imports_none_of_the_deferred_modules_nor_scipy_or_networkx():
    out = fresh(
        UNUSED + STATE + "assert defer_unused_mesa()\n"
        "from market import GridMarket\n"
        "from market.inputs.scenario import load\n"
        "result = GridMarket(load('profit/default'), seed=3).run()\n"
        "print(json.dumps({**state(), 'jobs': len(result.jobs)}))\n"
    )
    assert set(out["kinds"].values()) == {"DeferredModule"}  # Mesa's import walk loaded none
    assert out["scipy"] is False and out["networkx"] is False
    assert out["jobs"] > 0


def test_each_deferred_module_works_from_its_first_use():
    out = fresh(
        UNUSED + STATE + "defer_unused_mesa()\n"
        "import importlib, mesa\n"
        "from mesa.discrete_space import OrthogonalMooreGrid\n"  # a name: runs the package
        "grid = OrthogonalMooreGrid((3, 4), torus=True, random=mesa.Model(rng=1).random)\n"
        "from mesa.experimental.continuous_space import *\n"  # reads __all__
        "legacy = mesa.space.MultiGrid(2, 2, torus=False)\n"
        "importlib.reload(mesa.space)\n"  # a reload runs the module again, at once
        "import asyncio\n"
        "async def seven():\n"
        "    return 7\n"
        "from tqdm.asyncio import tqdm_asyncio\n"  # (Mesa's tqdm.auto: asyncio's flavour)
        "ran, bar = asyncio.run(seven()), len(list(tqdm_asyncio(range(3), disable=True)))\n"
        "import sqlite3\n"
        "ran += sqlite3.connect(':memory:').execute('select 35').fetchone()[0]\n"
        "print(json.dumps({**state(), 'cells': len(grid.all_cells),\n"
        "    'star': 'ContinuousSpace' in dir(), 'legacy': legacy.width,\n"
        "    'async': ran, 'bar': bar}))\n"
    )
    assert set(out["kinds"].values()) == {"module"}
    assert out["scipy"] is True and out["networkx"] is True
    assert (out["cells"], out["star"], out["legacy"]) == (12, True, 2)
    assert (out["async"], out["bar"]) == (7 + 35, 3)


def test_a_submodule_imported_first_leaves_its_package_deferred_until_a_name_is_read():
    out = fresh(
        "defer_unused_mesa()\n"
        "import mesa, mesa.discrete_space.cell\n"
        "package = type(sys.modules['mesa.discrete_space']).__name__\n"
        "cell = mesa.discrete_space.cell.Cell\n"
        "grid = mesa.discrete_space.OrthogonalVonNeumannGrid\n"
        "print(json.dumps([package, type(sys.modules['mesa.discrete_space']).__name__]))\n"
    )
    assert out == ["DeferredModule", "module"]


def test_a_module_reloaded_before_its_first_use_is_simply_loaded():
    out = fresh(
        "defer_unused_mesa()\n"
        "import importlib, mesa\n"
        "importlib.reload(mesa.space)\n"  # (reads no name: the reload runs it)
        "width = mesa.space.MultiGrid(3, 2, torus=False).width\n"
        "try:\n"
        "    mesa.space.no_such_name\n"
        "except AttributeError as exc:\n"
        "    missing = str(exc)\n"
        "print(json.dumps([width, type(mesa.space).__name__, missing]))\n"
    )
    assert out[:2] == [3, "module"]
    assert "no_such_name" in out[2]


def test_nothing_is_deferred_once_mesa_is_imported_nor_twice():
    import mesa  # noqa: F401  (in this process, if no test imported it yet)

    assert startup.defer_unused_mesa() is False
    out = fresh(
        "first = defer_unused_mesa()\n"
        "again = defer_unused_mesa()\n"
        "finders = sum(type(f).__name__ == 'DeferUnused' for f in sys.meta_path)\n"
        "print(json.dumps([first, again, finders]))\n"
    )
    assert out == [True, False, 1]


LOGGERS = (
    "import logging\n"
    "names = sorted(n for n in logging.root.manager.loggerDict if n.startswith('MESA'))\n"
)


def test_mesa_imported_with_plain_frames_names_its_loggers_as_it_would_and_restores_inspect():
    plain = fresh(
        "import inspect\n"
        "stack, outer, getmodule = inspect.stack, inspect.getouterframes, inspect.getmodule\n"
        "defer_unused_mesa()\n"
        "import mesa\n" + LOGGERS + "restored = [inspect.stack is stack,\n"
        "    inspect.getouterframes is outer, inspect.getmodule is getmodule]\n"
        "print(json.dumps([names, restored]))\n"
    )
    usual = fresh("import mesa\n" + LOGGERS + "print(json.dumps(names))\n")
    assert plain == [usual, [True, True, True]]
    assert "MESA.mesa.model" in usual


def test_plain_frames_are_the_frames_up_the_stack_with_their_names():
    def inner():
        return startup._plain_frames(sys._getframe())

    frames = inner()
    here = sys._getframe()
    assert [f.function for f in frames[:2]] == ["inner", here.f_code.co_name]
    assert frames[1].frame is here
    assert frames[0].filename == __file__ and frames[0].code_context is None
    assert len(frames) == len(inspect.stack(0)) + 1  # (inner's own frame too)


def test_the_module_of_a_frame_is_the_one_its_globals_name_when_it_holds_the_frames_code():
    asked = []

    def by_file(obj, _filename=None):  # (stands for inspect.getmodule)
        asked.append(obj)
        return "by file"

    module_of = startup._frame_module(by_file)
    assert module_of(sys._getframe()) is sys.modules[__name__]
    assert asked == []
    # A frame of code from another file run in this module's globals: found by its file.
    other = eval(compile("sys._getframe()", "elsewhere.py", "eval"), globals())
    assert module_of(other) == "by file" and asked == [other]
    assert module_of(startup) == "by file"  # (not a frame: as the standard one answers)
