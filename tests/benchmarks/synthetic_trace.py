"""A large synthetic SWF trace for the memory benchmark, the size of CEA-Curie from the Parallel
Workloads Archive (about 300,000 jobs on 93,312 processors), which is not shipped.

Seeded and plain Python (the same file on every machine): exponential inter-arrival times,
power-of-two widths (log-uniform, 1 to 8,192 processors), log-normal run times capped at two
days, user estimates 1 to 4 times the run time; offered load about 0.8.

    python tests/benchmarks/synthetic_trace.py OUT.swf.gz [JOBS]
"""

from __future__ import annotations

import gzip
import math
import random
import sys

PROCESSORS = 93_312
JOBS = 300_000


def write(path: str, jobs: int = JOBS, processors: int = PROCESSORS, seed: int = 1) -> str:
    """Write the trace to ``path`` (gzip if it ends in .gz) and return the path."""
    rng = random.Random(seed)
    opener = gzip.open if path.endswith(".gz") else open
    submit = 0.0
    with opener(path, "wt", encoding="ascii") as out:
        out.write(f"; Version: 2.2\n; MaxJobs: {jobs}\n; MaxProcs: {processors}\n")
        out.write("; Note: synthetic (tests/benchmarks/synthetic_trace.py)\n")
        for job in range(1, jobs + 1):
            submit += rng.expovariate(1 / 100.0)
            width = 2 ** rng.randrange(14)
            runtime = max(1, min(round(math.exp(rng.gauss(7.5, 1.6))), 172_800))
            request = round(runtime * rng.uniform(1.0, 4.0))
            fields = (job, round(submit), -1, runtime, width, -1, -1, width, request, -1, 1)
            out.write(" ".join(map(str, fields)) + " -1 -1 -1 -1 -1 -1 -1\n")
    return path


if __name__ == "__main__":
    write(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else JOBS)
