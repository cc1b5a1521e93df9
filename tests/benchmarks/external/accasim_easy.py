"""AccaSim (installed from the package index into a venv of its own, never the project's) on an
SWF trace: EASY backfilling with first-fit allocation on a machine of one-core nodes, the
configuration of the issue's comparison. Its code is not in this repository.

    python -m venv /work/ext/venv && /work/ext/venv/bin/pip install accasim
    /work/ext/venv/bin/python tests/benchmarks/external/accasim_easy.py TRACE.swf[.gz] NODES

The trace is decompressed into a temporary folder first (AccaSim reads plain text), outside the
time measured by the benchmark driver only in that the driver measures the whole process: the
decompression is counted, as gridmarket's own reading is.
"""

import collections
import collections.abc
import gzip
import json
import os
import shutil
import sys
import tempfile

# AccaSim 1.1.3 imports ``collections.Mapping``, gone since Python 3.10: the alias it expects.
collections.Mapping = collections.abc.Mapping

from accasim.base.allocator_class import FirstFit  # noqa: E402
from accasim.base.scheduler_class import EASYBackfilling  # noqa: E402
from accasim.base.simulator_class import Simulator  # noqa: E402


def main(trace: str, nodes: int) -> int:
    folder = tempfile.mkdtemp(prefix="accasim-")
    try:
        workload = os.path.join(folder, "trace.swf")
        opener = gzip.open if trace.endswith(".gz") else open
        with opener(trace, "rb") as source, open(workload, "wb") as target:
            shutil.copyfileobj(source, target)
        config = os.path.join(folder, "system.config")
        with open(config, "w") as out:
            json.dump(
                {
                    "groups": {"g0": {"core": 1}},
                    "resources": {"g0": nodes},
                    "equivalence": {"processor": {"core": 1}},
                    "start_time": 0,
                },
                out,
            )
        simulator = Simulator(
            workload,
            config,
            EASYBackfilling(FirstFit()),
            RESULTS_FOLDER_PATH=os.path.join(folder, "results"),
            scheduling_output=False,
            statistics_output=False,
            show_statistics=False,
        )
        simulator.start_simulation()
        print(f"dispatched {simulator.dispatched_jobs} rejected {simulator.rejected_jobs}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
