"""Scenarios: everything a run needs, read from a YAML file and validated.

A scenario names the resource providers (capacity, price), the service providers (scheduler,
admission policy, resource provider) and the clients (workload, offer rule). ``variants`` are
alternatives run side by side with the same seed, so on the same job stream (the papers' way of
comparing policies), each a set of ``dotted.path=value`` overrides like the CLI's ``--set``.
Every error is one line naming the file and the field. Beyond each field's range, a scenario is
refused for an infinite or NaN number, two agents sharing a name, price changes out of time
order, or a setting that would make the run endless (:mod:`market.inputs.limits`;
docs/guide/scenarios.md). Files are found on the search path of
:mod:`market.inputs.scenario_files` (``profit/default`` names a shipped scenario).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from market.core.errors import ScenarioError
from market.core.rent import PriceSchedule
from market.inputs import limits
from market.inputs.paths import PathError, get_path, set_path
from market.inputs.scenario_checks import CROSS_FIELD_CHECKS, admission_scheduler
from market.inputs.scenario_files import ScenarioFileError, parse_yaml, read_text, resolve
from market.inputs.site_spec import BatchSiteSpec
from market.inputs.sweep_spec import SweepSpec
from market.inputs.validation_errors import one_line
from market.inputs.workloads import ProfitWorkload, Workload


class PolicySpec(BaseModel):
    """A policy by registered name, with its parameters: ``first_profit`` or
    ``{name: first_reward, alpha: 0.3}``."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    name: str
    params: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _from_short_forms(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"name": data}
        if isinstance(data, dict) and "params" not in data and "name" in data:
            return {"name": data["name"], "params": {k: v for k, v in data.items() if k != "name"}}
        return data

    def label(self) -> str:
        """The name, with parameters if any: ``first_reward(alpha=0.3)``."""
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in sorted(self.params.items()))})"


def paired_scheduler(admission: Any) -> str | None:
    """The scheduler an admission policy as a scenario gives it (a name, ``{name: ...}`` or a
    :class:`PolicySpec`; anything else names none) keeps its promises with, or None."""
    if isinstance(admission, PolicySpec):
        name = admission.name
    else:
        name = admission.get("name") if isinstance(admission, dict) else admission
    return admission_scheduler(name) if isinstance(name, str) else None


class UncertaintySpec(BaseModel):
    """How a resource provider's actual availability deviates from its forecast (see
    :mod:`market.core.forecast` and :mod:`agents.resource_provider`). All zero: it never does."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    sigma: float = Field(0.0, ge=0, description="sd of the forecast error, in processors")
    distribution: Literal["normal", "laplace", "uniform", "logistic"] = "normal"
    period: float = Field(1.0, gt=0, description="hours between independent availability draws")
    overbooking: float = Field(0.0, ge=0, lt=1, description="share promised but not there")
    outage_rate: float = Field(0.0, ge=0, description="outages per hour (Poisson)")
    outage_duration: float = Field(1.0, gt=0, description="mean outage length, hours")
    outage_share: float = Field(0.5, gt=0, le=1, description="share of the pool an outage takes")

    @property
    def varies(self) -> bool:
        """Whether availability ever differs from the pool."""
        return self.sigma > 0 or self.overbooking > 0 or self.outage_rate > 0


class PriceChange(BaseModel):
    """The price per processor-hour from time ``at`` on."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    at: float = Field(ge=0)
    price: float = Field(ge=0)


