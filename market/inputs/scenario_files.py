"""Scenario files: where a scenario name is found, and how a file is read and parsed safely.

:func:`resolve` tries the name as a path, then ``./scenarios/<name>``, then the shipped
scenarios (:func:`shipped_dir`: ``market/scenarios`` in a wheel, the checkout's ``scenarios/``
from source), each as given and with ``.yaml`` added (a ``scenarios/...`` path also without its
first folder); :func:`scenario_dirs` lists the folders that exist. :func:`read_text` reads only
a regular file (never a FIFO or device) of at most :data:`MAX_BYTES` of UTF-8.
:func:`parse_yaml` is YAML's safe loader, plus: a key given twice in one mapping is an error;
aliases expanding to more than :data:`MAX_NODES` values, nesting deeper than :data:`MAX_DEPTH`,
integers Python cannot hold and control characters are refused. Errors are one-line
:class:`ScenarioFileError` naming the file, never its contents.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import yaml

from market.inputs.os_errors import reason

#: The largest scenario file read (bytes): scenario files are a few kB; a sweep listing
#: 100,000 values stays well under it.
MAX_BYTES = 4 * 1024 * 1024

#: The most values (mapping, list and scalar nodes) a scenario document may hold once its
#: aliases are expanded.
MAX_NODES = 1_000_000

#: The deepest a scenario document may nest (a scenario nests about six levels).
MAX_DEPTH = 64

SUFFIX = ".yaml"


class ScenarioFileError(ValueError):
    """A scenario file that cannot be found, read or parsed; the message is one line."""


# -- the search path ---------------------------------------------------------------------------
def shipped_dir() -> Path | None:
    """The scenarios shipped with the package: ``market/scenarios`` in an installed wheel, else
    the checkout's top-level ``scenarios/`` (source tree or editable install); None if neither
    exists."""
    package = Path(__file__).resolve().parents[1]  # market/
    if (package / "scenarios").is_dir():
        return package / "scenarios"
    checkout = package.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "scenarios").is_dir():
        return checkout / "scenarios"
    return None


def scenario_dirs() -> list[Path]:
    """The scenario folders of the search path that exist: ``./scenarios``, then the shipped
    ones (once, if they are the same folder)."""
    dirs: list[Path] = []
    for folder in (Path.cwd() / "scenarios", shipped_dir()):
        if folder is not None and folder.is_dir():
            folder = folder.resolve()
            if folder not in dirs:
                dirs.append(folder)
    return dirs


def candidates(name: str | Path) -> list[Path]:
    """Every path :func:`resolve` tries for ``name``, in order. A relative path under
    ``scenarios/``, as the guides write one (``scenarios/varq/table4.yaml``), is also tried in
    the scenario folders without that prefix, so that it works from any directory."""
    name = Path(name).expanduser()
    bases = [name]
    if not name.is_absolute():
        bases += [folder / name for folder in scenario_dirs()]
        if len(name.parts) > 1 and name.parts[0] == "scenarios":
            bases += [folder.joinpath(*name.parts[1:]) for folder in scenario_dirs()]
    out: list[Path] = []
    for base in bases:
        out.append(base)
        if base.name and base.suffix not in (".yaml", ".yml"):
            out.append(base.with_name(base.name + SUFFIX))
    return out


def _exists(path: Path, regular: bool) -> bool:
    """Whether ``path`` is a regular file (or exists at all): False for a path the system cannot
    even look up (too long, a NUL byte)."""
    try:
        return path.is_file() if regular else path.exists()
    except (OSError, ValueError):
        return False


def resolve(name: str | Path) -> Path:
    """The scenario file ``name`` stands for (see the search path above)."""
    tried = candidates(name)
    for path in tried:
        if _exists(path, True):
            return path
    for path in tried:
        if _exists(path, False):  # a directory, a FIFO...: read_text says what is wrong with it
            return path
    where = ", ".join(str(d) for d in scenario_dirs()) or "no scenario folder"
    raise ScenarioFileError(
        f"{shown(name)}: no such scenario file (looked for it as a path and in {where})"
    )


def shown(name: str | Path, most: int = 200) -> str:
    """``name`` for a message: as it is, or cut with its length when longer than ``most``."""
    text = str(name)
    return text if len(text) <= most else f"{text[: most // 2]}... ({len(text):,} characters)"


def list_files(root: Path) -> list[tuple[str, Path]]:
    """``(name, path)`` of every ``.yaml``/``.yml`` regular file under ``root`` (symlinks that
    lead out of ``root`` left out), e.g. ``("profit/default.yaml", ...)``."""
    if not root.is_dir():
        return []
    real_root = root.resolve()
    found = []
    for path in sorted([*root.rglob("*.yaml"), *root.rglob("*.yml")]):
        real = path.resolve()
        if real.is_relative_to(real_root) and real.is_file():
            found.append((path.relative_to(root).as_posix(), path))
    return found


# -- reading and parsing -----------------------------------------------------------------------
def read_text(path: str | Path, limit: int = MAX_BYTES) -> str:
    """The text of the regular file at ``path`` (UTF-8, at most ``limit`` bytes)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # (not inherited: PEP 446)
    except FileNotFoundError:
        raise ScenarioFileError(f"{shown(path)}: no such scenario file") from None
    except (OSError, ValueError) as exc:  # (a NUL byte in the name is a ValueError)
        raise ScenarioFileError(f"{shown(path)}: cannot read ({reason(exc)})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ScenarioFileError(f"{path}: is a directory, not a scenario file")
        if not stat.S_ISREG(info.st_mode):
            raise ScenarioFileError(f"{path}: not a regular file")
        if info.st_size > limit:
            raise ScenarioFileError(f"{path}: larger than {limit:,} bytes")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise ScenarioFileError(f"{path}: cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ScenarioFileError(f"{path}: larger than {limit:,} bytes")
    return decode(data, str(path))


def decode(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text (a byte-order mark is dropped); a one-line error if it is not."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioFileError(
            f"{source}: not a UTF-8 text file (invalid byte at offset {exc.start})"
        ) from None


class _Loader(yaml.SafeLoader):
    """YAML's safe loader that refuses a key given twice in one mapping, and says where a value
    cannot be built (an integer of more than 4,300 digits) instead of raising a bare error."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except ValueError as exc:  # (YAML's own errors are not ValueErrors)
            text = str(exc)
            if "integer string conversion" in text:
                text = f"a number of more than {sys.get_int_max_str_digits():,} digits"
            raise yaml.constructor.ConstructorError(
                None, None, text.splitlines()[0], node.start_mark
            ) from None

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *base` merges; its keys may be overridden on purpose
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:  # an unhashable key: the base class says so
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
        return super().construct_mapping(node, deep=deep)


def _expanded_size(root: yaml.Node, limit: int, depth: int = MAX_DEPTH) -> int:
    """How many nodes the document holds with every alias expanded (``limit + 1`` when it is
    more, when an alias refers to a node that contains it, or when it nests deeper than
    ``depth``)."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if isinstance(node, yaml.ScalarNode):
            sizes[key] = 1
            continue
        if len(open_nodes) > depth:
            return limit + 1
        children = (
            [n for pair in node.value for n in pair]
            if isinstance(node, yaml.MappingNode)
            else list(node.value)
        )
        if children_done:
            open_nodes.discard(key)
            sizes[key] = min(1 + sum(sizes[id(c)] for c in children), limit + 1)
        elif key in open_nodes:
            return limit + 1  # a recursive alias: endless once expanded
        elif key not in sizes:
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(root)]


def parse_yaml(text: str, source: str) -> Any:
    """The data of a YAML document, or a one-line :class:`ScenarioFileError` naming ``source``
    and the line."""
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:  # a control character or a NUL byte
        line = text.count("\n", 0, exc.position) + 1
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise ScenarioFileError(
            f"{source}: line {line}: unacceptable character #x{code:04x} (control characters, "
            "NUL bytes and lone surrogates are not text)"
        ) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, MAX_NODES) > MAX_NODES:
            raise ScenarioFileError(
                f"{source}: more than {MAX_NODES:,} values once its aliases are expanded, or "
                f"nested more than {MAX_DEPTH} deep"
            )
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise ScenarioFileError(f"{source}:{line}: {exc.problem or 'not valid YAML'}") from None
    except yaml.YAMLError:
        raise ScenarioFileError(f"{source}: not valid YAML") from None
    except RecursionError:
        raise ScenarioFileError(f"{source}: nested too deeply") from None
    finally:
        loader.dispose()
