"""Limits that keep a valid scenario's run bounded: every number finite, and no setting that
makes a run take endless samples or events.

The bounds are relative to the run. The expected horizon of an all-synthetic scenario is the
longest client's arrival span plus all the work over the total capacity; over it a run may take
at most :data:`MAX_SAMPLES` samples and each varying pool :data:`MAX_EVENTS` availability draws
and expected outages. With a trace the horizon is known only once it is read, so
:data:`MIN_STEP` (one second) bounds the sample interval and the period. ``jobs`` <=
:data:`MAX_JOBS` per client; a seed is in [0, :data:`MAX_SEED`].
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from market.inputs.scenario import Scenario

MAX_SAMPLES = 1_000_000  # time-series samples over the expected horizon
MAX_EVENTS = 1_000_000  # availability draws, and expected outages, per pool over the horizon
MIN_STEP = 1 / 3600  # hours: one second, the floor when the horizon is unknown (traces)
MAX_JOBS = 1_000_000  # jobs a synthetic client submits
MAX_SEED = 2**63 - 1  # seeds are stored as signed 64-bit integers


def expected_horizon(scenario: Scenario) -> float | None:
    """The expected length of a run in hours (see the module docstring), or None when a client
    replays a trace."""
    spans, work = [0.0], 0.0
    for client in scenario.clients:
        workload = client.workload
        if workload.kind != "profit":
            return None
        spans.append(workload.jobs * workload.mean_interarrival)
        work += workload.jobs * workload.mean_work
    capacity = sum(rp.capacity for rp in scenario.resource_providers)
    return max(spans) + work / capacity


def unbounded_setting(scenario: Scenario) -> str | None:
    """Why ``scenario`` would take endless samples or events (``field: reason``), or None."""
    horizon = expected_horizon(scenario)
    if horizon is None:
        return _unbounded_without_horizon(scenario)
    about = f"over the run's expected {horizon:,.6g} h"
    if horizon / scenario.sample_interval > MAX_SAMPLES:
        return (
            f"sample_interval: {scenario.sample_interval:g} h takes more than {MAX_SAMPLES:,} "
            f"samples {about}; use at least {horizon / MAX_SAMPLES:.3g}"
        )
    for i, rp in enumerate(scenario.resource_providers):
        u = rp.uncertainty
        if not (u.sigma > 0 or u.overbooking > 0 or u.outage_rate > 0):
            continue  # a pool that never varies draws nothing
        where = f"resource_providers.{i}.uncertainty"
        if horizon / u.period > MAX_EVENTS:
            return (
                f"{where}.period: {u.period:g} h makes more than {MAX_EVENTS:,} availability "
                f"draws {about}; use at least {horizon / MAX_EVENTS:.3g}"
            )
        if u.outage_rate * horizon > MAX_EVENTS:
            return (
                f"{where}.outage_rate: {u.outage_rate:g} per hour makes more than "
                f"{MAX_EVENTS:,} outages {about}; use at most {MAX_EVENTS / horizon:.3g}"
            )
    return None


def _unbounded_without_horizon(scenario: Scenario) -> str | None:
    floor = "one second (0.000278 h)"
    if scenario.sample_interval < MIN_STEP:
        return f"sample_interval: must be at least {floor} with a trace workload"
    for i, rp in enumerate(scenario.resource_providers):
        u = rp.uncertainty
        where = f"resource_providers.{i}.uncertainty"
        if u.period < MIN_STEP:
            return f"{where}.period: must be at least {floor} with a trace workload"
        if u.outage_rate > 1 / MIN_STEP:
            return f"{where}.outage_rate: must be at most 3600 per hour with a trace workload"
    return None
