"""DVQoPS's incremental what-ifs (:func:`agents.policies.whatif.whatif_revenues`) make the same
decisions as the reference path that runs each what-if on its own (``incremental: false``): the
per-job table (decision, shape, start, end, OC-Factor, rollback window) of the VQoPS TR's
setting (§3: 10X, 80 % urgent, exact estimates) on the first jobs of SDSC-SP2 and CTC-SP2, at
high and original load, through the market model. Skips where a trace is absent."""

from __future__ import annotations

import pytest

from market import GridMarket
from market.inputs.scenario import load
from market.inputs.traces import TraceNotFoundError, resolve_trace
from tests.conftest import ROOT

COLUMNS = ["job", "accepted", "reason", "processors", "start", "end", "paid"]
COLUMNS += ["oc_factor", "rollback_window"]
TRACES = {"sdsc": "SDSC-SP2-1998-4.2-cln.swf.gz", "ctc": "CTC-SP2-1996-3.1-cln.swf.gz"}
# (scenario, load factor, first jobs): enough for a window change or an OC-Factor change
CASES = [("sdsc", 1.4, 700), ("sdsc", 1.0, 700), ("ctc", 1.4, 400), ("ctc", 1.0, 700)]


@pytest.mark.parametrize(("name", "load_factor", "jobs"), CASES)
def test_incremental_whatifs_decide_as_the_reference(name, load_factor, jobs):
    trace = TRACES[name]
    try:
        resolve_trace(trace)
    except TraceNotFoundError as exc:
        pytest.skip(str(exc))
    base = dict(load(ROOT / "scenarios" / "vqops" / f"{name}.yaml").expand())["DVQoPS"]
    sets = {"clients.0.workload.first_jobs": jobs, "clients.0.workload.load_factor": load_factor}
    tables = []
    for incremental in (True, False):
        admission = {"name": "dvqops", "incremental": incremental}
        scenario = base.with_overrides({**sets, "service_providers.0.admission": admission})
        tables.append(GridMarket(scenario, seed=1).run().jobs[COLUMNS])
    fast, reference = tables
    assert fast.rollback_window.nunique() > 1 or fast.oc_factor.nunique() > 1  # it adapted
    assert fast.equals(reference)
