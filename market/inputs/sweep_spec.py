"""Sweep specifications: the ``sweep:`` section of a scenario, validated (no scenario here).

``parameters`` are ``--set`` paths, each a list or a range (``{start, stop, num}`` with
``scale: log`` or not, or ``{start, stop, step}``, stop included on the grid; values rounded to
12 significant digits); ``mode: cross`` takes every combination (the first parameter slowest),
``zip`` the lists in step. Every variant runs at every point and may not set a swept path.
``replications`` repeat each; the seed of replication ``r`` is derived from ``(base_seed, r)``
by :class:`numpy.random.SeedSequence`: with ``seeds: common`` every point and variant shares it
(common random numbers, as the papers compare policies), with ``independent`` it also hashes the
point's values. Seeds never move when points, variants or replications are added, so
``--resume`` can extend a sweep. ``metrics`` picks metrics (checked against the registry,
:mod:`market.results.metrics`, by the sweep plan); ``labels`` names a parameter for the axes.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

#: Columns of the summary that name the provider and its policies (always kept).
IDENTITY_COLUMNS = ("provider", "scheduler", "admission")

#: Paths that a sweep may not vary.
_RESERVED = {
    "seed": "the seed of each run is derived by the sweep (set sweep.base_seed)",
    "variants": "the variants are the policies every point is run with",
    "sweep": "a sweep cannot sweep itself",
}

MAX_VALUES = 100_000  # per parameter: a typo like step 1e-9 is an error, not an endless plan
MAX_POINTS = 1_000_000  # per sweep, for the same reason


def overlaps(a: str, b: str) -> bool:
    """Whether setting path ``a`` and path ``b`` touch the same field."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _round(value: float) -> float:
    return float(f"{value:.12g}")


