"""Every SWF trace on the trace search path, through every scheduler family: the first jobs of
each replay as the reference loop says EASY does, and every run keeps the invariants
(tests/invariants.py: no pool lends more than it has, every committed job runs once after it
arrives, money conserved, tables that agree, admitted deadlines kept where a policy promises
them). Whatever traces a machine has are tested (none: skipped), so the model is checked on
workloads it was not written against, not only on SDSC-SP2 and CTC-SP2."""

from __future__ import annotations

import numpy as np
import pytest

from market import GridMarket
from market.inputs.scenario import validate
from market.inputs.traces import trace_dirs
from tests.benchmarks import easy_loop
from tests.invariants import check_guarantees, check_invariants, check_tables, watch

JOBS = 800  # the first jobs of each trace: enough for queues to form on every machine


def traces() -> list:
    """Every ``*.swf`` and ``*.swf.gz`` file in the trace search path's directories, once by
    name (the first directory that has it, as the search path resolves it)."""
    found: dict[str, object] = {}
    for directory in trace_dirs():
        if directory.is_dir():
            for path in sorted([*directory.glob("*.swf"), *directory.glob("*.swf.gz")]):
                found.setdefault(path.name, path)
    return [pytest.param(path, id=name) for name, path in found.items()] or [
        pytest.param(None, marks=pytest.mark.skip(reason="no SWF trace on the trace search path"))
    ]


# The families, as a scenario's service provider and the trace workload's deadlines.
FAMILIES = {
    "fcfs": ({"scheduler": "fcfs", "admission": "accept_all"}, {}),
    "conservative": ({"scheduler": "conservative", "admission": "accept_all"}, {}),
    "qops": ({"scheduler": "conservative", "admission": "qops"}, {"stringency": 0.2}),
    "msb": ({"scheduler": "conservative", "admission": "msb"}, {"stringency": 0.2}),
    "mrt": ({"scheduler": "conservative", "admission": "mrt"}, {"stringency": 0.5}),
    "dvqops": ({"scheduler": "conservative", "admission": "dvqops"}, {"stringency": 0.2}),
    "edf": ({"cluster": "edf"}, {"urgency": True}),
    "libra_risk": ({"cluster": "libra_risk"}, {"urgency": True}),
}


def scenario(trace, capacity: int, provider: dict, deadlines: dict):
    workload = {"kind": "swf", "trace": str(trace), "first_jobs": JOBS, "estimates": "trace"}
    if "stringency" in deadlines:
        workload |= {"deadlines": "stringency", "stringency": deadlines["stringency"]}
        workload |= {"price_per_processor_hour": 1.0}  # (the value-aware policies need values)
    elif deadlines:
        workload |= {"deadlines": "urgency"}
    return validate(
        {
            "name": "every-trace",
            "resource_providers": [{"name": "pool", "capacity": capacity, "price": 0.0}],
            "service_providers": [{"name": "site", **provider}],
            "clients": [{"name": "users", "workload": workload}],
        }
    )


def machine(trace) -> int:
    """The trace's MaxProcs, or without one its widest job (as the trace workload reads it)."""
    capacity, _, procs, _, _ = easy_loop.read_jobs(str(trace))
    return capacity if capacity is not None else max(procs)


@pytest.mark.parametrize("trace", traces())
def test_easy_replays_the_first_jobs_as_the_reference_loop_does(trace):
    capacity = machine(trace)
    _, arrival, procs, runtime, estimate = easy_loop.read_jobs(str(trace), JOBS, capacity)
    start = easy_loop.easy(arrival, procs, runtime, estimate, capacity)
    provider = {"scheduler": "easy", "admission": "accept_all"}
    result = GridMarket(scenario(trace, capacity, provider, {}), seed=1).run()
    frame = result.jobs.sort_values("job")
    assert len(frame) == len(start) == min(JOBS, len(frame))
    assert (np.rint(frame["start"].to_numpy() * 3600) == np.array(start)).all()


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("trace", traces())
def test_every_family_keeps_the_invariants_on_the_trace(trace, family):
    capacity = machine(trace)
    provider, deadlines = FAMILIES[family]
    model = GridMarket(scenario(trace, capacity, provider, deadlines), seed=1)
    watch(model)
    model.run()
    check_invariants(model)
    check_tables(model)
    kept = check_guarantees(model)
    records = model.service_providers["site"].records.values()
    assert len(records) >= JOBS // 2  # the jobs were offered (a trace may have fewer clean ones)
    if family in ("qops", "msb", "mrt", "dvqops"):
        assert kept > 0  # deadline jobs were admitted, and each kept its deadline
