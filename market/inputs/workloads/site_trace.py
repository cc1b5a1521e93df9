"""A batch site's background workload: a trace's jobs as the site sees them (VARQ TR 2007-09
§4.4: "a workload trace" replayed at the site), in hours from the first selected submission.

Unlike :mod:`market.inputs.workloads.trace`, the requested wall time is kept as the user gave it,
even
when it is shorter than the runtime: the site kills such a job at its request (or not, a site
parameter). A missing request is taken to be the runtime (our choice: the job then runs exactly
its request). Records are selected by :func:`market.inputs.swf.select_records` on the machine size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from market.inputs.limits import check_machine
from market.inputs.swf import read_swf, require_jobs
from market.inputs.traces import resolve_trace

HOURS = 1.0 / 3600.0


@dataclass(frozen=True, slots=True)
class SiteTrace:
    """Background jobs in submission order: ``submit``, ``runtime``, ``request`` (hours) and
    ``nodes``; ``capacity`` is the machine size."""

    submit: np.ndarray
    runtime: np.ndarray
    request: np.ndarray
    nodes: np.ndarray
    capacity: int

    def __len__(self) -> int:
        return len(self.submit)

    def subset(self, mask: np.ndarray) -> SiteTrace:
        """The jobs where ``mask`` is true, in the same order."""
        return SiteTrace(
            self.submit[mask], self.runtime[mask], self.request[mask], self.nodes[mask],
            self.capacity,
        )  # fmt: skip


def load_site_trace(
    trace: str,
    processors: int | None = None,
    first_jobs: int | None = None,
    window: tuple[float, float] | None = None,
) -> SiteTrace:
    """Read and select ``trace`` for a site of ``processors`` nodes (default: MaxProcs)."""
    swf = read_swf(resolve_trace(trace))
    capacity = processors or swf.max_procs
    jobs, report = swf.select(capacity)
    require_jobs(trace, report)
    if capacity is None:
        capacity = int(jobs["processors"].max()) if len(jobs) else 1
    check_machine(capacity, f"trace {trace}")
    submit = jobs["submit"].to_numpy(float)
    if len(submit):
        submit = (submit - submit[0]) * HOURS
    runtime = jobs["runtime"].to_numpy(float) * HOURS
    request = jobs["req_time"].to_numpy(float) * HOURS
    request = np.where(np.isnan(request) | (request <= 0), runtime, request)
    nodes = jobs["processors"].to_numpy(np.int64)
    keep = slice(None)
    if first_jobs is not None:
        keep = slice(0, first_jobs)
    elif window is not None:
        lo, hi = np.searchsorted(submit, window[0]), np.searchsorted(submit, window[1])
        keep = slice(lo, hi)
    submit = submit[keep]
    if window is not None and len(submit):
        submit = submit - submit[0]
    return SiteTrace(submit, runtime[keep], request[keep], nodes[keep], int(capacity))
