"""Which scenario files the dashboard opens (:func:`load_scenario`): files of the scenario
folders (``./scenarios``, the shipped ones, those passed to :func:`allow`: the operator's), by
path or by name (``profit/default``), whose real path (links followed) lies inside a folder; and
uploads (:func:`add_upload`) of at most :data:`MAX_BYTES`, kept in memory (the last
:data:`MAX_UPLOADS`). Names are cleaned first (:func:`clean`: no NUL, control character, lone
surrogate, or more than :data:`MAX_NAME` characters); files are read regular, bounded and UTF-8
only. Every error is one line naming the file, never its contents; whether a file exists is
looked at only inside the folders. Loaded scenarios are cached while a file is unchanged.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any

from dashboards.policy_references import refuse_module_references
from market.inputs.scenario import Scenario, ScenarioError, loads
from market.inputs.scenario_files import (
    ScenarioFileError,
    candidates,
    decode,
    list_files,
    parse_yaml,
    read_text,
    scenario_dirs,
)

MAX_BYTES = 1024 * 1024  # a scenario file or upload: scenario files are a few kB
MAX_UPLOADS = 32  # uploads kept (least recently added dropped first)
MAX_NAME = 1024  # characters of a path or file name
UPLOAD = "upload:"

_lock = threading.Lock()
_allowed: list[Path] = []  # folders and files allowed besides the scenario folders
_uploads: OrderedDict[str, str] = OrderedDict()  # key -> text


def allow(path: str | Path) -> None:
    """Let the dashboard open the folder or file ``path`` (the operator's own choice)."""
    real = Path(path).expanduser().resolve()
    with _lock:
        if real not in _allowed:
            _allowed.append(real)


def folders() -> list[Path]:
    """The scenario folders (real paths): ``./scenarios``, the shipped ones, and those
    allowed."""
    with _lock:
        extra = [p for p in _allowed if p.is_dir()]
    return list(dict.fromkeys([*scenario_dirs(), *extra]))


def files_under(root: Path) -> list[tuple[str, str]]:
    """``(label, path)`` of every scenario file under ``root``, e.g. ``profit/default.yaml``
    (links leading out of ``root`` left out)."""
    return [(name, str(path)) for name, path in list_files(root)]


def catalog(roots: list[Path] | None = None) -> list[tuple[str, str]]:
    """``(label, path)`` of the files of ``roots`` (default: the scenario folders), the first
    folder's file winning when two have one name."""
    seen: dict[str, str] = {}
    for root in folders() if roots is None else roots:
        for label, path in files_under(root):
            seen.setdefault(label, path)
    return list(seen.items())


def _permitted(real: Path) -> bool:
    with _lock:
        files = [p for p in _allowed if not p.is_dir()]
    return real in files or any(real.is_relative_to(folder) for folder in folders())


def clean(value: Any, what: str = "the path") -> str:
    """``value`` as a name the dashboard may look up (stripped); a one-line ScenarioError for
    anything else: not text, empty, longer than :data:`MAX_NAME`, or with a control character,
    a NUL byte or a lone surrogate (never shown back)."""
    if not isinstance(value, str) or not value.strip():
        raise ScenarioError(f"enter {what} of a scenario file")
    value = value.strip()
    if len(value) > MAX_NAME:
        raise ScenarioError(f"{what}: longer than {MAX_NAME:,} characters")
    if not value.isprintable() or any("\ud800" <= c <= "\udfff" for c in value):
        raise ScenarioError(f"{what}: has a character no file name of the scenario folders has")
    return value


def find(value: Any) -> Path:
    """The permitted file that ``value`` (a path, or a name in a scenario folder) stands for;
    a one-line ScenarioError if there is none. Whether a file exists is looked at only inside
    the permitted folders: the refusal of anything else reads the same whether it exists."""
    value = clean(value)
    given = Path(value).expanduser() if value.startswith("~") else Path(value)
    bases = [given] if given.is_absolute() else [Path.cwd() / given]
    bases += [] if given.is_absolute() else [folder / given for folder in folders()]
    inside = False
    for path in (c for base in bases for c in candidates(base)):
        try:
            real = path.resolve()
            if not _permitted(real):
                continue
            inside = True
            if real.exists():
                return real
        except (OSError, RuntimeError, ValueError):
            continue
    if inside:
        raise ScenarioError(f"{value}: no such scenario file")
    raise ScenarioError(
        f"{value}: not a file of the scenario folders (choose one from the list, or upload it)"
    )


def load_scenario(value: Any) -> Scenario:
    """The scenario ``value`` names: an upload key, or a permitted file (see the module
    docstring); a one-line ScenarioError otherwise."""
    value = clean(value, "the scenario")
    if value.startswith(UPLOAD):
        with _lock:
            text = _uploads.get(value)
        if text is None:
            raise ScenarioError(f"{value}: no such upload (upload the file again)")
        return _load_text(text, value)
    path = find(value)
    try:
        info = path.stat()
    except OSError:
        info = None
    key = None if info is None else (info.st_mtime_ns, info.st_size)
    return _load_file(str(path), key)


@lru_cache(maxsize=32)
def _load_file(path: str, key: tuple[int, int] | None) -> Scenario:
    try:
        text = read_text(path, MAX_BYTES)
    except ScenarioFileError as exc:
        raise ScenarioError(str(exc)) from None
    return _parse(text, path, Path(path).stem)


@lru_cache(maxsize=MAX_UPLOADS)
def _load_text(text: str, source: str) -> Scenario:
    name = source.rsplit("/", 1)[-1]
    try:
        data = parse_yaml(text, source)
    except ScenarioFileError as exc:
        raise ScenarioError(str(exc)) from None
    except Exception as exc:  # (an integer of thousands of digits...)
        raise ScenarioError(f"{source}: not a valid scenario ({one_line(exc)})") from None
    refuse_module_references(data, source)  # before validation imports anything
    return _parse(text, source, Path(name).stem or "upload")


def _parse(text: str, source: str, name: str) -> Scenario:
    """:func:`~market.inputs.scenario.loads`, with anything it lets escape (an integer of
    thousands of digits, a value that overflows) made one line too."""
    try:
        return loads(text, source, name)
    except ScenarioError:
        raise
    except RecursionError:
        raise ScenarioError(f"{source}: nested too deeply") from None
    except Exception as exc:
        raise ScenarioError(f"{source}: not a valid scenario ({one_line(exc)})") from None


def one_line(exc: BaseException, limit: int = 200) -> str:
    """The first line of ``exc``'s message, printable, at most ``limit`` characters (its type's
    name if it has none)."""
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    text = "".join(c if c.isprintable() else "?" for c in lines[0])
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _upload_name(filename: Any) -> str:
    """The file name part of an upload's name, printable and at most 100 characters."""
    raw = filename if isinstance(filename, str) else ""
    raw = "".join(c for c in raw if c.isprintable() and not "\ud800" <= c <= "\udfff")
    name = raw.replace("\\", "/").rsplit("/", 1)[-1].strip()[:100]
    return name if name not in ("", ".", "..") else "upload.yaml"


def add_upload(filename: Any, contents: Any) -> str:
    """Keep an upload (``contents`` as the browser sends it: ``data:...;base64,...``) and
    return the value that loads it; a one-line ScenarioError if it is too large, not base64 or
    not UTF-8 text. The scenario itself is validated when loaded."""
    name = _upload_name(filename)
    if not isinstance(contents, str) or not contents:
        raise ScenarioError(f"{name}: the upload is empty")
    _, _, encoded = contents.partition(",")
    if len(encoded) > (MAX_BYTES + 2) // 3 * 4:
        raise ScenarioError(f"{name}: larger than {MAX_BYTES:,} bytes")
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise ScenarioError(f"{name}: not a readable upload") from None
    if len(data) > MAX_BYTES:
        raise ScenarioError(f"{name}: larger than {MAX_BYTES:,} bytes")
    try:
        text = decode(data, name)
    except ScenarioFileError as exc:
        raise ScenarioError(str(exc)) from None
    key = f"{UPLOAD}{hashlib.sha256(data).hexdigest()[:16]}/{name}"
    with _lock:
        _uploads[key] = text
        _uploads.move_to_end(key)
        while len(_uploads) > MAX_UPLOADS:
            _uploads.popitem(last=False)
    return key
