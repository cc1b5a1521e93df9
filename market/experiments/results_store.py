"""The results directory of a sweep, and the loader that reads it back as one tidy DataFrame.

``OUT/manifest.json`` (scenario, plan, versions, sessions), ``OUT/runs/part-*.parquet`` (one row
per run and table row; each run written whole or not at all, parts merged every 256 runs),
``OUT/errors.jsonl`` (failed runs) and ``OUT/.lock`` (one sweep at a time). ``resume=True`` runs
exactly the plan's runs whose ``run_id`` is missing and refuses results of another scenario; a
part Parquet cannot read is set aside as ``*.parquet.damaged`` and its runs run again (a run is
a pure function of its scenario and seed); so is a part whose bytes no longer match the SHA-256
in its name (``part-NUMBER-<sha256>.parquet``), a foreign file or a misnamed part. Run ids cover
the scenario, not the code. Columns:
``run_id``, ``variant``, ``replication``, ``seed``, one per swept parameter, ``table``
(``providers`` or ``sites``), ``provider``, ``scheduler``, ``admission``, the kept metrics,
``finished`` and ``run_seconds``.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from market.experiments.executors import BatchError, RunOutcome
from market.inputs.scenario_files import shown
from market.inputs.sweep_spec import IDENTITY_COLUMNS
from market.results.metrics import sweep_metrics

if TYPE_CHECKING:
    from market.experiments.sweep import RunSpec

FORMAT = 1
MERGE_EVERY = 256  # small parts merged into one every this many runs
_PART = re.compile(r"part-(\d+)(?:-([0-9a-f]{64}))?\.parquet")  # number, SHA-256 of the bytes
_LABELS = ("run_id", "variant", "replication", "seed")  # columns every part has
_MANIFEST_LISTS = ("parameters", "variants", "metrics", "sessions")


class DamagedPart(BatchError):
    """A results part that cannot be trusted; the message is one line naming it and why."""


def read_part(part: Path, columns: list[str] | None = None, named: bool = True) -> pa.Table:
    """The rows of the results part ``part`` (only ``columns``, if given), after checking its
    name (if ``named``), its SHA-256 (if its name has one) and that it is a sweep's part: else
    :class:`DamagedPart`."""
    match = _PART.fullmatch(part.name)
    if match is None and named:
        raise DamagedPart(f"{part}: damaged results part (not named part-NUMBER[-SHA256].parquet)")
    try:
        data = part.read_bytes()
    except OSError as exc:
        raise DamagedPart(f"{part}: damaged results part ({exc.strerror or exc})") from None
    if match is not None and match[2] is not None and hashlib.sha256(data).hexdigest() != match[2]:
        raise DamagedPart(
            f"{part}: damaged results part (its bytes changed since it was written: the SHA-256 "
            "in its name does not match)"
        )
    try:
        names = pq.read_schema(io.BytesIO(data)).names
        missing = [c for c in (*_LABELS, *IDENTITY_COLUMNS) if c not in names]
        if missing:
            raise DamagedPart(f"{part}: damaged results part (no sweep's: no {missing[0]} column)")
        return pq.read_table(io.BytesIO(data), columns=columns)
    except (OSError, pa.ArrowException) as exc:
        raise DamagedPart(f"{part}: damaged results part ({_first_line(exc)})") from None


def _part_number(part: Path) -> int | None:
    match = _PART.fullmatch(part.name)
    return int(match[1]) if match is not None else None


def result_rows(spec: RunSpec, outcome: RunOutcome, metrics: list[str] | None) -> list[dict]:
    """The results rows of a finished run: its labels, the point, which table of the run the
    row is from (``table``: ``providers`` or ``sites``), and the kept metrics (counts as
    integers, the rest as floats, so every part has the same column types). Every row of a run
    has the same columns: a metric a row does not have is NaN (e.g. a site's profit)."""
    types = sweep_metrics()
    records = outcome.records or []
    names = metrics or list(
        dict.fromkeys(k for r in records for k in r if k not in (*IDENTITY_COLUMNS, "table"))
    )
    rows = []
    for record in records:
        row: dict[str, Any] = {
            "run_id": spec.run_id,
            "variant": spec.variant,
            "replication": spec.replication,
            "seed": spec.seed,
            **spec.columns,
            "table": record.get("table", "providers"),
        }
        for column in IDENTITY_COLUMNS:
            row[column] = record[column]
        for name in names:
            row[name] = _stored(record.get(name), types.get(name))
        row["finished"] = outcome.finished
        row["run_seconds"] = outcome.seconds
        rows.append(row)
    return rows


def _stored(value: Any, kind: type | None) -> Any:
    if _missing(value):  # a metric this row does not have
        return None if kind is None else math.nan
    if kind is int:
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value if kind is None else float(value)
    return float(value)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


class ResultsStore:
    """A sweep's results directory (see the module docstring for its layout)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.manifest_path = self.root / "manifest.json"
        self.errors_path = self.root / "errors.jsonl"
        self._next = None
        self._small: list[tuple[Path, pa.Table]] = []

    def parts(self) -> list[Path]:
        """The finished part files, oldest first (parts of other names last)."""
        if not self.runs.is_dir():
            return []
        found = [p for p in self.runs.glob("part-*.parquet") if not p.is_dir()]
        return sorted(found, key=lambda p: (_part_number(p) is None, _part_number(p) or 0, p.name))

    def has_results(self) -> bool:
        return self.manifest_path.exists() or bool(self.parts())

    def manifest(self) -> dict | None:
        """The manifest (None if there is none; a one-line :class:`BatchError` if it is not
        one: not JSON, not a mapping, or a field of the wrong kind)."""
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError) as exc:
            raise BatchError(f"{self.manifest_path}: cannot read ({_first_line(exc)})") from None
        if not isinstance(data, dict):
            kind = {list: "list", str: "string"}.get(type(data), "value")
            raise BatchError(f"{self.manifest_path}: not a sweep manifest (a JSON {kind})")
        for key in _MANIFEST_LISTS:
            if not isinstance(data.get(key) or [], list):
                raise BatchError(f"{self.manifest_path}: not a sweep manifest ({key} is no list)")
        if not isinstance(data.get("scenario") or {}, dict):
            raise BatchError(f"{self.manifest_path}: not a sweep manifest (scenario is no mapping)")
        return data

    def write_manifest(self, data: dict) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.manifest_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, self.manifest_path)

    def done_ids(self) -> set[str]:
        """The run ids already saved (:class:`BatchError` if a part cannot be read)."""
        ids: set[str] = set()
        for part in self.parts():
            ids.update(read_part(part, ["run_id"]).column("run_id").to_pylist())
        return ids

    def set_aside_damaged(self) -> list[Path]:
        """Rename every damaged part (:func:`read_part`: truncated by a crash or a full disk
        after its rename, changed since, or no sweep's) to ``*.parquet.damaged`` and return the
        new names: its runs are then missing, and ``--resume`` runs them again (a run is a pure
        function of its scenario and seed, so the rows come back the same)."""
        damaged = []
        for part in self.parts():
            try:
                read_part(part, ["run_id"])
            except DamagedPart:
                target = part.with_name(part.name + ".damaged")
                os.replace(part, target)
                damaged.append(target)
        return damaged

    def open(self) -> None:
        """Get ready to write: remove what a killed writer left half-written."""
        self.runs.mkdir(parents=True, exist_ok=True)
        for tmp in self.runs.glob("*.tmp"):
            tmp.unlink(missing_ok=True)
        numbers = [n for p in self.parts() if (n := _part_number(p)) is not None]
        self._next = max(numbers, default=0) + 1
        self._small = []

    def _write(self, table: pa.Table) -> Path:
        buffer = io.BytesIO()
        pq.write_table(table, buffer)
        data = buffer.getvalue()
        path = self.runs / f"part-{self._next:06d}-{hashlib.sha256(data).hexdigest()}.parquet"
        self._next += 1
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return path

    def append(self, rows: list[dict]) -> None:
        """Save one run's rows as a part of its own (merged later)."""
        if rows:
            table = pa.Table.from_pylist(rows)
            self._small.append((self._write(table), table))
            if len(self._small) >= MERGE_EVERY:
                self.merge()

    def merge(self) -> None:
        """Merge the small parts written since the last merge into one: write the merged part
        (from memory), then delete the small ones (a kill in between leaves duplicates, which
        the loader drops)."""
        small, self._small = self._small, []
        if len(small) < 2:
            return
        self._write(_concat([table for _, table in small]))
        for path, _ in small:
            path.unlink(missing_ok=True)

    def log_error(self, spec: RunSpec, outcome: RunOutcome) -> None:
        entry = {
            "time": timestamp(),
            "run_id": spec.run_id,
            "variant": spec.variant,
            "point": spec.point,
            "replication": spec.replication,
            "seed": spec.seed,
            "error": outcome.error,
            "traceback": outcome.trace,
        }
        with self.errors_path.open("a", encoding="utf-8") as file:
            file.write(json.dumps(entry, default=str) + "\n")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _concat(tables: list[pa.Table]) -> pa.Table:
    return pa.concat_tables(tables, promote_options="permissive")


def timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _kind(path: Path) -> str:
    """``"dir"``, ``"file"``, ``"other"`` or ``"missing"`` (also for a name the system refuses:
    too long, a NUL byte)."""
    try:
        if path.is_dir():
            return "dir"
        return "file" if path.is_file() else "other" if path.exists() else "missing"
    except (OSError, ValueError):
        return "missing"


def _not_results(path: Path, kind: str) -> BatchError:
    there = "no such results directory" if kind == "missing" else "not a results directory"
    return BatchError(f"{shown(path)}: {there}" + (" but a file" if kind == "file" else ""))


def load_manifest(path: str | Path) -> dict:
    """The manifest of the results directory ``path`` (:class:`BatchError` if there is none)."""
    kind = _kind(Path(path))
    if kind != "dir":
        raise _not_results(Path(path), kind)
    manifest = ResultsStore(path).manifest()
    if manifest is None:
        raise BatchError(f"{path}: no sweep results here (no manifest.json)")
    return manifest


def load_results(path: str | Path) -> pd.DataFrame:
    """Every saved run of the sweep in ``path`` (a results directory, or one Parquet file) as one
    tidy frame: one row per (run, service provider), sorted by parameters, variant (in the
    scenario's order), replication and provider. ``frame.attrs`` holds the sweep's
    ``parameters``, ``variants``, ``metrics`` and ``name`` when the manifest is there."""
    path = Path(path)
    kind = _kind(path)
    if kind == "file" and path.suffix.lower() != ".parquet":
        raise BatchError(f"{path}: not a results directory (nor a results .parquet file)")
    if kind == "file":
        parts, manifest = [path], None
    else:
        store = ResultsStore(path)
        if kind != "dir":
            raise _not_results(path, kind)
        parts, manifest = store.parts(), store.manifest()
        if not parts:
            if manifest is None:
                raise BatchError(f"{path}: no sweep results here (no manifest.json, no runs/)")
            raise BatchError(f"{path}: the sweep has no finished runs yet")
    tables = []
    for part in parts:
        try:
            tables.append(read_part(part, named=not path.is_file()))
        except DamagedPart as exc:
            hint = "" if path.is_file() else "; gridmarket sweep --resume runs its runs again"
            raise DamagedPart(f"{exc}{hint}") from None
    frame = _concat(tables).to_pandas()
    keys = ["run_id", "table", "provider"] if "table" in frame else ["run_id", "provider"]
    frame = frame.drop_duplicates(keys, ignore_index=True)
    parameters = (manifest or {}).get("parameters", [])
    variants = (manifest or {}).get("variants") or list(dict.fromkeys(frame["variant"]))
    order = {label: i for i, label in enumerate(variants)}
    keys = [p for p in parameters if p in frame.columns]
    frame = (
        frame.assign(_variant=frame["variant"].map(order).fillna(len(order)))
        .sort_values([*keys, "_variant", "replication", "provider"], kind="stable")
        .drop(columns="_variant")
        .reset_index(drop=True)
    )
    if manifest is not None:
        frame.attrs.update(
            name=manifest.get("name"),
            parameters=parameters,
            variants=variants,
            metrics=manifest.get("metrics"),
        )
    return frame


def metric_columns(frame: pd.DataFrame) -> list[str]:
    """The metric columns of a results frame (numeric, not labels, not the point)."""
    fixed = {"run_id", "variant", "replication", "seed", "table", "finished", "run_seconds"}
    fixed |= set(IDENTITY_COLUMNS) | set(frame.attrs.get("parameters", []))
    return [
        c
        for c in frame.columns
        if c not in fixed and "." not in c and pd.api.types.is_numeric_dtype(frame[c])
        and not pd.api.types.is_bool_dtype(frame[c])
    ]  # fmt: skip
