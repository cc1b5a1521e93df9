"""A batch site's rows of the run's site table (``RunResult.sites``): the site's own figures
(utilization, mean wait, QBETS's accuracy on its waits, VARQ TR 2007-09 §4) and one row per VARQ
user or site broker submitting there, with its own figures beside the site's. The names, headers
and axis titles of these figures are registered in ``market/results/metrics/sites.py``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.batch_site import BatchSiteAgent


def site_rows(site: BatchSiteAgent, now: float) -> list[dict[str, Any]]:
    """One row per VARQ user or broker of ``site`` (with the site's figures at ``now``), or one
    for the site if it has none."""
    base = _site_figures(site, now)
    return [
        {**base, **(user.summary() if user is not None else {"provider": site.name})}
        for user in list(site.users) or [None]
    ]


def _site_figures(site: BatchSiteAgent, now: float) -> dict[str, Any]:
    jobs = list(site.jobs.values())
    started = [j for j in jobs if j.start is not None]
    first = min((j.submit for j in jobs), default=0.0)
    last = max((j.end for j in jobs if j.end is not None), default=first)
    held = math.fsum(j.nodes * ((j.end if j.end is not None else now) - j.start)
                     for j in started)  # fmt: skip
    span = site.capacity * (last - first)
    waits = [j.start - j.submit for j in started]
    bounded = [(j.start - j.submit, j.bound) for j in started if math.isfinite(j.bound)]
    ratios = sorted(b / w for w, b in bounded if w >= 60 / 3600)  # as `trace qbets`
    return {
        "site": site.name,
        "scheduler": "easy",
        "admission": "best-effort",
        "site_jobs": len(jobs),
        "site_killed": site.killed,
        "utilization": 100.0 * held / span if span > 0 else math.nan,
        "site_mean_wait_h": math.fsum(waits) / len(waits) if waits else math.nan,
        "qbets_changepoints": site.predictor.changepoints,
        # QBETS on the site's own waits: each bound predicted at the job's submission
        "qbets_jobs": len(bounded),
        "qbets_correct_pct": (
            100.0 * sum(w <= b for w, b in bounded) / len(bounded) if bounded else math.nan
        ),
        "qbets_median_tightness": ratios[len(ratios) // 2] if ratios else math.nan,
    }
