"""Random small valid markets of every kind, for property tests (the invariants every run must
keep are :mod:`tests.invariants`).

:func:`random_market` draws the plain data of a valid scenario (build it with
:func:`market.inputs.scenario.validate`): one to three resource providers (some shared, some with
uncertain availability: forecast errors, over-booking, outages, price changes), one to three
service providers with any registered scheduler and admission policy (the QoPS family with the
scheduler its guarantee is about), a risk level or none, reshaping or not, now and then a
deadline cluster (Libra, LibraRisk, EDF) on a pool of its own, and one to three clients with
5-20 jobs in all, moldable or rigid (sometimes wider than every pool), or read from a tiny SWF
trace with deadlines when a directory to write it in is given. With ``market=True`` it also
draws a competing market: every pricing policy, providers renting from several pools,
utilization-priced pools, late entry, clients shopping by surplus. :func:`any_market` draws
from all of it, and adds now and then a QoPS-family provider on a fixed pool of its own fed
deadline jobs from a trace (where its guarantee applies) and a batch site replaying a tiny trace
with VARQ users, random reservations and a broker.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from agents.policies import ADMISSIONS, CLUSTERS, PRICINGS, SCHEDULERS
from market.inputs.scenario import paired_scheduler
from market.inputs.swf import FIELDS, write_swf

#: Admission policies a scenario runs by itself (``external`` is decided by a learning agent).
_ADMISSIONS = sorted(name for name in ADMISSIONS if name != "external")
#: The QoPS family: admission policies whose deadline guarantee needs their own scheduler.
GUARANTEES = sorted(name for name in ADMISSIONS if paired_scheduler(name) is not None)


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
    admission = "accept_all" if rng.random() < 0.4 else str(rng.choice(_ADMISSIONS))
    scheduler = str(rng.choice(sorted(SCHEDULERS)))
    return {
        "name": f"sp{i}",
        "scheduler": paired_scheduler(admission) or scheduler,  # (drawn all the same)
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


def _write_trace(rng: np.random.Generator, jobs: int, widest: int, path: Path) -> None:
    """A tiny SWF trace of ``jobs`` rigid jobs of 1 to ``widest + 2`` processors at ``path``."""
    records = pd.DataFrame(-1.0, index=range(jobs), columns=list(FIELDS))
    records["job"] = np.arange(1, jobs + 1)
    records["submit"] = np.cumsum(rng.integers(0, 3600, jobs))
    records["runtime"] = rng.integers(60, 4 * 3600, jobs)
    records["procs"] = rng.integers(1, widest + 3, jobs)
    records["req_time"] = records["runtime"] * rng.uniform(0.5, 3.0, jobs)
    records["status"] = 1
    write_swf(path, records, {"MaxProcs": widest + 2})


def _trace_workload(rng: np.random.Generator, jobs: int, widest: int, path: Path) -> dict[str, Any]:
    """A tiny SWF trace of ``jobs`` rigid jobs written to ``path``, replayed with deadlines."""
    _write_trace(rng, jobs, widest, path)
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


def _new_trace(trace_dir: Path, rng: np.random.Generator) -> Path:
    return trace_dir / f"trace-{rng.integers(2**62)}.swf"  # a new name: traces are cached


def _guaranteed(rng: np.random.Generator, data: dict[str, Any], trace_dir: Path) -> None:
    """Add a QoPS-family provider with its scheduler on a fixed pool of its own, fed deadline
    jobs from a trace by a client of its own: its admitted jobs must meet their deadlines."""
    k = len(data["service_providers"])
    pool = {"name": f"rp{len(data['resource_providers'])}", "capacity": int(rng.integers(2, 17))}
    data["resource_providers"].append(pool)
    admission = str(rng.choice(GUARANTEES))
    data["service_providers"].append({
        "name": f"sp{k}", "admission": admission, "scheduler": paired_scheduler(admission),
        "resource_provider": pool["name"], "reshape": bool(rng.random() < 0.5),
    })  # fmt: skip
    workload = _trace_workload(rng, int(rng.integers(5, 25)), pool["capacity"] - 2,
                               _new_trace(trace_dir, rng))  # fmt: skip
    workload["deadlines"] = str(rng.choice(["stringency", "factor", "urgency"]))
    if admission in ("vqops", "dvqops") and rng.random() < 0.5:
        workload["kind"] = "priced_swf"
        workload.pop("price_per_processor_hour")
    data["clients"].append(
        {"name": f"c{len(data['clients'])}", "workload": workload, "providers": [f"sp{k}"]}
    )


def _batch_site(rng: np.random.Generator, data: dict[str, Any], trace_dir: Path) -> None:
    """Add a batch site replaying a tiny trace, with Table 4's VARQ users, a random
    reservation process or a broker, now and then."""
    nodes = int(rng.integers(4, 33))
    path = _new_trace(trace_dir, rng)
    _write_trace(rng, int(rng.integers(10, 60)), nodes - 2, path)
    site: dict[str, Any] = {"name": f"site{len(data.get('batch_sites', []))}", "trace": str(path),
                            "kill_at_walltime": bool(rng.random() < 0.7)}  # fmt: skip
    if rng.random() < 0.5:
        site["varq"] = {"fraction": float(rng.uniform(0.0, 0.5)),
                        "probability": float(rng.uniform(0.3, 0.95)),
                        "deadline_interval": float(rng.uniform(0.5, 6.0)),
                        "refused": str(rng.choice(["submit", "drop"]))}  # fmt: skip
    if rng.random() < 0.4:
        site["random_users"] = [{
            "name": "random", "probability": float(rng.uniform(0.3, 0.95)),
            "lead": float(rng.uniform(0.5, 6.0)), "nodes": [1, max(1, nodes // 2)],
            "walltimes_s": [600, 1800], "retry_seconds": float(rng.uniform(300, 1800)),
        }]  # fmt: skip
    if rng.random() < 0.4:
        jobs = int(rng.integers(2, 10))
        workload = {"kind": "profit", "jobs": jobs, "shapes": [1, min(2, nodes)],
                    "mean_work": float(rng.uniform(0.1, 4.0))}  # fmt: skip
        site["brokers"] = [{"name": f"broker{len(data.get('batch_sites', []))}",
                            "workload": workload, "price": float(rng.uniform(0.0, 4.0)),
                            "probability": float(rng.uniform(0.5, 0.95))}]  # fmt: skip
    data.setdefault("batch_sites", []).append(site)


def any_market(rng: np.random.Generator, trace_dir: Path) -> dict[str, Any]:
    """A random small valid market of any kind (see the module docstring)."""
    data = random_market(rng, trace_dir, market=bool(rng.random() < 0.5))
    if rng.random() < 0.2:
        _guaranteed(rng, data, trace_dir)
    if rng.random() < 0.12:
        _batch_site(rng, data, trace_dir)
    return data
