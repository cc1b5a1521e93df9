"""The results directory of a sweep: one Parquet part per finished run, merged as it goes, and
the loader that reads it back as one tidy DataFrame.

**Results directory** (``OUT``)::

    OUT/manifest.json        the scenario (with its sweep), the plan's shape, versions, sessions
    OUT/runs/part-*.parquet  the rows: one per (run, service provider)
    OUT/errors.jsonl         runs that raised, with the error (they are retried by --resume)
    OUT/.lock                held while a sweep writes, so two sweeps never share a directory

Each finished run is written at once to its own small Parquet part (written to a temporary name,
then renamed, so a part is either whole or absent), so a sweep killed at any point, even with
SIGKILL, loses no finished run. Every 256 runs, and when the sweep ends or is interrupted, the
small parts are merged into one; :func:`load_results` drops the duplicates a kill during a merge
can leave. ``resume=True`` runs exactly the runs of the plan whose ``run_id`` is not in ``OUT``;
it refuses a directory that holds runs the plan does not have (the scenario was changed) or keeps
other metrics. Since run ids and seeds do not move when points, variants or replications are
added, resuming with a larger sweep runs only the new runs. Without ``resume``, a directory that
already holds results is refused. Run ids cover the scenario, not the code: after changing a
policy's code, start a new ``OUT`` (the manifest records the package versions of each session).

Each part is named by its number and the SHA-256 of its bytes (``part-000001-<sha256>.parquet``),
so a part whose bytes changed since it was written (a flipped bit that Parquet itself would read
as another value) is found on load; parts named without a checksum (older sweeps) are read
unchecked. A part that is damaged (Parquet cannot read it: the rename is not synced to disk, so a
power loss or a full disk can leave one truncated; its checksum does not match; it is no sweep's
part: a foreign file, a name that is not ``part-NUMBER``) is set aside by ``resume=True`` as
``*.parquet.damaged`` and its runs are run again: runs are pure functions of their scenario and
seed, so re-running restores the same rows, where stopping would leave the sweep unfinishable
without hand repair. The session in the manifest lists the parts set aside. Reading results
with a damaged part, or a manifest that is not one, is a one-line :class:`BatchError`.

**Columns**: ``run_id``, ``variant``, ``replication``, ``seed``, one column per swept parameter
(named by its dotted path), ``provider``, ``scheduler``, ``admission``, the kept metrics,
``finished`` (the market emptied; sweeps run every market to the end), and ``run_seconds`` (the
run's wall time on its worker: the only column that differs between two runs of the same sweep).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from market.experiments.executors import BatchError, RunOutcome
from market.inputs.sweep_spec import IDENTITY_COLUMNS, SUMMARY_METRICS

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
    """The results rows of a finished run: its labels, the point, and the kept metrics (counts
    as integers, the rest as floats, so every part has the same column types)."""
    rows = []
    for record in outcome.records or []:
        row: dict[str, Any] = {
            "run_id": spec.run_id,
            "variant": spec.variant,
            "replication": spec.replication,
            "seed": spec.seed,
            **spec.columns,
        }
        for column in IDENTITY_COLUMNS:
            row[column] = record[column]
        names = metrics or [k for k in record if k not in IDENTITY_COLUMNS]
        for name in names:
            row[name] = _stored(record[name], SUMMARY_METRICS.get(name))
        row["finished"] = outcome.finished
        row["run_seconds"] = outcome.seconds
        rows.append(row)
    return rows


def _stored(value: Any, kind: type | None) -> Any:
    if kind is int:
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value if kind is None else float(value)
    return float(value)


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


def load_manifest(path: str | Path) -> dict:
    """The manifest of the results directory ``path`` (:class:`BatchError` if there is none)."""
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
    if path.is_file():
        parts, manifest = [path], None
    else:
        store = ResultsStore(path)
        if not path.is_dir():
            raise BatchError(f"{path}: no such results directory")
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
    frame = frame.drop_duplicates(["run_id", "provider"], ignore_index=True)
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
    fixed = {"run_id", "variant", "replication", "seed", "finished", "run_seconds"}
    fixed |= set(IDENTITY_COLUMNS) | set(frame.attrs.get("parameters", []))
    return [
        c
        for c in frame.columns
        if c not in fixed and "." not in c and pd.api.types.is_numeric_dtype(frame[c])
        and not pd.api.types.is_bool_dtype(frame[c])
    ]  # fmt: skip
