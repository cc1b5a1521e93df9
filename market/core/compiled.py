"""The capacity profile's inner loops compiled: :mod:`market.core.profile_kernel` built by Cython
as it is, loaded in its place when it has been built, else the module itself.

``gridmarket compile`` (run by ``make venv``) builds it into the cache (``GRIDMARKET_CACHE``,
else ``$XDG_CACHE_HOME/gridmarket`` or ``~/.cache/gridmarket``), named by the SHA-256 of the
source: an edited source is never run stale, it runs in Python until built again. Off with
``GRIDMARKET_COMPILED=0``. The same code either way, so the same results
(``tests/unit/test_compiled_kernel.py``); it is the only compiled code of the project, and plans
of conservative backfilling and of the QoPS family, which place every waiting job on a profile,
run faster with it (the figures: docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path
from types import ModuleType

#: The module compiled, in this package
SOURCE = Path(__file__).with_name("profile_kernel.py")


class CompileError(RuntimeError):
    """The kernel could not be compiled (no Cython, no C compiler, or the compiler failed)."""


def enabled() -> bool:
    """Whether the compiled kernel may be used (``GRIDMARKET_COMPILED`` is not ``0``)."""
    return os.environ.get("GRIDMARKET_COMPILED", "1").strip().lower() not in ("0", "false", "no")


def cache_dir() -> Path:
    """Where compiled kernels are kept (see the module docstring)."""
    if chosen := os.environ.get("GRIDMARKET_CACHE"):
        return Path(chosen).expanduser()
    if base := os.environ.get("XDG_CACHE_HOME"):
        return Path(base) / "gridmarket"
    try:
        return Path.home() / ".cache" / "gridmarket"
    except RuntimeError:  # (no home directory to be found)
        import tempfile

        return Path(tempfile.gettempdir()) / "gridmarket-cache"


def module_name() -> str:
    """The compiled module's name: the source's hash in it, so each source has its own."""
    return f"profile_kernel_{hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]}"


def built_path() -> Path:
    """Where the kernel of the current source is, once compiled for this Python."""
    return cache_dir() / "compiled" / f"{module_name()}{EXTENSION_SUFFIXES[0]}"


def kernel() -> ModuleType:
    """The compiled kernel of the current source if it is built and enabled, else
    :mod:`market.core.profile_kernel` (also when the built file cannot be loaded)."""
    from market.core import profile_kernel

    if not enabled():
        return profile_kernel
    try:
        path = built_path()
        if not path.is_file():
            return profile_kernel
        name = f"{__package__}.{path.name[: -len(EXTENSION_SUFFIXES[0])]}"
        loaded = sys.modules.get(name)
        if loaded is not None and loaded.__file__ == str(path):  # (this build, loaded before)
            return loaded
        loader = ExtensionFileLoader(name, str(path))
        module = module_from_spec(spec_from_loader(name, loader))
        loader.exec_module(module)
    except (ImportError, OSError):  # (a broken or foreign build: Python's code is the same)
        return profile_kernel
    return module


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` is a compiled kernel (not the Python source)."""
    return module.__name__ != f"{__package__}.profile_kernel"


def build() -> Path:
    """Compile the kernel of the current source for this Python into the cache (replacing
    nothing else); its path. Raises :class:`CompileError` with a one-line reason."""
    import shutil
    import tempfile

    try:
        from Cython.Build import cythonize
        from setuptools import Distribution, Extension
    except ImportError as exc:
        raise CompileError(
            f"compiling needs Cython and setuptools ({(exc.name or '?').split('.')[0]} is "
            "missing): pip install 'gridmarket[compiled]'"
        ) from None
    target, name = built_path(), module_name()
    with tempfile.TemporaryDirectory(prefix="gridmarket-compile-") as tmp:
        source = Path(tmp) / f"{name}.py"
        shutil.copyfile(SOURCE, source)
        try:
            extensions = cythonize(  # (a module of this package: it names itself so)
                [Extension(f"{__package__}.{name}", [str(source)])],
                compiler_directives={"language_level": 3},
                quiet=True,
            )
            dist = Distribution({"name": name, "ext_modules": extensions})
            command = dist.get_command_obj("build_ext")
            command.build_lib = command.build_temp = tmp
            command.ensure_finalized()
            command.run()
            built = Path(command.get_ext_fullpath(f"{__package__}.{name}"))
        except Exception as exc:  # (Cython's and the C compiler's errors have no common base)
            raise CompileError(f"compiling {SOURCE.name} failed: {_reason(exc)}") from None
        partial = target.with_name(f"{target.name}.{os.getpid()}.part")  # (one per process)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(built, partial)
            os.replace(partial, target)  # (atomic: a process loading it never sees half a file)
        except OSError as exc:
            raise CompileError(
                f"cannot write {target.name} into {target.parent}: {exc.strerror or exc} "
                "(set GRIDMARKET_CACHE to a folder you can write)"
            ) from None
    return target


def _reason(exc: Exception) -> str:
    """A failed build's reason in one line: the command that failed and how, or the error's
    last line (the compiler's own messages went to stderr before it)."""
    from subprocess import CalledProcessError

    cause: BaseException | None = exc
    while cause is not None:  # (setuptools wraps the compiler's CalledProcessError)
        if isinstance(cause, CalledProcessError):
            cmd = cause.cmd if isinstance(cause.cmd, list | tuple) else str(cause.cmd).split()
            return f"{cmd[0] if cmd else 'the compiler'} exited with status {cause.returncode}"
        cause = cause.__cause__ or cause.__context__
    lines = str(exc).strip().splitlines()
    return lines[-1] if lines else type(exc).__name__


def status(module: ModuleType) -> str:
    """One line: whether ``module``, the kernel in use, is compiled, and if not, why."""
    if is_compiled(module):
        return f"profile kernel: compiled ({module.__file__})"
    if not enabled():
        return "profile kernel: Python (GRIDMARKET_COMPILED=0)"
    if built_path().is_file():
        return f"profile kernel: Python (the build at {built_path()} does not load)"
    return "profile kernel: Python (not compiled for this source: run `gridmarket compile`)"