class ResourceProviderSpec(BaseModel):
    """A resource provider renting out a pool of processors."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    name: str = "rp"
    capacity: int = Field(
        10, ge=1, le=limits.MAX_PROCESSORS, description="processors (Table 1: 10; <= 1,000,000)"
    )
    price: float = Field(3.0, ge=0, description="per processor-hour (Table 1: 3 florins)")
    price_changes: list[PriceChange] = Field(
        default_factory=list, description="a price schedule, in increasing time order"
    )
    uncertainty: UncertaintySpec = UncertaintySpec()
    utilization_premium: float = Field(
        0.0,
        ge=0,
        description="price by utilization: the scheduled price x (1 + premium x the share of "
        "the pool leased when a lease is granted), kept for the lease (agents.resource_provider)",
    )

    @field_validator("price_changes")
    @classmethod
    def _increasing(cls, changes: list[PriceChange]) -> list[PriceChange]:
        for i, (a, b) in enumerate(itertools.pairwise(changes)):
            if b.at <= a.at:
                raise ValueError(
                    f"times must increase: change {i + 1} at {b.at:g} h is not after "
                    f"change {i} at {a.at:g} h"
                )
        return changes

    def price_schedule(self) -> PriceSchedule:
        """The price over time."""
        return PriceSchedule.steps(self.price, [(c.at, c.price) for c in self.price_changes])


class ServiceProviderSpec(BaseModel):
    """A service provider: its scheduler, its admission policy and where it rents."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    name: str = "sp"
    scheduler: PolicySpec = Field(
        PolicySpec(name="first_profit"),
        description="default: the one its admission's promises are about (conservative for the "
        "QoPS family: qops, msb, mrt, vqops, dvqops), else first_profit",
    )
    admission: PolicySpec = PolicySpec(name="positive_opportunity")
    resource_provider: str | None = Field(None, description="default: the first one")
    resource_providers: list[str] | None = Field(
        None,
        description="rent from several: per job, the pool whose plan is most rewarding "
        "(instead of resource_provider; agents.service_provider)",
    )
    pricing: PolicySpec = Field(
        PolicySpec(name="utility"),
        description="what it charges (agents.policies.pricing); utility: the job's utility",
    )
    enters: float = Field(0.0, ge=0, description="hour it starts taking quotes (market entry)")
    risk: float | None = Field(
        None, gt=0, lt=1, description="acceptable risk (§3.5); none: uncertainty-oblivious"
    )
    reshape: bool = Field(True, description="run a due job on fewer processors if short (§6)")
    cluster: PolicySpec | None = Field(
        None,
        description="run a deadline cluster instead (libra, libra_risk, edf: Yeo & Buyya "
        "ICPP'06); scheduler, admission, risk and reshape are then unused",
    )

    @model_validator(mode="before")
    @classmethod
    def _admissions_scheduler(cls, data: Any) -> Any:
        """No scheduler given: the one the admission's promises are about, if it has one."""
        if isinstance(data, dict) and data.get("scheduler") is None:
            own = paired_scheduler(data.get("admission"))
            if own is not None:
                return {**data, "scheduler": own}
        return data

    @field_validator("scheduler")
    @classmethod
    def _known_scheduler(cls, spec: PolicySpec) -> PolicySpec:
        from agents.policies import make_scheduler

        make_scheduler(spec.name, **spec.params)  # raises a ValueError naming the problem
        return spec

    @field_validator("admission")
    @classmethod
    def _known_admission(cls, spec: PolicySpec) -> PolicySpec:
        from agents.policies import make_admission

        make_admission(spec.name, **spec.params)
        return spec

    @field_validator("pricing")
    @classmethod
    def _known_pricing(cls, spec: PolicySpec) -> PolicySpec:
        from agents.policies import make_pricing

        make_pricing(spec.name, **spec.params)
        return spec

    @field_validator("resource_providers")
    @classmethod
    def _some_pools(cls, names: list[str] | None) -> list[str] | None:
        if names is not None:
            if not names:
                raise ValueError("give at least one resource provider (or leave it out)")
            if len(set(names)) < len(names):
                raise ValueError("a resource provider is named twice")
        return names

    def pool_names(self, default: str) -> list[str]:
        """The resource providers it rents from (``default``, the first, unless named)."""
        if self.resource_providers:
            return list(self.resource_providers)
        return [self.resource_provider or default]

    @field_validator("cluster")
    @classmethod
    def _known_cluster(cls, spec: PolicySpec | None) -> PolicySpec | None:
        from agents.policies import make_cluster

        if spec is not None:
            make_cluster(spec.name, **spec.params)
        return spec


