"""The dashboard's set-up panel, as plain Python (no Dash): a tab's :class:`Setup` (a scenario
file, the policies ticked, how to compare them, and a few key parameters) and the runs it builds:

- ``parallel``: one :class:`~market.sim.model.GridMarket` per policy (per variant of the scenario),
  all on the same seed and so on the same job stream: the papers' way of comparing policies;
- ``market``: one GridMarket in which every policy is a service provider of its own, all offered
  the same jobs under the client's offer rule; each rents from a copy of the scenario's resource
  provider (``pool="own"``) or all from the same one (``pool="shared"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.policies import SCHEDULERS
from dashboards.confined_paths import confine
from dashboards.run_limits import check_run_size
from dashboards.served_scenarios import load_scenario
from dashboards.served_scenarios import one_line as one_line_error
from market.inputs.paths import MISSING, get_path
from market.inputs.scenario import Scenario, ScenarioError, validate
from market.sim.model import GridMarket

SOURCE = "dashboard"  # the source named in scenario errors, stripped before display
NOT_FITTING = "does not fit the rest of the scenario"  # (a value that breaks another field)

AS_WRITTEN = "as written"  # the policy of a scenario without variants: itself
MODES = ("parallel", "market")
POOLS = ("own", "shared")


@dataclass(frozen=True)
class Param:
    """A key parameter of the set-up panel: where it lives in a scenario (None: not in the
    model yet) and how to label it."""

    name: str
    label: str
    path: str | None
    note: str = ""
    optional: bool = False  # empty means "none": a text field, since a browser sends a
    # number field it cannot read ("1e", "-") as empty, which would pass for "none"


PARAMS = (
    Param(
        "mean_interarrival",
        "Mean inter-arrival time (h)",
        "clients.0.workload.mean_interarrival",
        "the load: smaller is busier",
    ),
    Param("price", "Price per processor-hour", "resource_providers.0.price"),
    Param("capacity", "Capacity (processors)", "resource_providers.0.capacity"),
    Param("jobs", "Jobs", "clients.0.workload.jobs"),
    Param(
        "sigma",
        "Capacity uncertainty σ",
        "resource_providers.0.uncertainty.sigma",
        "sd of the forecast error, processors",
    ),
    Param(
        "risk_bound",
        "Risk bound",
        "service_providers.0.risk",
        "acceptable risk, e.g. 0.1; empty: oblivious",
        optional=True,
    ),
    Param("seed", "Seed", "seed", "the same for every run"),
)
PARAMS_BY_NAME = {p.name: p for p in PARAMS}


def blank(value: Any) -> bool:
    """Whether a field's value is empty (nothing, or only spaces typed)."""
    return value is None or (isinstance(value, str) and not value.strip())


def one_line(error: ScenarioError) -> str:
    """A scenario error's message without the source prefix: ``field.path: what is wrong``."""
    return str(error).removeprefix(f"{SOURCE}: ")


# -- scenarios --------------------------------------------------------------------------------
def base_of(scenario: Scenario) -> Scenario:
    """The scenario without its variants."""
    return scenario.model_copy(update={"variants": {}})


def policy_options(scenario: Scenario) -> dict[str, dict[str, Any]]:
    """The policies one can compare, by label, as overrides of the scenario: its variants; or,
    if it has none, the scenario :data:`AS_WRITTEN` and, for a market of one scheduling service
    provider, each other registered scheduler in its place."""
    if scenario.variants:
        return dict(scenario.variants)
    options: dict[str, dict[str, Any]] = {AS_WRITTEN: {}}
    sps = scenario.service_providers
    if len(sps) == 1 and sps[0].cluster is None and not scenario.batch_sites:
        for name in sorted(SCHEDULERS):
            if name != sps[0].scheduler.name:
                options[name] = {"service_providers.0.scheduler": name}
    return options


def default_policies(scenario: Scenario) -> tuple[str, ...]:
    """The policies a tab starts with: every variant, or the scenario as written."""
    return tuple(scenario.variants) if scenario.variants else (AS_WRITTEN,)


