"""The one line a scenario's :class:`pydantic.ValidationError` becomes: where (the dotted
location, without pydantic's validator and union-member steps), what (in plain words: a field
that should be a mapping says so; an unknown field offers the nearest name the models accept
there, ``clients.0.offer_rul: unknown field, did you mean 'offer_rule'?``), and how many more
errors there are (once per location, not once per union member). The nearest names follow the
location through the models' annotations; a step naming no field keeps the models so far."""

from __future__ import annotations

import typing
from collections.abc import Sequence

from pydantic import BaseModel, ValidationError

from market.core.suggest import did_you_mean
from market.inputs.workloads import KINDS

_MEMBERS = frozenset(cls.__name__ for cls in KINDS.values())  # a union's members, in a loc


def models_in(annotation: object) -> list[type[BaseModel]]:
    """Every pydantic model an annotation holds: itself, or inside lists, mappings, unions."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        for model in models_in(arg):
            if model not in found:
                found.append(model)
    return found


def fields_at(root: type[BaseModel], loc: Sequence[object]) -> list[str]:
    """The field names of the models at ``loc[:-1]`` below ``root`` (the parent of the field
    ``loc`` names), in declaration order, without repeats."""
    models = [root]
    for step in loc[:-1]:
        inner = [
            model
            for parent in models
            if isinstance(step, str) and step in parent.model_fields
            for model in models_in(parent.model_fields[step].annotation)
        ]
        if inner:
            models = inner
    return list(dict.fromkeys(name for model in models for name in model.model_fields))


def where(loc: Sequence[object]) -> str:
    """The dotted location of an error, e.g. ``clients.0.workload.jobs``."""
    return ".".join(str(p) for p in loc if not str(p).startswith("function-") and p not in _MEMBERS)


def one_line(exc: ValidationError, root: type[BaseModel]) -> str:
    """``where: what`` for the first error of ``exc`` (raised validating ``root``), and the
    count of the others."""
    errors = exc.errors()
    err = errors[0]
    msg = err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if err["type"] == "model_type":  # (not "a valid dictionary or instance of ClientSpec")
        policy = err.get("ctx", {}).get("class_name") == "PolicySpec"
        wanted = "a policy's name or a mapping {name: ...}" if policy else "a mapping of fields"
        msg = f"should be {wanted}, not {type(err['input']).__name__}"
    elif err["type"] == "extra_forbidden":
        msg = "unknown field" + did_you_mean(str(err["loc"][-1]), fields_at(root, err["loc"]))
    elif err["type"] == "union_tag_invalid" or err["type"] == "literal_error":
        msg = msg[0].lower() + msg[1:]
    more = len({(where(e["loc"]), e["type"]) for e in errors}) - 1  # (once per union member)
    suffix = f" (and {more} more error{'s' if more > 1 else ''})" if more else ""
    at = where(err["loc"])
    return f"{at}: {msg}{suffix}" if at else f"{msg}{suffix}"
