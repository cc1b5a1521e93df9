"""The EASY replay of the first N SDSC-SP2 jobs as a script, for instruction counts (A/B between
commits on a noisy machine, where time is not a measure):

    valgrind --tool=callgrind --callgrind-out-file=F python tests/benchmarks/replay_script.py build
    valgrind --tool=callgrind --callgrind-out-file=F python tests/benchmarks/replay_script.py run

The ``run`` count minus the ``build`` count is the run (result included). A 60-job run first takes
the imports and first-call costs out of both, and a collection after the build pays the
collector's debt there: otherwise the run's first allocation pays for whichever collection the
process's history has made due (a full pass over every object, build and imports included, or a
young one), a difference of about 70 M instructions that has nothing to do with the run. Needs
the trace (``GRIDMARKET_TRACES``)."""

from __future__ import annotations

import gc
import sys

from market import GridMarket
from market.inputs.scenario import validate

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"


def scenario(jobs: int):
    workload = {"kind": "swf", "trace": SDSC, "estimates": "trace", "first_jobs": jobs}
    return validate(
        {
            "name": "sdsc-easy",
            "sample_interval": 24.0,
            "resource_providers": [{"name": "pool", "capacity": 128, "price": 0.0}],
            "service_providers": [{"name": "site", "scheduler": "easy", "admission": "accept_all"}],
            "clients": [{"name": "users", "workload": workload}],
        }
    )


if __name__ == "__main__":
    mode, jobs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 8000
    GridMarket(scenario(60), seed=1).run()  # warm-up
    model = GridMarket(scenario(jobs), seed=1)
    gc.collect()  # the build's collector debt paid in the build (see above)
    if mode == "run":
        print(model.run().summary.completed.iloc[0])