class ClientSpec(BaseModel):
    """A client: the jobs it submits and how it picks among service providers."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    name: str = "client"
    workload: Workload = ProfitWorkload()
    offer_rule: Literal["best_quote", "best_surplus", "first_accept", "random"] | None = Field(
        None,
        description="see agents.client; default best_surplus if any of its providers prices "
        "other than utility, else best_quote",
    )
    providers: list[str] | None = Field(None, description="service providers it offers to (all)")

    @field_validator("providers")
    @classmethod
    def _some_providers(cls, names: list[str] | None) -> list[str] | None:
        if names is not None and not names:
            raise ValueError("give at least one service provider (or leave it out: all of them)")
        return names


class Scenario(BaseModel):
    """A whole market, ready to run."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    name: str = Field("unnamed", description="names its results (results/NAME)")
    description: str = ""
    seed: int = Field(1, ge=0, le=limits.MAX_SEED, description="0 to 2**63 - 1")
    sample_interval: float = Field(
        0.5,
        gt=0,
        description="hours between time-series samples; at most 1,000,000 over the expected "
        "horizon (see market.inputs.limits)",
    )
    resource_providers: list[ResourceProviderSpec] = Field(
        default_factory=lambda: [ResourceProviderSpec()], min_length=1
    )
    service_providers: list[ServiceProviderSpec] = Field(
        default_factory=lambda: [ServiceProviderSpec()]
    )
    clients: list[ClientSpec] = Field(default_factory=lambda: [ClientSpec()])
    batch_sites: list[BatchSiteSpec] = Field(
        default_factory=list, description="best-effort batch sites with VARQ users"
    )
    variants: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="label -> {dotted.path: value} overrides"
    )
    sweep: SweepSpec | None = Field(None, description="what `gridmarket sweep` varies")

    @field_validator("name")
    @classmethod
    def _named(cls, name: str) -> str:
        if not name.strip():
            raise ValueError("a scenario needs a name (its results are saved as results/NAME)")
        return name

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        for check in CROSS_FIELD_CHECKS:  # (market.inputs.scenario_checks)
            check(self)
        return self

    # -- derived scenarios ---------------------------------------------------------------------
    def with_overrides(self, overrides: dict[str, Any], source: str = "--set") -> Scenario:
        """A copy with ``{dotted.path: value}`` overrides applied and validated again. A new
        ``kind`` keeps the old kind's fields: an error then says to set the whole mapping."""
        data = self.model_dump(mode="python")
        kinds = [p for p, v in overrides.items() if p.endswith(".kind") and get_path(data, p) != v]
        for path, value in overrides.items():
            try:
                set_path(data, path, value)
            except PathError as exc:
                raise ScenarioError(f"{source}: {exc}") from None
        try:
            return validate(data, source)
        except ScenarioError as exc:
            if not kinds:
                raise
            whole = kinds[0].removesuffix(".kind")
            raise ScenarioError(
                f"{exc} (a new kind keeps the fields of the old one: set the whole mapping, "
                f"{whole}={{kind: {overrides[kinds[0]]}, ...}})"
            ) from None

    def expand(self, source: str = "scenario") -> list[tuple[str, Scenario]]:
        """``(label, scenario)`` for each variant, or just this scenario if it has none; an
        error names ``source`` (the file) and the variant."""
        if not self.variants:
            return [(self.name, self)]
        base = self.model_copy(update={"variants": {}})
        return [
            (label, base.with_overrides(sets, f"{source}: variants.{label}"))
            for label, sets in self.variants.items()
        ]


def validate(data: Any, source: str = "scenario") -> Scenario:
    """A :class:`Scenario` from plain data, or a one-line :class:`ScenarioError`."""
    if not isinstance(data, dict):
        raise ScenarioError(f"{source}: a scenario must be a mapping of fields")
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(f"{source}: {one_line(exc, Scenario)}") from None


def load(path: str | Path) -> Scenario:
    """Read and validate a scenario file: a path, or a name on the search path of
    :mod:`market.inputs.scenario_files` (``profit/default``)."""
    try:
        found = resolve(path)
        text = read_text(found)
    except ScenarioFileError as exc:
        raise ScenarioError(str(exc)) from None
    return loads(text, str(found), Path(found).stem)


def loads(text: str, source: str, default_name: str = "unnamed") -> Scenario:
    """Parse and validate a scenario from its YAML ``text``; errors name ``source``. A scenario
    without a ``name`` is called ``default_name`` (the file's stem)."""
    try:
        data = parse_yaml(text, source)
    except ScenarioFileError as exc:
        raise ScenarioError(str(exc)) from None
    scenario = validate(data, source)
    if not scenario.name or scenario.name == "unnamed":
        scenario = scenario.model_copy(update={"name": default_name})
    scenario.expand(source)  # a bad variant is an error in the file, found before anything runs
    return scenario


def parse_overrides(items: list[str], source: str = "--set") -> dict[str, Any]:
    """``["a.b=3", "c=x"]`` -> ``{"a.b": 3, "c": "x"}``; values are read as YAML."""
    overrides = {}
    for item in items:
        path, sep, raw = item.partition("=")
        if not sep or not path.strip():
            raise ScenarioError(f"{source}: {_short(item)} is not of the form key=value")
        try:
            overrides[path.strip()] = (
                parse_yaml(raw, f"{source}: {path.strip()}") if raw.strip() else ""
            )
        except ScenarioFileError as exc:
            raise ScenarioError(str(exc)) from None
    return overrides


def _short(text: str, most: int = 60) -> str:
    """``text`` quoted, cut to ``most`` characters (a message stays one short line)."""
    return repr(text) if len(text) <= most else repr(text[:most]) + "..."
