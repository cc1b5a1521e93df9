"""Workloads: where clients' jobs come from.

Each workload kind is a pydantic model of its parameters (validated from a scenario file) with a
``generate(rng, first_id, client)`` method returning the job stream in arrival order:

- ``kind: profit`` -- :class:`ProfitWorkload`, the synthetic workload of the profit paper
  (the default: a workload without a ``kind`` is this one);
- ``kind: swf`` -- :class:`TraceWorkload`, jobs from a Standard Workload Format trace;
- ``kind: priced_swf`` -- :class:`PricedTraceWorkload`, trace jobs with VQoPS's urgent/normal
  prices decaying to zero at the deadline.

:data:`Workload` is the union of the kinds, discriminated by ``kind``: a scenario's workload is
validated as exactly the model its ``kind`` names, so an error names that model's field
(``clients.0.workload.jobs``), and an unknown kind is an error on ``kind`` itself. (Pydantic's
built-in ``Field(discriminator="kind")`` would put the tag into every error path,
``clients.0.workload.profit.jobs``, and refuse a workload without a ``kind``; the validator below
dispatches the same way without either.)
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