def param_values(scenario: Scenario) -> dict[str, Any]:
    """The key parameters' values in ``scenario`` (None where it has no such field)."""
    data = scenario.model_dump(mode="python")
    values = {p.name: get_path(data, p.path) for p in PARAMS}
    return {name: None if value is MISSING else value for name, value in values.items()}


def param_enabled(scenario: Scenario, name: str) -> bool:
    """Whether the scenario has the field of parameter ``name`` (set or not)."""
    path = PARAMS_BY_NAME[name].path
    return get_path(scenario.model_dump(mode="python"), path) is not MISSING


def check_param(scenario: Scenario, name: str, value: Any) -> str | None:
    """Why ``value`` is not valid for parameter ``name`` of ``scenario`` (None if it is)."""
    return param_problem(scenario, name, value)[0]


def param_problem(scenario: Scenario, name: str, value: Any) -> tuple[str | None, bool]:
    """Why ``value`` is not valid for parameter ``name`` of ``scenario`` (None if it is), and
    whether that is the value's own fault (False: it breaks another field of the scenario as it
    is, which the other parameters' values may mend)."""
    param = PARAMS_BY_NAME.get(name)
    if param is None:
        return f"unknown parameter {name!r}", True
    if not param_enabled(scenario, name):
        return None, True  # shown disabled: nothing to check
    value = None if blank(value) else value
    if value is None and param_values(scenario)[name] is not None:
        return f"{param.path}: enter a number", True  # (an optional field may stay empty)
    try:
        base_of(scenario).with_overrides({param.path: value}, SOURCE)
    except ScenarioError as exc:
        message = one_line(exc)
        if message.startswith(f"{param.path}:"):
            return message, True
        return _not_fitting(param.path, value, message), False
    return None, True


def _not_fitting(path: str, value: Any, why: str) -> str:
    """The message of a value valid on its own that breaks another field (``why``)."""
    return f"{path}: {value} {NOT_FITTING} ({why})"


# -- set-up -----------------------------------------------------------------------------------
class SetupError(ValueError):
    """A set-up that cannot be built; ``field`` names the panel field at fault (or None)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Setup:
    """What a tab runs: a scenario file, the policies to compare and how, key parameters."""

    scenario: str
    policies: tuple[str, ...]
    mode: str = "parallel"
    pool: str = "own"
    params: tuple[tuple[str, Any], ...] = ()  # (name, value) of the parameters changed
    overrides: tuple[tuple[str, Any], ...] = ()  # (dotted path, value), as ``--set`` gives them

    @classmethod
    def default(cls, scenario_path: str, overrides: dict[str, Any] | None = None) -> Setup:
        """Every variant of the scenario in parallel runs (or the scenario as written), its
        own parameter values, with ``overrides`` (``--set``)."""
        scenario = load_scenario(scenario_path)
        pairs = tuple((overrides or {}).items())
        return cls(scenario_path, default_policies(scenario), overrides=pairs)

    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)


@dataclass
class Run:
    """One market: a GridMarket, with its label (the policy, or ``market``)."""

    label: str
    model: GridMarket

    @property
    def active(self) -> bool:
        """Still running: not finished, not stalled."""
        return self.model.running and self.model.stalled is None


def build_runs(setup: Setup, claim=None) -> tuple[list[Run], float]:
    """The runs of ``setup`` and the sample interval; a :class:`SetupError` if it is invalid
    (checked in this order: the set-up's fields, the scenarios it makes, the paths they name,
    the jobs they submit, which ``claim(jobs)`` may refuse, the markets they build)."""
    scenario, options = _checked(setup)
    base, variants = _variants(setup, scenario, options)
    try:
        if setup.mode == "parallel" or tuple(variants) == (AS_WRITTEN,):
            specs = [(label, confine(variant, SOURCE)) for label, variant in variants.items()]
        else:
            specs = [("market", confine(_one_market(base, variants, setup.pool), SOURCE))]
        jobs = check_run_size([spec for _, spec in specs])
        if claim is not None:
            claim(jobs)
    except ScenarioError as exc:
        raise SetupError(one_line(exc)) from None
    try:
        runs = [Run(label, GridMarket(spec)) for label, spec in specs]
    except Exception as exc:  # a valid scenario the model cannot build (values that overflow)
        raise SetupError(f"cannot build the market: {one_line_error(exc)}") from None
    return runs, base.sample_interval


def _checked(setup: Setup) -> tuple[Scenario, dict[str, dict[str, Any]]]:
    """The set-up's scenario and policy options, once its fields are known to be valid."""
    try:
        scenario = load_scenario(setup.scenario)
    except ScenarioError as exc:
        raise SetupError(str(exc), "scenario") from None
    if setup.mode not in MODES:
        raise SetupError(f"mode: must be one of {', '.join(MODES)}", "mode")
    if setup.pool not in POOLS:
        raise SetupError(f"pool: must be one of {', '.join(POOLS)}", "pool")
    options = policy_options(scenario)
    unknown = [p for p in setup.policies if p not in options]
    if unknown:
        raise SetupError(f"policies: {unknown[0]!r} is not a policy of this scenario", "policies")
    if not setup.policies:
        raise SetupError("policies: tick at least one", "policies")
    return scenario, options


