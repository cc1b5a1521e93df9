"""Policies: schedulers and admission control, registered by name.

Importing this package registers every built-in policy; see :mod:`agents.policies.registry`.
"""

from agents.policies import (  # noqa: F401  (registration)
    admission,
    backfill,
    dvqops,
    external,
    libra,
    mrt,
    msb,
    opportunity,
    pricing,
    profit,
    qops,
    vqops,
)
from agents.policies.base import Admission, Decision, Placement, Plan, PlanContext, Scheduler
from agents.policies.registry import (
    ADMISSIONS,
    CLUSTERS,
    PRICINGS,
    SCHEDULERS,
    make_admission,
    make_cluster,
    make_pricing,
    make_scheduler,
    register_admission,
    register_scheduler,
)

__all__ = [
    "ADMISSIONS",
    "CLUSTERS",
    "PRICINGS",
    "SCHEDULERS",
    "Admission",
    "Decision",
    "Placement",
    "Plan",
    "PlanContext",
    "Scheduler",
    "make_admission",
    "make_cluster",
    "make_pricing",
    "make_scheduler",
    "register_admission",
    "register_scheduler",
]