class Range(BaseModel):
    """Evenly spaced values: ``{start, stop, num}`` (both ends included, ``scale: linear`` or
    ``log``) or ``{start, stop, step}`` (``stop`` included when it falls on the grid)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: float | int
    stop: float | int
    num: int | None = Field(None, ge=2, description="how many values (>= 2)")
    step: float | int | None = None
    scale: Literal["linear", "log"] = "linear"

    @model_validator(mode="after")
    def _one_of_num_or_step(self) -> Range:
        if not (math.isfinite(self.start) and math.isfinite(self.stop)):
            raise ValueError("start and stop must be finite numbers")
        if (self.num is None) == (self.step is None):
            raise ValueError("give either num or step")
        if self.step is not None:
            if self.scale == "log":
                raise ValueError("scale: log needs num, not step")
            if self.step == 0 or not math.isfinite(self.step):
                raise ValueError("step: must be a non-zero number")
            if self.stop != self.start and (self.stop - self.start) / self.step < 0:
                raise ValueError(f"step: {self.step} goes away from stop {self.stop}")
            if (self.stop - self.start) / self.step >= MAX_VALUES:
                raise ValueError(f"step: gives more than {MAX_VALUES} values")
        elif self.num > MAX_VALUES:
            raise ValueError(f"num: more than {MAX_VALUES} values")
        if self.scale == "log" and (self.start <= 0 or self.stop <= 0):
            raise ValueError("scale: log needs start and stop greater than 0")
        return self

    def values(self) -> list[float | int]:
        """The values, rounded to 12 significant digits (integers when the ends are)."""
        if self.step is not None:
            count = math.floor((self.stop - self.start) / self.step * (1 + 1e-9) + 1e-9) + 1
            raw = [self.start + i * self.step for i in range(count)]
        elif self.scale == "log":
            raw = np.geomspace(self.start, self.stop, self.num).tolist()
        else:
            raw = np.linspace(self.start, self.stop, self.num).tolist()
        values = [_round(v) for v in raw]
        ends = (self.start, self.stop, *(() if self.step is None else (self.step,)))
        if all(isinstance(v, int) for v in ends) and all(v.is_integer() for v in values):
            return [int(v) for v in values]
        return values


class SweepSpec(BaseModel):
    """What a sweep varies, how often it repeats each run, and what it keeps (see the module
    docstring for the meaning of each field)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    parameters: dict[str, list[Any] | Range] = Field(
        default_factory=dict, description="dotted.path -> list of values or a range"
    )
    mode: Literal["cross", "zip"] = "cross"
    replications: int = Field(1, ge=1, le=1_000_000)
    base_seed: int | None = Field(None, ge=0, description="default: the scenario's seed")
    seeds: Literal["common", "independent"] = "common"
    metrics: list[str] | None = Field(None, description="default: every summary metric")
    labels: dict[str, str] = Field(
        default_factory=dict, description="swept dotted.path -> axis title with its unit"
    )

    @field_validator("parameters", mode="before")
    @classmethod
    def _parameters(cls, data: Any) -> Any:
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise ValueError("must be a mapping of dotted.path: values")
        checked = {}
        for path, values in data.items():
            if not isinstance(path, str) or not path.strip() or "" in path.split("."):
                raise ValueError(f"{path!r}: not a dotted path like clients.0.workload.jobs")
            root = path.split(".")[0]
            if root in _RESERVED:
                raise ValueError(f"{path}: {_RESERVED[root]}")
            if isinstance(values, Range):
                checked[path] = values
            elif isinstance(values, dict):
                try:
                    checked[path] = Range.model_validate(values)
                except ValidationError as exc:
                    errors = exc.errors()  # an unknown field first: it explains a missing one
                    err = min(errors, key=lambda e: e["type"] != "extra_forbidden")
                    where = ".".join(str(p) for p in err["loc"] if p not in ("float", "int"))
                    msg = err["msg"].removeprefix("Value error, ")
                    if err["type"] == "extra_forbidden":
                        msg = "unknown field (a range has start, stop, and num or step)"
                    raise ValueError(f"{path}: {where + ': ' if where else ''}{msg}") from None
            elif isinstance(values, list | tuple):
                if not values:
                    raise ValueError(f"{path}: no values")
                seen = set()
                for value in values:
                    key = canonical(value)
                    if key in seen:
                        raise ValueError(f"{path}: value {key} is listed twice")
                    seen.add(key)
                checked[path] = list(values)
            else:
                raise ValueError(
                    f"{path}: give a list of values, {{start, stop, num}} or {{start, stop, step}}"
                )
        for a, b in itertools.combinations(checked, 2):
            if overlaps(a, b):
                raise ValueError(f"{max(a, b, key=len)}: overlaps {min(a, b, key=len)}, swept too")
        return checked

    @field_validator("metrics")
    @classmethod
    def _known_metrics(cls, metrics: list[str] | None) -> list[str] | None:
        if metrics is None:
            return None
        if not metrics:
            raise ValueError("list at least one metric, or leave metrics out to keep all")
        dupes = sorted({m for m in metrics if metrics.count(m) > 1})
        if dupes:
            raise ValueError(f"{dupes[0]!r} is listed twice")
        return metrics

    @model_validator(mode="after")
    def _labels(self) -> SweepSpec:
        for path, label in self.labels.items():
            if path not in self.parameters:
                swept = ", ".join(self.parameters) or "none"
                raise ValueError(
                    f"labels: {path} is not a swept parameter (swept: {swept}; label only those)"
                )
            if not label.strip():
                raise ValueError(f"labels: {path}: the label is empty")
        return self

    @model_validator(mode="after")
    def _shape(self) -> SweepSpec:
        lengths = {path: len(values) for path, values in self.parameter_values().items()}
        if self.mode == "zip" and len(set(lengths.values())) > 1:
            have = ", ".join(f"{path}: {n}" for path, n in lengths.items())
            raise ValueError(f"mode zip needs lists of one length (have {have})")
        points = math.prod(lengths.values()) if self.mode == "cross" else 1
        if points > MAX_POINTS:
            raise ValueError(f"{points:,} points is more than {MAX_POINTS:,}; sweep fewer values")
        return self

    # -- expansion -----------------------------------------------------------------------------
    def parameter_values(self) -> dict[str, list[Any]]:
        """Each swept path with its list of values (ranges expanded)."""
        return {
            path: spec.values() if isinstance(spec, Range) else list(spec)
            for path, spec in self.parameters.items()
        }

    def points(self) -> list[dict[str, Any]]:
        """The parameter points, ``{path: value}`` each: the cross product (first parameter
        slowest) or the lists zipped. No parameters: one empty point."""
        values = self.parameter_values()
        paths = list(values)
        if self.mode == "zip" and paths:
            combos = zip(*values.values(), strict=True)
        else:
            combos = itertools.product(*values.values())
        return [dict(zip(paths, combo, strict=True)) for combo in combos]

    def seed(self, base_seed: int, replication: int, point: dict[str, Any] | None = None) -> int:
        """The seed of ``replication`` (at ``point``, which counts only with ``seeds:
        independent``), derived from ``base_seed`` by :class:`numpy.random.SeedSequence`."""
        return derive_seed(base_seed, replication, point if self.seeds == "independent" else None)


def derive_seed(base_seed: int, replication: int, point: dict[str, Any] | None = None) -> int:
    """A 63-bit seed from ``(base_seed, replication[, point])``: the first word that
    ``SeedSequence(base_seed, spawn_key=(replication[, hash(point)]))`` generates, so that seeds
    of different base seeds, replications and points are unrelated, and stable across versions
    of this code, of numpy's generators and of the machine."""
    key: tuple[int, ...] = (replication,)
    if point is not None:
        digest = hashlib.sha256(canonical(point).encode()).digest()
        key = (replication, int.from_bytes(digest[:8], "big"))
    word = np.random.SeedSequence(base_seed, spawn_key=key).generate_state(1, np.uint64)[0]
    return int(word) >> 1


def canonical(value: Any) -> str:
    """A stable text form of plain data (sorted keys, no spaces), for hashing and labels."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def column_values(values: list[Any]) -> list[Any]:
    """How a parameter's values are stored in a results column: numbers stay numbers (floats if
    any is), booleans stay booleans, anything else becomes text (mappings and lists as JSON)."""
    if all(isinstance(v, bool) for v in values):
        return list(values)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        if any(isinstance(v, float) for v in values):
            return [float(v) for v in values]
        return list(values)
    return [v if isinstance(v, str) else canonical(v) for v in values]
