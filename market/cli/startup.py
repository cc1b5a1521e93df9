"""Mesa's modules that no built-in command uses, and two of the standard library's that Mesa's
import pulls in, deferred to their first use (:func:`defer_unused_mesa`), set once when a
built-in command starts, before Mesa is imported; Mesa's own import spared reading the source of
every frame up the stack and the file of every module loaded (:class:`PlainFrames`); and pandas
imported without pyarrow for a command that writes no Parquet (:func:`pandas_without_arrow`).

``import mesa`` runs every subpackage Mesa's ``__init__`` names: the grids (``discrete_space``,
which imports ``scipy.spatial`` and networkx), the legacy ``space`` (networkx again) and the
experimental ``continuous_space``, and a market has no space; it also imports asyncio (through
``tqdm.auto``) and sqlite3 (Mesa's data recorders), reading nothing from either. Each becomes a
module whose code runs at the first read of a name from it (``from mesa.discrete_space import
...`` included: a user's own policy may). The import system's own attributes (``__file__``,
``__path__``...) are there from the start, so that what only looks at modules
(:func:`inspect.getmodule`) loads nothing; the standard library's
:class:`importlib.util.LazyLoader` loads on any attribute.
"""

from __future__ import annotations

import inspect
import sys
import threading
import types
from importlib.machinery import ModuleSpec, PathFinder

#: Modules of Mesa's that Mesa's ``__init__`` imports and no built-in command reads.
UNUSED_MESA = frozenset({"mesa.discrete_space", "mesa.space", "mesa.experimental.continuous_space"})
#: Modules of the standard library's that Mesa's ``__init__`` pulls in and no built-in command
#: reads: asyncio (through ``tqdm.auto``) and sqlite3 (Mesa's experimental data recorders).
UNUSED_BELOW_MESA = frozenset({"asyncio", "sqlite3"})

_RUNNING = threading.RLock()  # (one deferred module's code runs at a time)


class DeferredModule(types.ModuleType):
    """A module whose code has not run yet: it runs at the first read of a name it defines."""

    def __getattr__(self, name: str):  # (only called for names not already in the module)
        with _RUNNING:
            if type(self) is DeferredModule:  # (not run meanwhile by another thread)
                spec = self.__spec__
                self.__class__ = types.ModuleType  # (first: its own code reads its names)
                if isinstance(spec.loader, _DeferringLoader):  # (else a reload ran it already)
                    loader = spec.loader.loader
                    spec.loader = self.__loader__ = loader  # (a reload then runs it as usual)
                    loader.exec_module(self)
        return getattr(self, name)  # (a lazy module: the name, now that its code has run)


class _DeferringLoader:
    """Creates the module as the real loader would and leaves its code for later (a loader
    as the import system reads one: not derived from :mod:`importlib.abc`, whose import pulls
    in :mod:`importlib.resources` and more)."""

    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec):
        return None  # (the default module, made a DeferredModule in exec_module)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__class__ = DeferredModule


def _plain_frames(frame: types.FrameType | None) -> list[inspect.FrameInfo]:
    """``frame`` and every frame up the stack from it, as :func:`inspect.stack` gives them with
    ``context=0`` but for the file name (the code's own, not looked up) and without searching for
    the module of each (:func:`inspect.getmodule` walks ``sys.modules`` for a frame of the import
    system's, whose file is not a module's)."""
    frames = []
    while frame is not None:
        code = frame.f_code
        frames.append(inspect.FrameInfo(frame, code.co_filename, frame.f_lineno, code.co_name,
                                        None, None))  # fmt: skip
        frame = frame.f_back
    return frames


def _frame_module(getmodule):
    """:func:`inspect.getmodule` (``getmodule``) answering for the frame of a module's own code
    from the frame: the module its globals name, when that module's file is the frame's code's.
    The standard one finds it by the file, resolving the path of every module loaded (a
    ``realpath`` each, a system call per path component) the first time it is asked."""

    def module_of(obj, _filename=None):
        if isinstance(obj, types.FrameType):
            module = sys.modules.get(obj.f_globals.get("__name__"))
            if module is not None and vars(module).get("__file__") == obj.f_code.co_filename:
                return module
        return getmodule(obj, _filename)

    return module_of


class PlainFrames:
    """While Mesa's package runs: :func:`inspect.stack` and :func:`inspect.getouterframes` as
    :func:`_plain_frames` gives them, and :func:`inspect.getmodule` as :func:`_frame_module`
    does. Mesa's logging names each module's logger after the caller of
    ``create_module_logger`` or ``method_logger`` (``mesa.mesa_logging``), which the standard
    ones find by reading the source of every frame up the stack (and searching ``sys.modules``
    for each frame of the import system's), then by the caller's file. Only the frames' names
    and objects are read there."""

    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec):
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        stack, outer, getmodule = inspect.stack, inspect.getouterframes, inspect.getmodule
        inspect.stack = lambda context=1: _plain_frames(sys._getframe(1))
        inspect.getouterframes = lambda frame, context=1: _plain_frames(frame)
        inspect.getmodule = _frame_module(getmodule)
        try:
            self.loader.exec_module(module)
        finally:
            inspect.stack, inspect.getouterframes, inspect.getmodule = stack, outer, getmodule


class DeferUnused:
    """A finder for ``sys.meta_path``: finds the modules of ``names`` where the import system's
    path finder does, deferred, and Mesa's package to run with :class:`PlainFrames`."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path, target=None) -> ModuleSpec | None:
        if fullname == "mesa":
            wrap = PlainFrames
        elif fullname in self.names:
            wrap = _DeferringLoader
        else:
            return None
        if fullname in sys.modules:  # (a reload)
            return None
        spec = PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:  # (not found, or a namespace package)
            return spec
        spec.loader = wrap(spec.loader)
        return spec


def defer_unused_mesa() -> bool:
    """Defer :data:`UNUSED_MESA` and :data:`UNUSED_BELOW_MESA` in this process; whether it did (not
    once Mesa is imported)."""
    if "mesa" in sys.modules or any(isinstance(f, DeferUnused) for f in sys.meta_path):
        return False
    sys.meta_path.insert(0, DeferUnused(UNUSED_MESA | UNUSED_BELOW_MESA))
    return True


def pandas_without_arrow() -> bool:
    """Import pandas as it runs where pyarrow is not installed, for a process that writes no
    Parquet: pandas imports pyarrow, an optional dependency of its, when it is imported, and
    otherwise uses it only for Parquet and Arrow-backed columns (text columns are Python strings
    in a ``gridmarket`` process: :mod:`market.cli.memory`). pyarrow stays importable afterwards,
    for a user's own code, but pandas does not use it. Whether it did (not once pandas or pyarrow
    is imported)."""
    if "pandas" in sys.modules or "pyarrow" in sys.modules:
        return False
    sys.modules["pyarrow"] = None  # (the import system's "not installed", to pandas' import)
    try:
        import pandas  # noqa: F401
    finally:
        sys.modules.pop("pyarrow", None)  # (importable again)
    return True
