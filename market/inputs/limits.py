"""Limits that keep a valid scenario's run bounded: every number finite, and no setting that
makes a run take endless samples or events.

A run samples its time series every ``sample_interval`` hours and, when a resource provider's
availability varies, draws it afresh every ``uncertainty.period`` hours and starts outages at
``uncertainty.outage_rate`` per hour, for as long as the run lasts. These bounds are relative to
the run, so that no fixed number refuses a valid long or short market:

- the **expected horizon** of a scenario whose workloads are all synthetic (``kind: profit``)
  is the longest client's expected arrival span (``jobs x mean_interarrival``) plus the time
  the pools need for all the work on one processor each (sum of ``jobs x mean_work`` over the
  total capacity): for Table 1, 30 + 140 = 170 hours;
- over that horizon a run may take at most :data:`MAX_SAMPLES` samples, and each varying pool at
  most :data:`MAX_EVENTS` availability draws and :data:`MAX_EVENTS` expected outages;
- with a trace workload the horizon is known only once the trace is read, so the fixed floor
  :data:`MIN_STEP` (one second, the resolution of SWF times) bounds the sample interval and the
  period, and ``outage_rate`` is at most one per :data:`MIN_STEP`.

Counts have fixed ceilings, far above the papers' (200 jobs, traces of 5,000 to 100,000):
``jobs`` <= :data:`MAX_JOBS` per client. A seed is an integer in [0, :data:`MAX_SEED`] (it is
stored as a 64-bit integer in results).
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
