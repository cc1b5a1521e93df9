"""A policy of the user's own, by reference: ``module:Class``, or an installed entry point.

A scenario names a policy that is not built in one of two ways (DESIGN principle 4, extended
to code outside the project):

- ``"mypkg.policies:MyScheduler"``: the class ``MyScheduler`` of the importable module
  ``mypkg.policies`` (dotted attributes too: ``mod:Outer.Inner``);
- ``my_scheduler``: the entry point of that name in the group ``gridmarket.policies`` of an
  installed package (``[project.entry-points."gridmarket.policies"]`` in its pyproject.toml,
  ``my_scheduler = "mypkg.policies:MyScheduler"``).

Either must be a class of the kind the field asks for (a subclass of ``Scheduler``,
``Admission``, ``Pricing`` or ``ClusterPolicy``); every failure is one line naming the
reference. A class without a ``name`` of its own takes the reference as its name.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
from collections.abc import Mapping

ENTRY_POINTS = "gridmarket.policies"


class PolicyReferenceError(ValueError):
    """A policy reference that does not lead to a policy class of the kind asked; one line."""


def kind_base(registered: Mapping[str, type]) -> type:
    """The class every registered policy of a kind derives from, the most specific one (for
    the built-ins: ``Scheduler``, ``Admission``, ``Pricing``, ``ClusterPolicy``). Read from the
    registered classes, so that this module imports none of theirs."""
    classes = list(registered.values())
    if not classes:
        return object
    return next(c for c in classes[0].__mro__ if all(issubclass(k, c) for k in classes))


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


#: What a missing attribute reads as (a user's attribute may be None).
_MISSING = object()


def _import(kind: str, reference: str, target: str) -> object:
    """The object ``target`` (``module:attr.attr``) names."""
    module_name, _, attrs = target.partition(":")
    if not module_name or not attrs:
        raise PolicyReferenceError(
            f"{kind} {reference!r}: give it as 'module:Class' (e.g. 'mypkg.policies:MyPolicy')"
        )
    try:
        obj = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name + ".").startswith(exc.name + "."):
            raise PolicyReferenceError(
                f"{kind} {reference!r}: no module named {exc.name!r} on the Python path (run "
                "from the folder that holds it, add that folder to PYTHONPATH, or install it)"
            ) from None
        raise PolicyReferenceError(
            f"{kind} {reference!r}: importing {module_name} failed: {_one_line(exc)}"
        ) from None
    except Exception as exc:  # the user's module raised while being imported
        raise PolicyReferenceError(
            f"{kind} {reference!r}: importing {module_name} failed: {_one_line(exc)}"
        ) from None
    owner = module_name
    for attr in attrs.split("."):
        found = getattr(obj, attr, _MISSING)  # (the user's module:Class, named at run time)
        if found is _MISSING:
            raise PolicyReferenceError(f"{kind} {reference!r}: {owner} has no attribute {attr!r}")
        obj, owner = found, attr
    return obj


@functools.cache
def _installed() -> dict[str, list[str]]:
    """The ``module:attr`` of each installed entry point of the group, by name (read once)."""
    found: dict[str, set[str]] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINTS):
        found.setdefault(ep.name, set()).add(ep.value)
    return {name: sorted(values) for name, values in found.items()}


def _entry_point(kind: str, name: str) -> str | None:
    """The ``module:attr`` of the installed entry point ``name``, if there is one."""
    values = _installed().get(name, [])
    if len(values) > 1:
        raise PolicyReferenceError(
            f"{kind} {name!r}: two installed packages define the entry point "
            f"{ENTRY_POINTS}:{name} ({', '.join(values)}); name one as 'module:Class'"
        )
    return values[0] if values else None


def resolve_policy(kind: str, reference: str, registered: Mapping[str, type]) -> type:
    """The policy class ``reference`` names (``module:Class`` or an entry point), checked to be
    a policy of ``kind`` ("scheduler", "admission policy", "pricing policy", "cluster policy"):
    a subclass of the :func:`kind_base` of the ``registered`` ones; a one-line
    :class:`PolicyReferenceError` otherwise."""
    target = reference if ":" in reference else _entry_point(kind, reference)
    if target is None:
        names = ", ".join(sorted(registered))
        raise PolicyReferenceError(
            f"unknown {kind} {reference!r} (known: {names}; or a class of your own as "
            f"'module:Class', or an installed {ENTRY_POINTS} entry point)"
        )
    cls = _import(kind, reference, target)
    base = kind_base(registered)
    if not (isinstance(cls, type) and issubclass(cls, base)):
        what = cls.__name__ if isinstance(cls, type) else type(cls).__name__ + " object"
        article = "an" if kind[0] in "aeiou" else "a"
        raise PolicyReferenceError(
            f"{kind} {reference!r}: {what} is not {article} {kind} (a subclass of "
            f"{base.__module__}.{base.__name__})"
        )
    if "name" not in vars(cls):  # (registered classes have theirs; a subclass inherits one)
        cls.name = reference  # how plans and decisions name it
    return cls
