"""The scenario's cross-field checks: rules that span sections (names, pools, clusters,
bounds), each a small named function that raises a ``ValueError`` naming the field at fault.

:class:`~market.inputs.scenario.Scenario` runs :data:`CROSS_FIELD_CHECKS` in order after every
field is valid on its own; the first failing check's message is the scenario's one-line error.
A new rule is one function here and one entry in the tuple.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from market.inputs import limits

if TYPE_CHECKING:
    from market.inputs.scenario import Scenario


def has_participants(s: Scenario) -> None:
    """A market needs a service provider and a client, unless a batch site runs on its own."""
    if not s.service_providers and not s.batch_sites:
        raise ValueError("service_providers: give at least one (or a batch site)")
    if not s.clients and not s.batch_sites:
        raise ValueError("clients: give at least one (or a batch site)")


def finite_numbers(s: Scenario) -> None:
    """No infinite, NaN or out-of-range number and no unreadable text anywhere
    (:func:`market.inputs.limits.first_bad_value`)."""
    bad = limits.first_bad_value(s.model_dump(mode="python"))
    if bad is not None:
        raise ValueError(f"{bad[0]}: {bad[1]}" if bad[0] else bad[1])


def unique_names(s: Scenario) -> None:
    """One ledger account per name: names are unique across every kind of agent."""
    owners: dict[str, str] = {}
    kinds = {
        "resource_providers": s.resource_providers,
        "service_providers": s.service_providers,
        "clients": s.clients,
        "batch_sites": s.batch_sites,
    }
    for kind, items in kinds.items():
        for i, item in enumerate(items):
            where = f"{kind}.{i}"
            if item.name in owners:
                raise ValueError(
                    f"{where}.name: {item.name!r} is also the name of {owners[item.name]} "
                    "(every agent needs its own name)"
                )
            owners[item.name] = where


def pools_exist(s: Scenario) -> None:
    """A service provider rents from resource providers the scenario has, named one way."""
    rps = {rp.name for rp in s.resource_providers}
    have = ", ".join(sorted(rps))
    for i, sp in enumerate(s.service_providers):
        if sp.resource_provider is not None and sp.resource_provider not in rps:
            raise ValueError(
                f"service_providers.{i}.resource_provider: no resource provider named "
                f"{sp.resource_provider!r} (have: {have})"
            )
        for j, name in enumerate(sp.resource_providers or []):
            if name not in rps:
                raise ValueError(
                    f"service_providers.{i}.resource_providers.{j}: no resource provider "
                    f"named {name!r} (have: {have})"
                )
        if sp.resource_providers and sp.resource_provider is not None:
            raise ValueError(
                f"service_providers.{i}.resource_providers: give it or resource_provider, not both"
            )


def clusters_own_their_pool(s: Scenario) -> None:
    """A deadline cluster's nodes are its pool's processors (Yeo & Buyya §3): it rents from one
    resource provider and shares it with no other service provider."""
    if not s.resource_providers:
        return
    first = s.resource_providers[0].name
    pools = [sp.pool_names(first) for sp in s.service_providers]
    for i, sp in enumerate(s.service_providers):
        if sp.cluster is None:
            continue
        if len(pools[i]) > 1:
            raise ValueError(
                f"service_providers.{i}.resource_providers: a deadline cluster rents from "
                "one resource provider"
            )
        own = pools[i][0]
        other = next(
            (
                o.name
                for o, p in zip(s.service_providers, pools, strict=True)
                if own in p and o is not sp
            ),
            None,
        )
        if other is not None:
            raise ValueError(
                f"service_providers.{i}.cluster: a deadline cluster needs a resource provider "
                f"of its own ({own!r} is also rented by {other!r})"
            )


def admission_scheduler(name: str) -> str | None:
    """The scheduler the admission policy registered as ``name`` keeps its promises with
    (``Admission.scheduler``: ``conservative`` for the QoPS family), or None."""
    from agents.policies import ADMISSIONS

    policy = ADMISSIONS.get(name)
    return policy.scheduler if policy is not None else None


def guarantees_have_their_scheduler(s: Scenario) -> None:
    """The QoPS family (qops, msb, mrt, vqops, dvqops) admits a job only if a schedule meeting
    every deadline exists, and that schedule is the conservative scheduler's plan (QoPS TR §3:
    a reservation per job); under another scheduler admitted jobs can miss their deadlines."""
    for i, sp in enumerate(s.service_providers):
        own = admission_scheduler(sp.admission.name)
        if sp.cluster is None and own is not None and sp.scheduler.name != own:
            raise ValueError(
                f"service_providers.{i}.scheduler: {sp.admission.name} admits only schedules "
                f"that meet every deadline as the {own} scheduler plans them (QoPS TR §3: a "
                f"reservation per job); with {sp.scheduler.name} admitted jobs can miss theirs: "
                f"give scheduler: {own} (or leave it out)"
            )


def clients_name_providers(s: Scenario) -> None:
    """A client's ``providers`` are service providers of the scenario."""
    sps = {sp.name for sp in s.service_providers}
    for i, client in enumerate(s.clients):
        for name in client.providers or []:
            if name not in sps:
                raise ValueError(f"clients.{i}.providers: no service provider named {name!r}")


def bounded(s: Scenario) -> None:
    """No setting makes the run take endless samples or events (:mod:`market.inputs.limits`)."""
    unbounded = limits.too_many_jobs(s) or limits.unbounded_setting(s)
    if unbounded is not None:
        raise ValueError(unbounded)


#: Run in this order; the first failure is the scenario's error.
CROSS_FIELD_CHECKS: tuple[Callable[[Scenario], None], ...] = (
    has_participants,
    finite_numbers,
    unique_names,
    pools_exist,
    clusters_own_their_pool,
    guarantees_have_their_scheduler,
    clients_name_providers,
    bounded,
)
