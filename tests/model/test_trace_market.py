"""Traces through the market model: SWF jobs, a fixed pool, QoPS admission with conservative
backfilling (Islam et al., QoPS TR §3-4). With user estimates longer than runtimes jobs end
early; every admitted deadline must still hold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from market import GridMarket
from market.inputs.scenario import validate
from market.inputs.swf import FIELDS, write_swf


def random_trace(path, seed, jobs=60, processors=16):
    rng = np.random.default_rng(seed)
    records = pd.DataFrame(-1.0, index=range(jobs), columns=list(FIELDS))
    records["job"] = np.arange(1, jobs + 1)
    records["submit"] = np.cumsum(rng.exponential(600.0, jobs)).round()
    records["runtime"] = rng.integers(60, 7200, jobs)
    records["procs"] = rng.integers(1, processors + 1, jobs)
    records["req_procs"] = records["procs"]
    records["req_time"] = (records["runtime"] * rng.uniform(1.0, 4.0, jobs)).round()
    records["status"] = 1
    write_swf(path, records, {"MaxProcs": processors})
    return path


def scenario(trace, admission, processors=16):
    return validate(
        {
            "name": "trace-qops",
            "resource_providers": [{"name": "pool", "capacity": processors, "price": 0.0}],
            "service_providers": [
                {"name": "site", "scheduler": "conservative", "admission": admission}
            ],
            "clients": [
                {
                    "name": "users",
                    "workload": {
                        "kind": "swf",
                        "trace": str(trace),
                        "estimates": "trace",
                        "deadlines": "factor",
                        "deadline_factor": 1.5,
                    },
                }
            ],
        }
    )


@pytest.mark.parametrize("admission", ["qops", "msb", "mrt"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_admitted_jobs_meet_their_deadlines_when_jobs_end_early(tmp_path, admission, seed):
    trace = random_trace(tmp_path / "t.swf", seed)
    model = GridMarket(scenario(trace, admission), seed=seed)
    result = model.run()
    jobs = result.jobs
    admitted = jobs[jobs.committed]
    assert result.finished and len(admitted) > 0
    deadlines = {r.job.id: r.job.deadline for r in model.service_providers["site"].records.values()}
    assert list(jobs.deadline) == [deadlines[j] for j in jobs.job]  # the table's, each job's own
    late = [
        j for j, end in zip(admitted.job, admitted.end, strict=True) if end > deadlines[j] + 1e-9
    ]
    assert late == [], f"{admission} admitted jobs that missed their deadlines: {late}"
    assert admitted.reason.eq("meets-deadlines").all()
    row = result.summary.iloc[0]
    assert row.deadlines_missed == 0
    assert row.unadmitted_pct == pytest.approx(100.0 * (1 - len(admitted) / len(jobs)))
    rejected_work = jobs[~jobs.committed].work.sum()
    assert row.unadmitted_work_pct == pytest.approx(100.0 * rejected_work / jobs.work.sum())
    assert jobs[~jobs.committed].reason.isin(["deadline-miss", "no-fit"]).all()
