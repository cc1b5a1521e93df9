"""What a paper claims, written once: the sweep behind each finding, how ours is measured, the
paper's number, the verdict rule and, where it does not hold, why.

A :class:`Paper` is a list of :class:`Sweep` s (a scenario file, its overrides and swept values
at two sizes: ``full``, the paper's size, and ``quick``, minutes on two cores) and a list of
:class:`Claim` s (a quoted sentence with its section or figure, the sweeps it reads, ``ours``: a
function of the sweeps' :class:`Results` giving :class:`Ours`, whose verdict is ``holds``,
``partial``, ``fails`` or ``not applicable``). ``gap`` says why a claim does not hold, with the
evidence: a ``str.format`` template whose fields ``figures`` computes from the same results, so
that no figure in it is typed by hand; ``gap_at`` names the sizes where that is expected (the
paper tests mark those strict xfails). ``gridmarket reproduce``, the paper tests and the docs'
results pages read these lists.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from string import Formatter
from typing import Any, Literal

import numpy as np
import pandas as pd

Verdict = Literal["holds", "partial", "fails", "not applicable"]
SIZES = ("quick", "full")


@dataclass(frozen=True)
class Size:
    """One size of a sweep: scenario overrides (``--set`` paths), the values of each swept axis
    (by the sweep's alias), taken in every combination (``cross``) or in step (``zip``), and
    the replications of every point."""

    sets: Mapping[str, Any] = field(default_factory=dict)
    axes: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    replications: int = 1
    mode: Literal["cross", "zip"] = "cross"


@dataclass(frozen=True)
class Sweep:
    """A sweep behind one or more claims.

    Attributes:
        name: its results directory under ``reproduce --out``.
        scenario: a scenario file or name on the scenario search path (``profit/fig3_load``).
        paths: alias -> dotted path of each swept parameter (``load`` ->
            ``clients.0.workload.load_factor``).
        full, quick: the two sizes.
        variants: the scenario's variants to run (None: all of them).
        extra: variants of our own, label -> overrides (e.g. a policy parameter the paper
            leaves open, to measure what it changes).
        metrics: the metrics to keep (None: every summary metric; a batch site's sweep names
            its own, which a service provider's row does not have).
    """

    name: str
    scenario: str
    paths: Mapping[str, str]
    full: Size
    quick: Size
    variants: tuple[str, ...] | None = None
    extra: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    metrics: tuple[str, ...] | None = None

    def size(self, size: str) -> Size:
        if size not in SIZES:
            raise ValueError(f"size must be one of {SIZES}, got {size!r}")
        return self.full if size == "full" else self.quick


@dataclass(frozen=True)
class Ours:
    """What we measured for a claim: the verdict, one line of numbers, and the numbers."""

    verdict: Verdict
    text: str
    values: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Claim:
    """One finding of a paper (see the module docstring)."""

    id: str
    where: str  # section / figure / table
    quote: str  # the paper's sentence, quoted
    paper: str  # the paper's number or ordering
    sweeps: tuple[str, ...]
    ours: Callable[[Results], Ours]
    gap: str = ""  # why it does not (fully) hold, with the evidence: fields of figures in {}
    gap_at: tuple[str, ...] = ()  # the sizes at which the gap is expected
    figures: Callable[[Results], Mapping[str, Any]] | None = None  # the gap's fields

    def reason(self, results: Results) -> str:
        """The gap, its fields filled from ``results``."""
        return self.gap.format_map(self.figures(results)) if self.figures else self.gap


@dataclass(frozen=True)
class Paper:
    """A paper's sweeps and claims."""

    key: str
    title: str
    sweeps: tuple[Sweep, ...]
    claims: tuple[Claim, ...]

    def sweep(self, name: str) -> Sweep:
        return next(s for s in self.sweeps if s.name == name)

    def __post_init__(self) -> None:
        names = {s.name for s in self.sweeps}
        for claim in self.claims:
            unknown = set(claim.sweeps) - names
            if unknown:
                raise ValueError(f"{self.key}: claim {claim.id} reads unknown sweeps {unknown}")
            if set(claim.gap_at) - set(SIZES) or (claim.gap_at and not claim.gap):
                raise ValueError(f"{self.key}: claim {claim.id}: gap_at needs a gap and a size")
            fields = [name for _, name, _, _ in Formatter().parse(claim.gap) if name is not None]
            if bool(fields) != (claim.figures is not None):
                raise ValueError(f"{self.key}: {claim.id}: figures and gap fields go together")
        ids = [c.id for c in self.claims]
        if len(ids) != len(set(ids)):
            raise ValueError(f"{self.key}: claim ids repeat")


class Results:
    """The results of a paper's sweeps (one row per run and provider), read by alias.

    ``at`` arguments select a point by the sweep's aliases (``load=1.6``); every accessor
    averages over replications (the seeds)."""

    def __init__(self, frames: Mapping[str, pd.DataFrame], sweeps: Mapping[str, Sweep]) -> None:
        self.frames = {}
        for name, frame in frames.items():
            aliases = {path: alias for alias, path in sweeps[name].paths.items()}
            self.frames[name] = frame.rename(columns=aliases)

    def rows(self, sweep: str, variant: str | None = None, **at: Any) -> pd.DataFrame:
        frame = self.frames[sweep]
        mask = np.ones(len(frame), dtype=bool)
        if variant is not None:
            mask &= (frame["variant"] == variant).to_numpy()
        for alias, value in at.items():
            column = frame[alias]
            if isinstance(value, str):
                mask &= (column == value).to_numpy()
            else:
                mask &= np.isclose(column.to_numpy(dtype=float), float(value))
        rows = frame[mask]
        if rows.empty:
            raise KeyError(f"{sweep}: no runs of {variant!r} at {at}")
        return rows

    def values(self, sweep: str, metric: str, variant: str | None = None, **at: Any) -> np.ndarray:
        """``metric`` of every replication at the point, in replication order."""
        rows = self.rows(sweep, variant, **at).sort_values("replication")
        return rows[metric].to_numpy(dtype=float)

    def mean(self, sweep: str, metric: str, variant: str | None = None, **at: Any) -> float:
        return float(np.nanmean(self.values(sweep, metric, variant, **at)))

    def sd(self, sweep: str, metric: str, variant: str | None = None, **at: Any) -> float:
        values = self.values(sweep, metric, variant, **at)
        return float(np.std(values, ddof=1)) if len(values) > 1 else math.nan

    def axis(self, sweep: str, alias: str) -> list[float]:
        """The values of axis ``alias`` that were run, in increasing order."""
        return sorted({float(v) for v in self.frames[sweep][alias]})

    def means(
        self, sweep: str, metric: str, variants: Sequence[str], **at: Any
    ) -> dict[str, float]:
        """Mean ``metric`` of each of ``variants`` at the point."""
        return {v: self.mean(sweep, metric, v, **at) for v in variants}

    def curves(
        self, sweep: str, metric: str, variants: Sequence[str], alias: str, **at: Any
    ) -> dict[str, list[float]]:
        """Mean ``metric`` of each of ``variants`` at each value of axis ``alias`` (increasing;
        the other axes at ``at``)."""
        xs = self.axis(sweep, alias)
        return {v: [self.mean(sweep, metric, v, **{alias: x}, **at) for x in xs] for v in variants}


# -- small helpers for verdict rules ---------------------------------------------------------------
def verdict(holds: bool, partial: bool = False) -> Verdict:
    """``holds`` if ``holds``, else ``partial`` if ``partial``, else ``fails``."""
    return "holds" if holds else "partial" if partial else "fails"


def num(x: float, digits: int = 1) -> str:
    """``x`` with ``digits`` decimals (``-`` for NaN)."""
    return "-" if x is None or not math.isfinite(x) else f"{x:,.{digits}f}"


def listing(values: Mapping[str, float], digits: int = 1, unit: str = "") -> str:
    """``a 1.0, b 2.0`` (in the mapping's order)."""
    return ", ".join(f"{k} {num(v, digits)}{unit}" for k, v in values.items())


def by_value(values: Mapping[str, float], digits: int = 1, unit: str = "") -> str:
    """``listing`` highest first."""
    ordered = dict(sorted(values.items(), key=lambda kv: -kv[1]))
    return listing(ordered, digits, unit)


def monotone(series: Sequence[float], decreasing: bool = False) -> bool:
    """Whether ``series`` never falls (never rises if ``decreasing``)."""
    return all((b <= a) if decreasing else (b >= a) for a, b in pairwise(series))


def strictly(series: Sequence[float], decreasing: bool = False) -> bool:
    """Whether ``series`` always rises (always falls if ``decreasing``)."""
    return all((b < a) if decreasing else (b > a) for a, b in pairwise(series))
