"""What the equivalence harness runs: every scenario file, variants and sweep points, capped small
(see ``CAPS``), plus a trace replay, other seeds, ``fast=False`` twins and an environment
episode."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

# -- what to run ----------------------------------------------------------------------------------
#: Caps that keep every run small (each well under 3 s).
CAPS = {
    "profit_jobs": 200,  # generated workloads (kind profit ...: ``jobs``)
    "trace_jobs": 500,  # trace workloads: first_jobs (or last_jobs where the file takes the last)
    "site_jobs": 1500,  # batch sites: first_jobs (window files: the window cut to ``site_hours``)
    "site_hours": 24.0,
}

#: Per scenario file (relative to ``scenarios/``): which variants to run (``"*"``: all) and at
#: which sweep points. A point is ``{dotted.path: index into that parameter's sweep values}``;
#: ``None`` is the file as written (no sweep point). Files not listed run every variant as
#: written (so a new file is covered too). Several entries: several sets of runs.
PLAN: dict[str, list[tuple[Any, dict[str, int] | None]]] = {
    # profit paper (Popovici & Wilkes): the schedulers, admission, load, decay, capacity, price
    "profit/default.yaml": [("*", None)],
    "profit/default_exponential.yaml": [
        (["LJF", "FirstReward", "FirstOpportunityRate", "FirstProfit, accept all"], None)
    ],
    "profit/calibration.yaml": [
        (
            ["FirstReward a=0.3 d=0.01", "FirstReward a=0.9 d=0.1"],
            {
                "clients.0.workload.work_cv": -1,
                "clients.0.workload.steep_decay_share": -1,
                "clients.0.workload.decay_sd_ratio": -1,
                "clients.0.workload.mean_interarrival": 0,
            },
        ),
    ],
    "profit/fig3_load.yaml": [
        (["FirstOpportunity"], {"clients.0.workload.mean_interarrival": 2}),
        (["SJF"], {"clients.0.workload.mean_interarrival": 0}),
    ],
    "profit/fig4_decay.yaml": [
        (["FirstReward", "FirstProfit"], {"clients.0.workload.shallow_decay_mean": 6}),
    ],
    "profit/fig5_capacity.yaml": [
        (["FirstOpportunityRate"], {"resource_providers.0.capacity": 0}),
        (["LJF"], {"resource_providers.0.capacity": -1}),
    ],
    "profit/fig6_price.yaml": [
        (["FirstPrice", "FirstProfit, accept all"], {"resource_providers.0.price": 8}),
    ],
    # uncertain capacity: risk-bounded admission and the oblivious schedulers
    "profit/fig7_uncertainty.yaml": [  # the file's sigma is 0: uncertainty is at its points
        (
            ["FirstProfit (5%)", "FirstProfit (10%)", "FirstProfit (20%)", "FirstProfit", "SJF"],
            {"resource_providers.0.uncertainty.sigma": 4},
        ),
        (["FirstProfit (10%)", "FirstReward"], {"resource_providers.0.uncertainty.sigma": -1}),
        (["LJF"], {"resource_providers.0.uncertainty.sigma": 1}),
    ],
    # QoPS (and MSB, MRT, EASY, Conservative)
    "qops/sdsc_load.yaml": [("*", None)],
    "qops/ctc_load.yaml": [
        (
            ["QoPS", "EASY (all)"],
            {"clients.0.workload.load_factor": -1, "clients.0.workload.stringency": -1},
        ),
    ],
    "qops/sdsc_mixed.yaml": [
        (
            ["QoPS", "MSB"],
            {
                "clients.0.workload.load_factor": 1,
                "clients.0.workload.deadline_share": 0,
                "clients.0.workload.relaxation": 0,
            },
        ),
    ],
    "qops/ctc_mixed.yaml": [
        (
            ["MRT", "Conservative (all)"],
            {
                "clients.0.workload.load_factor": 0,
                "clients.0.workload.deadline_share": -1,
                "clients.0.workload.relaxation": -1,
            },
        ),
    ],
    # VQoPS / DVQoPS
    "vqops/sdsc.yaml": [("*", None)],
    "vqops/ctc.yaml": [(["QoPS", "VQoPS 0.1", "DVQoPS"], None)],
    "vqops/fig5_sdsc.yaml": [(["VQoPS 0"], {"clients.0.workload.urgent_fraction": 0})],
    "vqops/fig6_ctc.yaml": [(["VQoPS 0.4"], {"clients.0.workload.urgent_fraction": 1})],
    "vqops/fig7_sdsc.yaml": [
        (["VQoPS 0.2"], {"clients.0.workload.load_factor": 0, "clients.0.workload.urgent_cost": 0})
    ],
    "vqops/fig8_ctc.yaml": [
        (["DVQoPS"], {"clients.0.workload.load_factor": -1, "clients.0.workload.urgent_cost": 1})
    ],
    "vqops/fig9_sdsc.yaml": [(["VQoPS 0.05"], {"clients.0.workload.urgent_fraction": 1})],
    "vqops/fig10_ctc.yaml": [(["QoPS"], {})],
    "vqops/fig11_sdsc.yaml": [(["DVQoPS"], {})],
    "vqops/fig12_ctc.yaml": [
        (["VQoPS 0.1"], {"clients.0.workload.load_factor": 0, "clients.0.workload.urgent_cost": -1})
    ],
    "vqops/table1_sdsc.yaml": [
        (
            ["DVQoPS"],
            {
                "clients.0.workload.load_factor": -1,
                "clients.0.workload.urgent_cost": 0,
                "clients.0.workload.urgent_fraction": 0,
            },
        ),
    ],
    # Libra, LibraRisk, EDF
    "libra/sdsc.yaml": [("*", None)],
    "libra/fig1_load.yaml": [
        (
            ["LibraRisk", "EDF"],
            {"clients.0.workload.arrival_delay_factor": 0, "clients.0.workload.estimates": 0},
        ),
    ],
    "libra/fig2_ratio.yaml": [
        (["Libra"], {"clients.0.workload.urgency_ratio": -1, "clients.0.workload.estimates": -1}),
    ],
    "libra/fig3_urgency.yaml": [
        (
            ["EDF (no admission control)"],
            {"clients.0.workload.urgent_share": -1, "clients.0.workload.estimates": 0},
        ),
    ],
    "libra/fig4_inaccuracy.yaml": [
        (["LibraRisk"], {"clients.0.workload.estimate_inaccuracy": 2}),
    ],
    "libra/fig5_inaccuracy.yaml": [
        (["Libra"], {"clients.0.workload.estimate_inaccuracy": -1}),
    ],
    # the competing market
    "market/competition.yaml": [("*", None)],
    "market/entry.yaml": [("*", None)],
    "market/price_war.yaml": [
        ("*", None),
        (
            "*",
            {
                "service_providers.0.pricing.params.markup": 0,
                "service_providers.1.pricing.params.markup": -1,
            },
        ),
    ],
    # VARQ: batch sites, QBETS, VARQ users, a broker
    "varq/broker.yaml": [("*", None)],
    "varq/qbets_sites.yaml": [("*", None)],
    "varq/random_jobs.yaml": [("*", None)],
    "varq/table4.yaml": [
        ("*", None),
        (["SDSC-SP2"], {"batch_sites.0.varq.fraction": -1, "batch_sites.0.varq.probability": 0}),
    ],
}

#: Runs repeated with fast=False: their ``jobs`` hash must equal their fast twin's.
SLOW_TWINS = [
    "profit/default.yaml::FirstOpportunity",
    "profit/fig7_uncertainty.yaml::FirstProfit (10%) @ resource_providers.0.uncertainty.sigma=2",
    "qops/sdsc_load.yaml::EASY (all)",
    "vqops/sdsc.yaml::DVQoPS",
    "libra/sdsc.yaml::LibraRisk",
    "market/competition.yaml::market-competition",
    "varq/table4.yaml::SDSC-SP2",
    "env:gridmarket/Admission-v0:profit/default.yaml",
]

#: Runs repeated on another seed (the scenario's own seed is used everywhere else).
OTHER_SEEDS = {
    "profit/default.yaml::FirstProfit": 7,
    "vqops/sdsc.yaml::VQoPS 0.1": 5,
    "libra/sdsc.yaml::LibraRisk": 11,
    "market/competition.yaml::market-competition": 2,
}

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"
EASY_JOBS = 2000
ENV_SCENARIO = "profit/default.yaml"
ENV_SEED = 3


# -- building runs -------------------------------------------------------------------------------
def sweep_values(spec: Any) -> list[Any]:
    """The values of one swept parameter as the scenario dumps it: a list, or a range."""
    if isinstance(spec, list):
        return spec
    start, stop = spec["start"], spec["stop"]
    if spec.get("step") is not None:
        step = spec["step"]
        count = math.floor((stop - start) / step * (1 + 1e-9) + 1e-9) + 1
        raw = [start + i * step for i in range(count)]
    elif spec.get("scale") == "log":
        n = spec["num"]
        raw = [start * (stop / start) ** (i / (n - 1)) for i in range(n)]
    else:
        n = spec["num"]
        raw = [start + (stop - start) * i / (n - 1) for i in range(n)]
    values = [float(f"{v:.12g}") for v in raw]
    ends = [start, stop] + ([spec["step"]] if spec.get("step") is not None else [])
    if all(isinstance(v, int) for v in ends) and all(v.is_integer() for v in values):
        return [int(v) for v in values]
    return values


def cap(scenario):
    """``scenario`` with its job streams cut to ``CAPS`` (validated again)."""
    data = scenario.model_dump(mode="python")
    for client in data.get("clients", []):
        _cap_workload(client.get("workload") or {})
    for site in data.get("batch_sites", []):
        if site.get("window") is not None:
            lo, hi = site["window"]
            site["window"] = (lo, min(hi, lo + CAPS["site_hours"]))
        else:
            site["first_jobs"] = min(site.get("first_jobs") or CAPS["site_jobs"], CAPS["site_jobs"])
        for broker in site.get("brokers", []):
            _cap_workload(broker.get("workload") or {})
    return type(scenario).model_validate(data)


def _cap_workload(w: dict) -> None:
    if "trace" in w:
        n = CAPS["trace_jobs"]
        if w.get("last_jobs") is not None:
            w["last_jobs"] = min(w["last_jobs"], n)
        else:
            w["first_jobs"] = min(w.get("first_jobs") or n, n)
            w["window"] = None
    elif isinstance(w.get("jobs"), int):
        w["jobs"] = min(w["jobs"], CAPS["profit_jobs"])


def build_runs(root: Path) -> list[dict[str, Any]]:
    """Every run: ``name``, a ``make`` returning (scenario, seed) or an env spec, and ``kind``."""
    from market import load_scenario

    folder = root / "scenarios"
    if not folder.is_dir():
        raise SystemExit(f"equivalence: no scenarios/ folder under {root}")
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.yaml"))
    runs = []
    for rel in files:
        scenario = load_scenario(str(folder / rel))
        data = scenario.model_dump(mode="python")
        variants = dict(data.get("variants") or {}) or {scenario.name: {}}
        sweep = (data.get("sweep") or {}).get("parameters") or {}
        base = scenario.model_copy(update={"variants": {}, "sweep": None})
        for chosen, point_index in PLAN.get(rel, [("*", None)]):
            labels = list(variants) if chosen == "*" else list(chosen)
            point = {}
            if point_index is not None:
                for path, values in sweep.items():
                    i = point_index.get(path, -1)
                    point[path] = sweep_values(values)[i]
            for label in labels:
                if label not in variants:
                    raise SystemExit(f"equivalence: {rel}: no variant {label!r} ({list(variants)})")
                name = f"{rel}::{label}"
                if point:
                    name += " @ " + ", ".join(f"{p}={v}" for p, v in point.items())
                runs.append({"name": name, "kind": "model",
                             "make": _maker(base, point, variants[label], rel, label)})  # fmt: skip
    runs.append({"name": f"easy-replay:{SDSC}:first_{EASY_JOBS}", "kind": "model",
                 "make": lambda: (_easy_scenario(), 1)})  # fmt: skip
    runs.append({"name": f"env:gridmarket/Admission-v0:{ENV_SCENARIO}", "kind": "env",
                 "make": lambda: cap(load_scenario(str(folder / ENV_SCENARIO)).model_copy(
                     update={"variants": {}, "sweep": None}))})  # fmt: skip
    by_name = {r["name"]: r for r in runs}
    for name, seed in OTHER_SEEDS.items():
        if name in by_name:
            runs.append({**by_name[name], "name": f"{name} [seed={seed}]",
                         "make": _reseeded(by_name[name]["make"], seed)})  # fmt: skip
    for twin in SLOW_TWINS:
        if twin in by_name:
            runs.append({**by_name[twin], "name": twin + " [fast=False]", "fast": False,
                         "twin": twin})  # fmt: skip
    return runs


def _maker(base, point, sets, rel, label):
    def make():
        s = base.with_overrides(point, f"{rel}: sweep point") if point else base
        s = s.with_overrides(sets, f"{rel}: variants.{label}") if sets else s
        return cap(s), s.seed

    return make


def _reseeded(make, seed):
    return lambda: (make()[0], seed)


def _easy_scenario():
    from market import Scenario

    workload = {"kind": "swf", "trace": SDSC, "estimates": "trace", "first_jobs": EASY_JOBS}
    return Scenario.model_validate(
        {
            "name": "sdsc-easy",
            "sample_interval": 24.0,
            "resource_providers": [{"name": "pool", "capacity": 128, "price": 0.0}],
            "service_providers": [{"name": "site", "scheduler": "easy", "admission": "accept_all"}],
            "clients": [{"name": "users", "workload": workload}],
        }
    )
