"""The live page's set-up panel: its fields for a scenario (how to compare the policies, which
policies, the key parameters, each with the message of an invalid value under it), the check of
one field as it is typed, and the :class:`~dashboards.setup.Setup` the fields describe. A
scenario without variants starts as written (:data:`~dashboards.setup.AS_WRITTEN`); for a market
of one scheduling provider the other schedulers may be ticked beside it.
"""

from __future__ import annotations

from typing import Any

from dash import dcc, html

from dashboards.served_scenarios import load_scenario
from dashboards.setup import (
    MODES,
    PARAMS,
    PARAMS_BY_NAME,
    POOLS,
    Setup,
    SetupError,
    check_param,
    default_policies,
    param_enabled,
    param_values,
    policy_options,
)
from market.inputs.scenario import Scenario, ScenarioError

MODE_LABELS = {
    "parallel": "Parallel runs: one market per policy, same seed",
    "market": "Competing service providers in one market",
}
POOL_LABELS = {
    "own": "each rents its own pool (a copy of the resource provider)",
    "shared": "all rent from one pool",
}


def _named(ids: Any, values: Any):
    """``(name, value)`` of pattern-matching fields (ids ``{"type": ..., "name": ...}``)."""
    for i, value in zip(ids or [], values or [], strict=False):
        if isinstance(i, dict) and isinstance(i.get("name"), str):
            yield i["name"], value


def setup_fields(scenario: Scenario, setup: Setup | None = None) -> list:
    """The mode, the policies and the key parameters of ``scenario``, filled from ``setup``
    (the tab's current set-up, if it is of this scenario) or from the file, with the message
    of any invalid value under its field."""
    options = list(policy_options(scenario))
    values = param_values(scenario)
    if setup is not None:
        values.update(setup.param_dict())
    mode = setup.mode if setup else "parallel"
    pool = setup.pool if setup else "own"
    ticked = [p for p in setup.policies if p in options] if setup else default_policies(scenario)
    fields = [
        html.Label("Compare the policies as", className="field-label"),
        dcc.RadioItems(
            id={"type": "setup", "name": "mode"},
            value=mode,
            className="radio",
            options=[{"label": MODE_LABELS[m], "value": m} for m in MODES],
        ),
        dcc.RadioItems(
            id={"type": "setup", "name": "pool"},
            value=pool,
            className="radio sub",
            options=[{"label": POOL_LABELS[p], "value": p} for p in POOLS],
        ),
        html.Label(
            "Policies: the scenario's variants" if scenario.variants else "Policies",
            className="field-label",
        ),
        dcc.Checklist(
            id={"type": "setup", "name": "policies"},
            options=options,
            value=ticked,
            className="checklist",
        ),
        html.Div(id="policies-msg", className="field-msg"),
    ]
    for param in PARAMS:
        enabled = param_enabled(scenario, param.name)
        value = values.get(param.name)
        message = check_param(scenario, param.name, value) if enabled else None
        note = param.note if param.path is not None or not enabled else ""
        if param.path is not None and not enabled:
            note = "not in this scenario"
        fields.append(
            html.Div(
                [
                    html.Label(param.label, className="field-label"),
                    dcc.Input(
                        id={"type": "param", "name": param.name},
                        type="text" if param.optional else "number",
                        value=value,
                        disabled=not enabled,
                        debounce=False,
                        className="field-input",
                    ),
                    html.Span(note, className="note") if note else None,
                    html.Div(
                        message, id={"type": "param-msg", "name": param.name}, className="field-msg"
                    ),
                ],
                className="field" + ("" if enabled else " disabled"),
            )
        )
    return fields


def check_field(
    value: Any, field_id: Any, scenario_path: Any, overrides: dict[str, Any] | None = None
) -> str:
    """The message under a parameter field: why its value is invalid in the scenario (with
    the operator's ``overrides``), or nothing."""
    name = field_id.get("name") if isinstance(field_id, dict) else None
    if name not in PARAMS_BY_NAME or not isinstance(scenario_path, str) or not scenario_path:
        return ""
    try:
        scenario = load_scenario(scenario_path)
        if overrides:
            scenario = scenario.with_overrides(overrides)
    except ScenarioError as exc:
        return str(exc)
    return check_param(scenario, name, value) or ""


def check_policies(ticked: list[str] | None) -> str:
    return "" if ticked else "tick at least one policy"


def setup_from_fields(
    scenario_path: str | None,
    setup_values: list[Any],
    setup_ids: list[dict[str, str]],
    param_values: list[Any],
    param_ids: list[dict[str, str]],
    overrides: dict[str, Any] | None = None,
) -> Setup:
    """The set-up the panel describes (field ids and values as the browser sends them), with
    ``overrides`` (the operator's ``--set``; not validated yet: see :meth:`Session.reset`)."""
    overrides = overrides or {}
    if not scenario_path:
        raise SetupError("scenario: choose a scenario", "scenario")
    fields = dict(_named(setup_ids, setup_values))
    if "policies" not in fields:
        raise SetupError("the set-up panel is still loading", None)
    params = tuple(
        (name, v)
        for name, v in _named(param_ids, param_values)
        if PARAMS_BY_NAME.get(name) is not None and PARAMS_BY_NAME[name].path
    )
    policies = fields.get("policies")
    if not isinstance(policies, list) or not all(isinstance(p, str) for p in policies):
        policies = []
    return Setup(
        scenario=scenario_path,
        policies=tuple(fields.get("policies") or ()),
        mode=fields.get("mode") or "parallel",
        pool=fields.get("pool") or "own",
        params=params,
        overrides=tuple(overrides.items()),
    )
