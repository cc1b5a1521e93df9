"""Sweep plans: the runs a scenario's sweep stands for (the ``sweep:`` section itself is
validated by :mod:`market.inputs.sweep_spec`, whose names are re-exported here).

**Runs.** :class:`SweepPlan` expands a scenario into :class:`RunSpec` s, each a fully resolved
scenario (base, then the point's values, then the variant's overrides), validated as it is built
so that an error names the point and the field. The order is replication-major (every point and
variant of replication 0, then of replication 1, ...), so a sweep stopped early already has a
coarse picture of the whole range. Every run has a stable ``run_id``: a hash of its resolved
scenario (less name, description and seed), variant label, point, replication and seed. The same
run gets the same id in any later plan, and a changed scenario gives new ids.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from market.core.suggest import did_you_mean
from market.inputs.scenario import Scenario, ScenarioError
from market.inputs.sweep_spec import (
    IDENTITY_COLUMNS,
    MAX_POINTS,
    MAX_VALUES,
    Range,
    SweepSpec,
    canonical,
    column_values,
    derive_seed,
    overlaps,
)
from market.results.metrics import summary_metrics, sweep_metrics

#: The numeric metrics of a run summary's provider rows (from the metric registry).
SUMMARY_METRICS = summary_metrics()

__all__ = [
    "IDENTITY_COLUMNS",
    "MAX_POINTS",
    "MAX_VALUES",
    "SUMMARY_METRICS",
    "Range",
    "RunSpec",
    "SweepPlan",
    "SweepSpec",
    "canonical",
    "column_values",
    "derive_seed",
]


def _label(point: dict[str, Any]) -> str:
    return ", ".join(f"{path}={canonical(value)}" for path, value in point.items())


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: what to run (``scenario``, ``seed``) and what to call it."""

    run_id: str
    variant: str
    replication: int
    seed: int
    point: dict[str, Any]
    columns: dict[str, Any]  # the point as stored in the results (see column_values)
    scenario: Scenario = field(repr=False)


@dataclass
class SweepPlan:
    """Every run of a scenario's sweep, validated, in the order they are run."""

    name: str
    spec: SweepSpec
    base_seed: int
    parameters: list[str]
    points: list[dict[str, Any]]
    variants: list[str]
    runs: list[RunSpec]
    scenario: Scenario = field(repr=False)

    @property
    def metrics(self) -> list[str] | None:
        """The metrics to keep (None: all)."""
        return self.spec.metrics

    def describe(self) -> str:
        """``9 points x 2 variants x 10 replications = 180 runs``."""

        def n(count: int, word: str) -> str:
            return f"{count} {word}{'' if count == 1 else 's'}"

        parts = [n(len(self.points), "point"), n(len(self.variants), "variant")]
        parts.append(n(self.spec.replications, "replication"))
        return f"{' x '.join(parts)} = {n(len(self.runs), 'run')}"

    @classmethod
    def from_scenario(cls, scenario: Scenario, source: str = "scenario") -> SweepPlan:
        """Expand ``scenario``'s sweep into runs; one-line :class:`ScenarioError` if it has no
        sweep or a point or variant does not make a valid scenario."""
        spec = scenario.sweep
        if spec is None:
            raise ScenarioError(
                f"{source}: no sweep section (add sweep: with the parameters to vary, "
                "see scenarios/profit/fig3_load.yaml)"
            )
        known = sweep_metrics()
        for name in spec.metrics or []:
            if name not in known:
                raise ScenarioError(
                    f"{source}: sweep.metrics: unknown metric {name!r}"
                    f"{did_you_mean(name, known)} (have: {', '.join(known)})"
                )
        base_seed = scenario.seed if spec.base_seed is None else spec.base_seed
        base = scenario.model_copy(update={"sweep": None, "variants": {}})
        variants = dict(scenario.variants) or {scenario.name: {}}
        for label, sets in variants.items():
            for path in sets:
                for swept in spec.parameters:
                    if overlaps(path, swept):
                        raise ScenarioError(
                            f"{source}: sweep.parameters: {swept} is also set by variant "
                            f"{label!r}, which would undo the sweep there"
                        )
        values = spec.parameter_values()
        stored = {path: dict(zip(map(canonical, vs), column_values(vs), strict=True))
                  for path, vs in values.items()}  # fmt: skip
        points = spec.points()
        resolved: list[list[tuple[Scenario, str]]] = []
        for point in points:
            at = base.with_overrides(point, f"{source}: sweep.parameters ({_label(point)})")
            row = []
            for label, sets in variants.items():
                where = f"{source}: variants.{label}" + (f" at {_label(point)}" if point else "")
                run_scenario = at.with_overrides(sets, where) if sets else at
                dump = run_scenario.model_dump(
                    mode="json", exclude={"name", "description", "seed", "sweep", "variants"}
                )
                row.append((run_scenario, hashlib.sha256(canonical(dump).encode()).hexdigest()))
            resolved.append(row)
        runs = []
        independent = spec.seeds == "independent"
        for replication in range(spec.replications):
            common = spec.seed(base_seed, replication)
            for point, row in zip(points, resolved, strict=True):
                seed = spec.seed(base_seed, replication, point) if independent else common
                columns = {path: stored[path][canonical(v)] for path, v in point.items()}
                for label, (run_scenario, digest) in zip(variants, row, strict=True):
                    key = canonical([digest, label, point, replication, seed])
                    runs.append(
                        RunSpec(
                            run_id=hashlib.sha256(key.encode()).hexdigest()[:20],
                            variant=label,
                            replication=replication,
                            seed=seed,
                            point=point,
                            columns=columns,
                            scenario=run_scenario,
                        )
                    )
        return cls(
            name=scenario.name,
            spec=spec,
            base_seed=base_seed,
            parameters=list(spec.parameters),
            points=points,
            variants=list(variants),
            runs=runs,
            scenario=scenario,
        )
