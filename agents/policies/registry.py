"""Policies by name, so that a scenario file can say ``scheduler: first_profit``.

A new policy is one class plus one registration (DESIGN principle 4)::

    @register_scheduler("my_policy")
    class MyPolicy(ListScheduler): ...

Parameters of a policy are its constructor's keyword arguments; a scenario gives them as
``scheduler: {name: my_policy, alpha: 0.3}``. Every policy's parameters are checked against its
constructor's annotations before it is built (:func:`check_params`): ``k: int`` refuses 2.5,
``alpha: float`` refuses ``.nan`` and ``.inf`` (no parameter may be infinite or NaN), a
``Literal`` its other values; the constructor then checks ranges. A new policy gets this by
annotating its parameters. A name that is not registered is resolved as the user's own class,
``module:Class`` or an installed entry point (:mod:`agents.policies.resolve`).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from agents.policies.base import Admission, Scheduler
from agents.policies.resolve import resolve_policy
from market.core.errors import first_non_finite

SCHEDULERS: dict[str, type[Scheduler]] = {}
ADMISSIONS: dict[str, type[Admission]] = {}
#: The parameter model of each policy class, built from its constructor on first use.
_PARAMS: dict[type, type[BaseModel]] = {}
#: Deadline cluster policies (Libra, LibraRisk, EDF: :mod:`agents.policies.libra`), which run a
#: whole cluster rather than plan a queue: ``service_providers.N.cluster: libra``.
CLUSTERS: dict[str, type] = {}
#: Pricing policies (:mod:`agents.policies.pricing`): what a service provider charges for a job
#: it accepts, ``service_providers.N.pricing: cost_plus``.
PRICINGS: dict[str, type] = {}


def _register[T](table: dict[str, type[T]], name: str) -> Callable[[type[T]], type[T]]:
    def decorate(cls: type[T]) -> type[T]:
        if name in table:
            raise ValueError(f"policy name {name!r} is registered twice")
        cls.name = name  # type: ignore[attr-defined]
        table[name] = cls
        return cls

    return decorate


def register_scheduler(name: str) -> Callable[[type[Scheduler]], type[Scheduler]]:
    """Class decorator: make a :class:`Scheduler` available under ``name``."""
    return _register(SCHEDULERS, name)


def register_admission(name: str) -> Callable[[type[Admission]], type[Admission]]:
    """Class decorator: make an :class:`Admission` policy available under ``name``."""
    return _register(ADMISSIONS, name)


def register_cluster(name: str) -> Callable[[type], type]:
    """Class decorator: make a deadline cluster policy available under ``name``."""
    return _register(CLUSTERS, name)


def register_pricing(name: str) -> Callable[[type], type]:
    """Class decorator: make a pricing policy available under ``name``."""
    return _register(PRICINGS, name)


def _build[T](table: dict[str, type[T]], what: str, name: str, params: dict[str, Any]) -> T:
    cls = table.get(name)
    if cls is None:  # the user's own: 'module:Class' or an installed entry point
        cls = resolve_policy(what, name, table)
    accepted = inspect.signature(cls).parameters
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        known = ", ".join(accepted) or "none"
        raise ValueError(f"{what} {name!r} has no parameter {unknown[0]!r} (parameters: {known})")
    params = check_params(cls, params, f"{what} {name!r}")
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} {name!r}: {exc}") from None


def _param_model(cls: type) -> type[BaseModel]:
    """A pydantic model of ``cls``'s constructor parameters (annotated types, defaults)."""
    if cls not in _PARAMS:
        hints = typing.get_type_hints(cls.__init__)
        fields: dict[str, Any] = {}
        for pname, param in inspect.signature(cls).parameters.items():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            default = ... if param.default is param.empty else param.default
            fields[pname] = (hints.get(pname, Any), default)
        config = ConfigDict(allow_inf_nan=False, arbitrary_types_allowed=True)
        _PARAMS[cls] = create_model(f"{cls.__name__}Params", __config__=config, **fields)
    return _PARAMS[cls]


def check_params(cls: type, params: dict[str, Any], what: str) -> dict[str, Any]:
    """``params`` checked against ``cls``'s constructor annotations and converted (``2.0`` for
    an ``int`` becomes 2); a one-line ValueError ``what: param: problem`` if one does not fit,
    or if any number in them is infinite or NaN."""
    bad = first_non_finite(params)
    if bad is not None:
        raise ValueError(f"{what}: {bad[0]}: Input should be a finite number, not {bad[1]}")
    try:
        checked = _param_model(cls).model_validate(params)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ValueError(f"{what}: {where}: {err['msg']}") from None
    return {key: getattr(checked, key) for key in params}


def make_scheduler(name: str, **params: Any) -> Scheduler:
    """The scheduler registered as ``name``, built with ``params``."""
    return _build(SCHEDULERS, "scheduler", name, params)


def make_admission(name: str, **params: Any) -> Admission:
    """The admission policy registered as ``name``, built with ``params``."""
    return _build(ADMISSIONS, "admission policy", name, params)


def make_cluster(name: str, **params: Any) -> Any:
    """The deadline cluster policy registered as ``name``, built with ``params``."""
    return _build(CLUSTERS, "cluster policy", name, params)


def make_pricing(name: str, **params: Any) -> Any:
    """The pricing policy registered as ``name``, built with ``params``."""
    return _build(PRICINGS, "pricing policy", name, params)
