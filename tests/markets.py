"""Random small markets and the invariants every run must keep, for property tests.

:func:`random_market` draws the plain data of a valid scenario (build it with
:func:`market.inputs.scenario.validate`): one to three resource providers (some shared by several
service providers, some with uncertain availability: forecast errors, over-booking, outages, price
changes), one to three service providers with any registered scheduler and admission policy, a
risk level or none, reshaping or not, now and then a deadline cluster (Libra, LibraRisk, EDF) on
a pool of its own, and one to three clients with 5-20 jobs in all, moldable or rigid (trace-like:
one shape, sometimes wider than every pool), or read from a tiny SWF trace with deadlines when a
directory to write it in is given. With ``market=True`` it also draws a competing
market: any registered pricing policy with random parameters, service providers renting from
several pools, utilization-priced pools, providers entering late, and clients shopping by surplus.

:func:`watch` instruments a model before it runs (every lease is logged, and checked against the
pool's availability when it is granted); :func:`check_invariants` checks a finished run: no pool
ever lends more than its capacity, every committed job completed exactly once and paid for once
(by its quote's terms), money conserved, and welfare (client surplus + provider profit + rent) the
utility the completed jobs delivered. :func:`stalled_on_availability` says whether a stall is
explained by the pools' chances.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from agents.policies import ADMISSIONS, CLUSTERS, PRICINGS, SCHEDULERS
from market.core.ledger import Kind
from market.inputs.swf import FIELDS, write_swf
from market.sim.model import GridMarket

TOLERANCE = 1e-6  # hours, and florins relative to the money moved


def _uncertainty(rng: np.random.Generator) -> dict[str, Any]:
    u: dict[str, Any] = {"period": float(rng.uniform(0.25, 3.0))}
    if rng.random() < 0.6:
        u["sigma"] = float(rng.uniform(0.0, 3.0))
        u["distribution"] = str(rng.choice(["normal", "laplace", "uniform", "logistic"]))
    if rng.random() < 0.5:
        u["overbooking"] = float(rng.uniform(0.0, 0.6))
    if rng.random() < 0.4:
        u["outage_rate"] = float(rng.uniform(0.0, 0.4))
        u["outage_duration"] = float(rng.uniform(0.1, 3.0))
        u["outage_share"] = float(rng.uniform(0.1, 1.0))
    return u


def _resource_provider(rng: np.random.Generator, i: int) -> dict[str, Any]:
    rp: dict[str, Any] = {
        "name": f"rp{i}",
        "capacity": int(rng.integers(1, 17)),
        "price": float(rng.choice([0.0, rng.uniform(0.0, 8.0)])),
    }
    if rng.random() < 0.2:
        times = np.cumsum(rng.uniform(0.5, 20.0, int(rng.integers(1, 4))))
        rp["price_changes"] = [{"at": float(t), "price": float(rng.uniform(0, 8))} for t in times]
    if rng.random() < 0.4:
        rp["uncertainty"] = _uncertainty(rng)
    return rp


def _service_provider(rng: np.random.Generator, i: int, rps: list[str]) -> dict[str, Any]:
    if rng.random() < 0.12:  # a deadline cluster (Libra, LibraRisk, EDF): a pool of its own
        return {"name": f"sp{i}", "cluster": str(rng.choice(sorted(CLUSTERS)))}
    # accept_all often (it admits what others would refuse), else any registered policy
    admission = "accept_all" if rng.random() < 0.4 else str(rng.choice(sorted(ADMISSIONS)))
    return {
        "name": f"sp{i}",
        "scheduler": str(rng.choice(sorted(SCHEDULERS))),
        "admission": admission,
        "resource_provider": str(rng.choice(rps)),
        "risk": float(rng.uniform(0.05, 0.6)) if rng.random() < 0.3 else None,
        "reshape": bool(rng.random() < 0.8),
    }


def _shapes(rng: np.random.Generator, widest: int) -> list[int]:
    if rng.random() < 0.35:  # trace-like: rigid, sometimes wider than every pool
        return [int(rng.integers(1, widest + 3))]
    top = int(rng.integers(1, 9))
    shapes = sorted({int(n) for n in rng.integers(1, top + 1, int(rng.integers(1, top + 1)))})
    return shapes


def _profit_workload(rng: np.random.Generator, jobs: int, widest: int) -> dict[str, Any]:
    return {
        "kind": "profit",
        "jobs": jobs,
        "mean_interarrival": float(rng.uniform(0.02, 1.5)),
        "mean_work": float(rng.uniform(0.1, 8.0)),
        "work_distribution": str(rng.choice(["exponential", "uniform", "constant"])),
        "shapes": _shapes(rng, widest),
        "serial_fraction": float(rng.uniform(0.0, 1.0)),
        "high_value_share": float(rng.uniform(0.0, 1.0)),
        "low_value_mean": float(rng.uniform(0.0, 100.0)),
        "shallow_decay_mean": float(rng.uniform(0.0, 10.0)),
        "penalty_bound": float(rng.uniform(-100.0, 0.0)),
        "estimate_error": float(rng.choice([0.0, rng.uniform(0.0, 0.9)])),
    }


def _trace_workload(rng: np.random.Generator, jobs: int, widest: int, path: Path) -> dict[str, Any]:
    """A tiny SWF trace of ``jobs`` rigid jobs written to ``path``, replayed with deadlines."""
    records = pd.DataFrame(-1.0, index=range(jobs), columns=list(FIELDS))
    records["job"] = np.arange(1, jobs + 1)
    records["submit"] = np.cumsum(rng.integers(0, 3600, jobs))
    records["runtime"] = rng.integers(60, 4 * 3600, jobs)
    records["procs"] = rng.integers(1, widest + 3, jobs)
    records["req_time"] = records["runtime"] * rng.uniform(0.5, 3.0, jobs)
    records["status"] = 1
    write_swf(path, records, {"MaxProcs": widest + 2})
    return {
        "kind": "swf",
        "trace": str(path),
        "estimates": str(rng.choice(["exact", "trace"])),
        "deadlines": str(rng.choice(["none", "stringency", "factor", "urgency"])),
        "price_per_processor_hour": float(rng.uniform(0.0, 10.0)),
    }


def _pricing(rng: np.random.Generator) -> dict[str, Any]:
    name = str(rng.choice(sorted(PRICINGS)))
    params: dict[str, Any] = {"name": name}
    if name != "utility":
        params["markup"] = float(rng.choice([0.0, rng.uniform(0.0, 2.0)]))
    if name == "urgency":
        params["premium"] = float(rng.uniform(0.0, 3.0))
    if name == "adaptive":
        params["window"] = int(rng.integers(1, 10))
        params["target"] = float(rng.uniform(0.0, 1.0))
        params["sensitivity"] = float(rng.uniform(0.0, 3.0))
    return params


def _compete(rng: np.random.Generator, data: dict[str, Any], names: list[str]) -> None:
    """Make ``data`` a competing market (``names``: the pools planning providers may share)."""
    for rp in data["resource_providers"]:
        if rp["name"] in names and rng.random() < 0.3:
            rp["utilization_premium"] = float(rng.uniform(0.0, 2.0))
    for sp in data["service_providers"]:
        if "cluster" in sp:
            continue
        sp["pricing"] = _pricing(rng)
        if rng.random() < 0.5 and len(names) > 1:
            chosen = rng.choice(len(names), int(rng.integers(2, len(names) + 1)), replace=False)
            sp["resource_providers"] = [names[j] for j in chosen]
            del sp["resource_provider"]
        if rng.random() < 0.2:
            sp["enters"] = float(rng.uniform(0.0, 5.0))
    for client in data["clients"]:
        client["offer_rule"] = str(
            rng.choice(["best_surplus", "best_surplus", "best_quote", "first_accept", "random"])
        )


def random_market(
    rng: np.random.Generator, trace_dir: Path | None = None, market: bool = False
) -> dict[str, Any]:
    """The data of a random small valid scenario (see the module docstring); a client replays
    a tiny SWF trace written into ``trace_dir`` now and then, if one is given; a competing
    market if ``market``."""
    rps = [_resource_provider(rng, i) for i in range(int(rng.integers(1, 4)))]
    names = [rp["name"] for rp in rps]
    sps = [_service_provider(rng, i, names) for i in range(int(rng.integers(1, 4)))]
    widest = max(rp["capacity"] for rp in rps)
    for sp in sps:
        if "cluster" in sp:  # a fixed pool of its own (a cluster's nodes are not shared)
            size = widest + 2 if rng.random() < 0.8 else int(rng.integers(1, widest + 3))
            own = {"name": f"rp{len(rps)}", "capacity": size}  # mostly wide enough for any job
            rps.append(own)
            sp["resource_provider"] = own["name"]
    n_clients = int(rng.integers(1, 4))
    total = int(rng.integers(5, 21))
    split = np.sort(rng.choice(np.arange(1, total), n_clients - 1, replace=False))
    counts = np.diff([0, *split, total])
    clients = []
    for i, jobs in enumerate(counts):
        if trace_dir is not None and rng.random() < 0.15:
            path = trace_dir / f"trace-{rng.integers(2**62)}.swf"  # a new name: traces are cached
            workload = _trace_workload(rng, int(jobs), widest, path)
        else:
            workload = _profit_workload(rng, int(jobs), widest)
        client: dict[str, Any] = {
            "name": f"c{i}",
            "workload": workload,
            "offer_rule": str(rng.choice(["best_quote", "first_accept", "random"])),
        }
        if rng.random() < 0.4:
            chosen = rng.choice(len(sps), int(rng.integers(1, len(sps) + 1)), replace=False)
            client["providers"] = [sps[j]["name"] for j in sorted(chosen)]
        clients.append(client)
    data = {
        "name": "random",
        "seed": int(rng.integers(0, 2**31)),
        "sample_interval": float(rng.uniform(0.25, 5.0)),
        "resource_providers": rps,
        "service_providers": sps,
        "clients": clients,
    }
    if market:
        _compete(rng, data, names)
    return data


def _pools(sp) -> list:
    """The resource providers ``sp`` rents from."""
    return getattr(sp, "pools", None) or [sp.resource_provider]


# -- invariants ------------------------------------------------------------------------------------
def watch(model: GridMarket) -> None:
    """Log every lease of every pool as it is granted and returned (``rp.lease_log``: time and
    processors held after), checking at each grant that it fits what the pool has for its
    tenants then (no pool lends more than its availability, leases held included)."""
    for rp in model.resource_providers.values():
        rent, release = rp.rent, rp.release
        rp.lease_log = []

        def rented(tenant, processors, until, job=None, now=None, *, rp=rp, rent=rent):
            lease = rent(tenant, processors, until, job, now)
            if lease is not None:
                assert processors >= 1, f"{rp.name}: a lease of {processors} processors"
                assert rp.in_use <= rp.availability, (
                    f"{rp.name} lent {rp.in_use} processors at t={rp.model.time} with "
                    f"{rp.availability} available"
                )
                rp.lease_log.append((rp.model.time, rp.in_use))
            return lease

        def released(lease, now=None, *, rp=rp, release=release):
            rent = release(lease, now)
            rp.lease_log.append((rp.model.time, rp.in_use))
            return rent

        rp.rent, rp.release = rented, released


def _time_shared(provider) -> bool:
    """Whether ``provider`` time-shares its nodes (Libra): jobs run slower than alone, and
    several may hold one node."""
    return getattr(getattr(provider, "policy", None), "sharing", "space") == "time"


def check_invariants(model: GridMarket) -> None:
    """Assert the invariants of a run that finished (see the module docstring); the model must
    have been :func:`watch`-ed."""
    assert not model.running, "the run did not finish"
    # Capacity: the processors each pool has lent never exceed it, at any time; all returned.
    for rp in model.resource_providers.values():
        assert not rp.leases and rp.in_use == 0, f"{rp.name} still has leases"
        for time, held in rp.lease_log:
            assert 0 <= held <= rp.capacity, f"{rp.name} lent {held} at t={time}"
    # Jobs: every committed job ran once, after it arrived, on one of its shapes, for its
    # runtime there (at least that when time-shared; to the clock's tick when it has one);
    # space-shared jobs never overlap beyond their pool (ends before starts at a tie).
    committed: Counter[int] = Counter()
    usage: dict[str, list[tuple[float, int]]] = {name: [] for name in model.resource_providers}
    ticks = model.clock.ticks_per_hour  # with a trace, times are snapped to its second grid
    slack = 1e-9 if ticks is None else 0.5 / ticks + 1e-9
    for sp in model.service_providers.values():
        assert sp.idle and sp.busy == 0, f"{sp.name} is not idle at the end"
        shared = _time_shared(sp)
        for job_id, record in sp.records.items():
            if not record.committed:
                assert record.start is None, f"job {job_id} ran at {sp.name} uncommitted"
                continue
            committed[job_id] += 1
            job = record.job
            assert record.start is not None and record.end is not None, (
                f"job {job_id} committed to {sp.name} never completed"
            )
            assert record.processors in job.shapes
            assert record.start >= job.arrival - slack
            took, runtime = record.end - record.start, job.runtime(record.processors)
            if shared:
                assert took >= runtime * (1 - 1e-9) - slack, f"job {job_id} ran too fast"
                continue
            assert math.isclose(took, runtime, rel_tol=1e-9, abs_tol=slack), f"job {job_id}"
            pool = _pools(sp)[record.pool].name
            usage[pool].append((record.start, record.processors))
            usage[pool].append((record.end, -record.processors))
    assert all(n == 1 for n in committed.values()), "a job was committed twice"
    assert sum(sp.accepted for sp in model.service_providers.values()) == len(committed)
    for name, events in usage.items():
        held, capacity = 0, model.resource_providers[name].capacity
        for time, change in sorted(events, key=lambda e: (e[0], e[1])):
            held += change
            assert held <= capacity, f"jobs hold {held} of {name}'s {capacity} at t={time}"
    # Money: every committed job settled once (nothing for a zero value), balances sum to zero.
    settled = Counter(e.job for e in model.ledger.entries if e.kind in (Kind.PAYMENT, Kind.PENALTY))
    delivered = []
    for sp in model.service_providers.values():
        for job_id, record in sp.records.items():
            if record.committed:
                assert settled[job_id] == (record.paid != 0), f"job {job_id} settled wrongly"
                delivered.append(record.job.utility(record.end))
                quote = record.quote
                if quote is not None and quote.price is not None:  # paid by the quote's terms
                    assert record.paid == quote.payment(record.job, record.end)
                    assert record.paid >= min(quote.price, record.job.utility.penalty_bound)
                    assert record.paid <= quote.price
                else:
                    assert record.paid == record.job.utility(record.end)
    assert set(settled) <= set(committed), "a job not committed was paid for"
    balances = model.ledger.balances()
    moved = math.fsum(abs(b) for b in balances.values())
    assert abs(math.fsum(balances.values())) <= TOLERANCE * max(moved, 1.0), "money not conserved"
    if model.clients:  # welfare: surplus + profit + rent = the utility delivered
        welfare = model.result().market.set_index("kind").loc["market", "welfare"]
        scale = max(moved, math.fsum(abs(u) for u in delivered), 1.0)
        assert abs(welfare - math.fsum(delivered)) <= TOLERANCE * scale, "welfare is not utility"


def stalled_on_availability(model: GridMarket) -> bool:
    """Whether a stall is explained by the pools' chances: a waiting job needs what its pool
    offers so rarely that the stall window (``model.stall_after``) would see it fewer than
    ten times on average (outages and the other tenants aside)."""
    for sp in model.service_providers.values():
        for job in sp.queue:
            rp = _pools(sp)[sp.records[job.id].pool]
            if rp.varies:
                chance = rp.chance_of(sp.least_need(job))
                if chance * model.stall_after / rp.uncertainty.period < 10:
                    return True
    return False
