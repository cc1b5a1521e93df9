"""Policies by name, so that a scenario file can say ``scheduler: first_profit``.

A new policy is one class plus one registration (DESIGN principle 4)::

    @register_scheduler("my_policy")
    class MyPolicy(ListScheduler): ...

Parameters of a policy are its constructor's keyword arguments; a scenario gives them as
``scheduler: {name: my_policy, alpha: 0.3}``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from agents.policies.base import Admission, Scheduler

SCHEDULERS: dict[str, type[Scheduler]] = {}
ADMISSIONS: dict[str, type[Admission]] = {}
#: Deadline cluster policies (Libra, LibraRisk, EDF: :mod:`agents.policies.libra`), which run a
#: whole cluster rather than plan a queue: ``service_providers.N.cluster: libra``.
CLUSTERS: dict[str, type] = {}


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


def _build[T](table: dict[str, type[T]], what: str, name: str, params: dict[str, Any]) -> T:
    if name not in table:
        raise ValueError(f"unknown {what} {name!r} (known: {', '.join(sorted(table))})")
    cls = table[name]
    accepted = inspect.signature(cls).parameters
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        known = ", ".join(accepted) or "none"
        raise ValueError(f"{what} {name!r} has no parameter {unknown[0]!r} (parameters: {known})")
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} {name!r}: {exc}") from None


def make_scheduler(name: str, **params: Any) -> Scheduler:
    """The scheduler registered as ``name``, built with ``params``."""
    return _build(SCHEDULERS, "scheduler", name, params)


def make_admission(name: str, **params: Any) -> Admission:
    """The admission policy registered as ``name``, built with ``params``."""
    return _build(ADMISSIONS, "admission policy", name, params)


def make_cluster(name: str, **params: Any) -> Any:
    """The deadline cluster policy registered as ``name``, built with ``params``."""
    return _build(CLUSTERS, "cluster policy", name, params)
