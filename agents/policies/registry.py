"""Policies by name, so that a scenario file can say ``scheduler: first_profit``.

Each kind of policy has its :class:`Registry` (schedulers, admission, cluster, pricing and
reservation policies), and a new policy is one class plus one registration (DESIGN principle 4)::

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
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from agents.policies.base import Admission, Scheduler
from agents.policies.resolve import resolve_policy
from market.core.errors import first_non_finite

if TYPE_CHECKING:  # (these modules register their policies here; pydantic checks parameters)
    from pydantic import BaseModel

    from agents.policies.libra import ClusterPolicy
    from agents.policies.pricing import Pricing
    from agents.policies.varq import ReservationPlanner


class Registry[T](Mapping[str, type[T]]):
    """Policies of one kind by name (a mapping from name to class): ``register`` is the class
    decorator, ``make`` builds one from a scenario's name and parameters."""

    def __init__(self, what: str) -> None:
        self.what = what  # how messages name the kind (e.g. "admission policy")
        self._classes: dict[str, type[T]] = {}

    def __getitem__(self, name: str) -> type[T]:
        return self._classes[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._classes)

    def __len__(self) -> int:
        return len(self._classes)

    def register(self, name: str) -> Callable[[type[T]], type[T]]:
        """Class decorator: make the class available under ``name`` (its ``name`` too)."""

        def decorate(cls: type[T]) -> type[T]:
            if name in self._classes:
                raise ValueError(f"policy name {name!r} is registered twice")
            cls.name = name  # type: ignore[attr-defined]
            self._classes[name] = cls
            return cls

        return decorate

    def make(self, name: str, **params: Any) -> T:
        """The policy registered as ``name`` (or the user's own it names, see the module), built
        with ``params`` (checked); a one-line ValueError naming the problem otherwise."""
        what = self.what
        cls = self._classes.get(name)
        if cls is None:  # the user's own: 'module:Class' or an installed entry point
            cls = resolve_policy(what, name, self._classes)
        accepted = inspect.signature(cls).parameters
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            known = ", ".join(accepted) or "none"
            raise ValueError(
                f"{what} {name!r} has no parameter {unknown[0]!r} (parameters: {known})"
            )
        params = check_params(cls, params, f"{what} {name!r}")
        try:
            return cls(**params)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{what} {name!r}: {exc}") from None


SCHEDULERS: Registry[Scheduler] = Registry("scheduler")
ADMISSIONS: Registry[Admission] = Registry("admission policy")
#: Deadline cluster policies (Libra, LibraRisk, EDF: :mod:`agents.policies.libra`), which run a
#: whole cluster rather than plan a queue: ``service_providers.N.cluster: libra``.
CLUSTERS: Registry[ClusterPolicy] = Registry("cluster policy")
#: Pricing policies (:mod:`agents.policies.pricing`): what a service provider charges for a job
#: it accepts, ``service_providers.N.pricing: cost_plus``.
PRICINGS: Registry[Pricing] = Registry("pricing policy")
#: Reservation planners (VARQ: :mod:`agents.policies.varq`): when to submit a job to a batch
#: queue so that it runs by a deadline.
RESERVATIONS: Registry[ReservationPlanner] = Registry("reservation planner")
#: The parameter model of each policy class, built from its constructor on first use.
_PARAMS: dict[type, type[BaseModel]] = {}  # (pydantic imported on first use)

register_scheduler = SCHEDULERS.register
register_admission = ADMISSIONS.register
register_cluster = CLUSTERS.register
register_pricing = PRICINGS.register
register_reservation = RESERVATIONS.register
make_scheduler = SCHEDULERS.make
make_admission = ADMISSIONS.make
make_cluster = CLUSTERS.make
make_pricing = PRICINGS.make
make_reservation = RESERVATIONS.make


def _param_model(cls: type) -> type[BaseModel]:
    """A pydantic model of ``cls``'s constructor parameters (annotated types, defaults)."""
    if cls not in _PARAMS:
        from pydantic import ConfigDict, create_model

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
    from pydantic import ValidationError

    try:
        checked = _param_model(cls).model_validate(params)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ValueError(f"{what}: {where}: {err['msg']}") from None
    values = dict(checked)  # (the fields as validated, not serialised)
    return {key: values[key] for key in params}
