"""Shared fixtures: small hand-made jobs and contexts for policy tests, and scenario helpers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agents.policies import PlanContext
from market.core.capacity import CapacityProfile
from market.core.jobs import Job
from market.core.utility import UtilityFunction
from market.inputs.scenario import Scenario, load
from market.inputs.swf import FIELDS, write_swf

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SCENARIO = ROOT / "scenarios" / "profit" / "default.yaml"


def make_job(
    id: int,
    work: float,
    value: float,
    decay: float = 0.0,
    *,
    arrival: float = 0.0,
    shapes: tuple[int, ...] = (1,),
    serial_fraction: float = 0.0,
    bound: float | None = None,
) -> Job:
    """A job whose value decays from its arrival at ``decay`` per hour down to ``bound``
    (default: minus the value), as in the profit paper."""
    utility = UtilityFunction.linear_decay(
        value, arrival, decay, -value if bound is None else bound
    )
    return Job(id, arrival, work, utility, serial_fraction=serial_fraction, shapes=shapes)


def make_ctx(capacity: int, price: float, now: float = 0.0) -> PlanContext:
    """An empty pool of ``capacity`` processors at ``price`` per processor-hour."""
    return PlanContext(now, CapacityProfile(capacity, origin=now), price)


@pytest.fixture
def default_scenario() -> Scenario:
    """The profit paper's default scenario file, without its variants."""
    return load(DEFAULT_SCENARIO).model_copy(update={"variants": {}})


def synthetic_swf(
    path: Path, n: int = 300, procs: int = 16, seed: int = 3, max_gap: int = 1800, tick: int = 1
) -> Path:
    """An SWF file of ``n`` jobs on ``procs`` processors; job 2 is cancelled before running.
    Jobs arrive up to ``max_gap`` seconds apart, and submit and run times are multiples of
    ``tick`` seconds (a coarse tick makes arrivals and completions coincide)."""
    rng = np.random.default_rng(seed)
    records = pd.DataFrame(-1.0, index=range(n), columns=list(FIELDS))
    records["job"] = np.arange(1, n + 1)
    records["submit"] = 1000 + tick * np.cumsum(rng.integers(0, max_gap // tick, n))
    records["runtime"] = tick * rng.integers(max(60 // tick, 1), 20000 // tick, n)
    records["procs"] = 2 ** rng.integers(0, 5, n)
    records["req_time"] = np.where(rng.random(n) < 0.8, records["runtime"] * 2, 30)
    records["status"] = 1
    records.loc[1, ["runtime", "procs"]] = -1
    return write_swf(path, records, {"MaxProcs": procs, "UnixStartTime": 800000000})


def easy_trace_scenario(tmp_path: Path, **extra) -> str:
    """A scenario file in ``tmp_path``: EASY accepting every job of a 20-job synthetic trace
    (:func:`synthetic_swf`) on a free pool of 16 processors, with ``extra`` top-level keys
    (``variants``, ``sweep``); its path."""
    import yaml

    trace = synthetic_swf(tmp_path / "good.swf", n=20)
    data = {
        "name": "t",
        "resource_providers": [{"name": "pool", "capacity": 16, "price": 0.0}],
        "service_providers": [{"name": "site", "scheduler": "easy", "admission": "accept_all"}],
        "clients": [{"name": "users", "workload": {"kind": "swf", "trace": str(trace)}}],
        **extra,
    }
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def require_trace(name: str = "SDSC-SP2-1998-4.2-cln.swf.gz") -> Path:
    """The path of trace ``name`` on the trace search path, or skip the test (the project never
    needs ``../shared``: see docs/guide/traces.md)."""
    from market.inputs.traces import TraceNotFoundError, resolve_trace

    try:
        return resolve_trace(name)
    except TraceNotFoundError as exc:
        pytest.skip(f"needs the trace {name}: {exc}")
