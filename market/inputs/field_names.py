"""The field names a scenario's models accept where an unknown field was given, so that its
one-line error can offer the nearest (``clients.0.offer_rul: unknown field (did you mean
'offer_rule'?)``). The error's location is followed through the models' annotations (lists,
mappings, optionals and unions alike); a location step that names no field (a list index, a
mapping key, a union member's tag) keeps the models reached so far."""

from __future__ import annotations

import typing
from collections.abc import Sequence

from pydantic import BaseModel


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
