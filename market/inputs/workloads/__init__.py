"""Workloads: where clients' jobs come from.

Each kind is a pydantic model of its parameters with ``generate(rng, first_id, client)``
returning the job stream in arrival order: ``kind: profit`` (:class:`ProfitWorkload`, the
default), ``kind: swf`` (:class:`TraceWorkload`) and ``kind: priced_swf``
(:class:`PricedTraceWorkload`). :data:`Workload` validates a workload as exactly the model its
``kind`` names, so an error names that model's field (``clients.0.workload.jobs``); pydantic's
own discriminator would put the tag into every error path and refuse a workload without a
``kind``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ValidationError, ValidatorFunctionWrapHandler, WrapValidator

from market.inputs.workloads.priced import PricedTraceWorkload
from market.inputs.workloads.synthetic import ProfitWorkload
from market.inputs.workloads.trace import TraceWorkload

KINDS: dict[str, type[ProfitWorkload] | type[TraceWorkload]] = {
    "profit": ProfitWorkload,
    "swf": TraceWorkload,
    "priced_swf": PricedTraceWorkload,
}


def _by_kind(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    if isinstance(value, dict):
        kind = value.get("kind", "profit")
        model = KINDS.get(kind) if isinstance(kind, str) else None
        if model is None:
            expected = " or ".join(repr(k) for k in KINDS)
            raise ValidationError.from_exception_data(
                "Workload",
                [{"type": "literal_error", "loc": ("kind",), "input": kind,
                  "ctx": {"expected": expected}}],
            )  # fmt: skip
        return model.model_validate(value)
    return handler(value)


Workload = Annotated[ProfitWorkload | TraceWorkload | PricedTraceWorkload, WrapValidator(_by_kind)]

__all__ = ["KINDS", "PricedTraceWorkload", "ProfitWorkload", "TraceWorkload", "Workload"]