def _variants(setup: Setup, scenario: Scenario, options) -> tuple[Scenario, dict[str, Scenario]]:
    """The base scenario with the set-up's parameters and overrides, and each ticked policy's
    scenario."""
    base = base_of(scenario)
    overrides, breaking = {}, None
    for name, value in setup.params:
        message, own = param_problem(scenario, name, value)
        if message and own:
            raise SetupError(message, name)
        breaking = breaking or (message and (name, value))  # (the others may mend it)
        if param_enabled(scenario, name):
            overrides[PARAMS_BY_NAME[name].path] = None if blank(value) else value
    try:
        base = base.with_overrides({**dict(setup.overrides), **overrides}, SOURCE)
        variants = {
            label: base.with_overrides(options[label], f"{SOURCE}: {label}")
            for label in setup.policies
        }
    except ScenarioError as exc:
        if not breaking:
            raise SetupError(one_line(exc)) from None
        name, value = breaking  # (named first, as under its field)
        raise SetupError(
            _not_fitting(PARAMS_BY_NAME[name].path, value, one_line(exc)), name
        ) from None
    return base, variants


def _one_market(base: Scenario, variants: dict[str, Scenario], pool: str) -> Scenario:
    """One market whose service providers are the first service provider of each variant,
    named by the variant's label; with ``pool="own"`` each rents from a copy of its variant's
    resource provider, with ``"shared"`` all from the base scenario's."""
    data = base.model_dump(mode="python")
    providers, pools = [], []
    for label, variant in variants.items():
        if not variant.service_providers:  # (VARQ's batch sites: no provider to compete)
            raise SetupError(
                f"mode: {label!r} has no service provider to compete in one market: compare "
                "the policies as parallel runs",
                "mode",
            )
        sp = variant.service_providers[0].model_dump(mode="python")
        sp["name"] = label
        if pool == "own":
            several = sp.pop("resource_providers", None)  # (a competing market's: the first)
            wanted = sp["resource_provider"] or (several or [None])[0]
            wanted = wanted or variant.resource_providers[0].name
            rp = next(r for r in variant.resource_providers if r.name == wanted)
            rp = rp.model_dump(mode="python") | {"name": f"{label} pool"}
            sp["resource_provider"] = rp["name"]
            pools.append(rp)
        providers.append(sp)
    data["service_providers"] = providers
    if pool == "own":
        data["resource_providers"] = pools
    for client in data["clients"]:
        client["providers"] = None
    try:
        return validate(data, SOURCE)
    except ScenarioError as exc:
        raise SetupError(one_line(exc)) from None
