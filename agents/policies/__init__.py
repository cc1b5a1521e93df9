"""Policies: schedulers, admission control, deadline clusters, pricing and reservations,
registered by name.

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
    varq,
    vqops,
)
from agents.policies.base import Admission, Decision, Placement, Plan, PlanContext, Scheduler
from agents.policies.registry import (
    ADMISSIONS,
    CLUSTERS,
    PRICINGS,
    RESERVATIONS,
    SCHEDULERS,
    Registry,
    make_admission,
    make_cluster,
    make_pricing,
    make_reservation,
    make_scheduler,
    register_admission,
    register_scheduler,
)

__all__ = [
    "ADMISSIONS",
    "CLUSTERS",
    "PRICINGS",
    "RESERVATIONS",
    "SCHEDULERS",
    "Admission",
    "Decision",
    "Placement",
    "Plan",
    "PlanContext",
    "Registry",
    "Scheduler",
    "make_admission",
    "make_cluster",
    "make_pricing",
    "make_reservation",
    "make_scheduler",
    "register_admission",
    "register_scheduler",
]
