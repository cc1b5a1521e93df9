"""The VARQ family: batch sites, their VARQ users and site brokers (Nurmi, Wolski & Brevik,
VARQ TR 2007-09 §4; QBETS §2.3), on rows of their own (``RunResult.sites``).

The figures are computed by the agents that hold them, as their result rows
(:mod:`agents.site_summary`, ``VarqUser.summary``, ``SiteBroker.summary``); they are registered
here for their names, types, headers and axis titles. A site's row has its own figures
(utilization, waits, QBETS's accuracy on its waits, the bound predicted at each job's
submission); a VARQ user's row has Table 4's and Table 3's figures with its site's; a site
broker's row has the provider figures of :mod:`market.results.metrics.profit` and its promises.
"""

from __future__ import annotations

from market.results.metrics.registry import METRICS, Metric

SITES = ("sites",)


def _site(name: str, header: str, label: str, kind: type = float, unit: str = "",
          decimals: int = 1, priority: int = 2) -> Metric:  # fmt: skip
    return Metric(name, "varq", header, label, kind, unit, decimals, SITES, priority=priority)


METRICS.register(
    # a VARQ user (Table 4, Table 3)
    _site("required_probability", "p", "required success probability", float, "", 2, 1),
    _site("varq_requests", "requests", "reservations asked", int, "jobs", 0, 2),
    _site("varq_refused", "refused", "reservations refused", int, "jobs", 0, 3),
    _site("varq_jobs", "reserved", "reservations made", int, "jobs", 0, 1),
    _site("varq_predicted_pct", "predicted %", "mean predicted success probability (%)",
          float, "%", 1, 1),
    _site("varq_success_pct", "success %", "running at the deadline (%)", float, "%", 1, 1),
    _site("overhead_ratio", "overhead", "node-hours used over needed", float, "", 2, 1),
    _site("varq_needed_node_hours", "needed nh", "node-hours a plain submission needs",
          float, "node-h", 0, 3),
    _site("varq_used_node_hours", "used nh", "node-hours the reservations used", float,
          "node-h", 0, 3),
    _site("varq_worst_overhead_node_hours", "worst nh", "worst-case overhead (node-hours)",
          float, "node-h", 0, 3),
    _site("varq_killed", "VARQ killed", "VARQ jobs killed at their wall time", int, "jobs", 0, 3),
    # a site broker (a provider on a batch site, quoting QBETS bounds)
    _site("promised_probability_pct", "promised %", "mean promised probability (%)", float,
          "%", 1, 1),
    _site("promises_kept_pct", "kept %", "promises kept (%)", float, "%", 1, 1),
    # the site itself
    _site("site_jobs", "site jobs", "jobs submitted to the site", int, "jobs", 0, 2),
    _site("site_killed", "killed", "jobs killed at their wall time", int, "jobs", 0, 3),
    _site("site_mean_wait_h", "wait h", "mean queue wait (h)", float, "h", 2, 1),
    _site("qbets_changepoints", "changes", "QBETS change points", int, "", 0, 3),
    _site("qbets_jobs", "bounded", "jobs with a QBETS bound", int, "jobs", 0, 2),
    _site("qbets_correct_pct", "correct %", "QBETS bounds correct (% of jobs)", float, "%", 1, 1),
    _site("qbets_median_tightness", "tightness", "median QBETS tightness (bound / wait)", float,
          "", 1, 1),
)  # fmt: skip
