"""Building a scenario's batch sites and VARQ users (``batch_sites:``, :mod:`market.site_spec`)
inside a market, and their rows of the run summary.

Each site draws from its own child stream of the model's generator, spawned after every other
stream so that adding a site leaves the clients' job streams unchanged. Table 4's split (each
trace job a VARQ job with probability f, §4.4) is drawn from it first, then each random user's
stream.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.batch_site import BatchSiteAgent, SiteError
from agents.site_broker import SiteBrokerAgent
from agents.varq_user import RandomVarqUser, TraceVarqUser, VarqUser
from market.qbets import QBETS, JobClasses
from market.qbets_cluster import ClusteredQBETS
from market.site_spec import BatchSiteSpec
from market.sweep_spec import SUMMARY_METRICS
from market.workloads.site_trace import load_site_trace

if TYPE_CHECKING:
    from market.model import GridMarket


def build_batch_sites(
    model: GridMarket, specs: list[BatchSiteSpec]
) -> tuple[dict[str, BatchSiteAgent], list[VarqUser]]:
    """The sites and their VARQ users, scheduled to start."""
    sites: dict[str, BatchSiteAgent] = {}
    users: list[VarqUser] = []
    for i, (spec, stream) in enumerate(zip(specs, model.rng.spawn(len(specs)), strict=True)):
        trace = load_site_trace(spec.trace, spec.processors, spec.first_jobs, spec.window)
        q = spec.qbets
        if q.cluster:
            predictor = ClusteredQBETS(
                q.quantile, q.confidence, k=q.cluster, alpha=q.alpha, min_run=q.min_run
            )
        else:
            classes = JobClasses(tuple(q.node_breaks), tuple(q.time_breaks))
            predictor = QBETS(q.quantile, q.confidence, classes, q.alpha, q.min_run)
        chosen = stream.random(len(trace)) < (spec.varq.fraction if spec.varq else 0.0)
        site = BatchSiteAgent(model, spec.name, trace.subset(~chosen), predictor,
                              spec.kill_at_walltime)  # fmt: skip
        sites[spec.name] = site
        if spec.varq is not None:
            v = spec.varq
            users.append(
                TraceVarqUser(
                    model,
                    f"{spec.name}/varq",
                    site,
                    trace.subset(chosen),
                    v.probability,
                    v.deadline_interval,
                    v.deadline_offset,
                    v.refused,
                    v.step_seconds,
                    v.replan_interval,
                )
            )
        for j, (user, rng) in enumerate(
            zip(spec.random_users, stream.spawn(len(spec.random_users)), strict=True)
        ):
            if max(user.nodes) > site.capacity:
                raise SiteError(
                    f"batch_sites.{i}.random_users.{j}.nodes: {max(user.nodes)} nodes is wider "
                    f"than {spec.name} ({site.capacity})"
                )
            users.append(
                RandomVarqUser(
                    model,
                    f"{spec.name}/{user.name}",
                    site,
                    rng,
                    user.probability,
                    user.lead,
                    tuple(user.nodes),
                    tuple(user.walltimes_s),
                    user.retry_seconds,
                    user.after_deadline,
                    user.start,
                    user.step_seconds,
                    user.replan_interval,
                )
            )
        for j, broker in enumerate(spec.brokers):
            clients = len(model.spec.clients)
            if broker.same_jobs_as is not None and broker.same_jobs_as >= clients:
                raise SiteError(
                    f"batch_sites.{i}.brokers.{j}.same_jobs_as: no client "
                    f"{broker.same_jobs_as} (have {clients})"
                )
            jobs_stream = (
                client_stream(model, broker.same_jobs_as)
                if broker.same_jobs_as is not None
                else stream.spawn(1)[0]
            )
            jobs = broker.workload.generate(jobs_stream, first_id=0, client=broker.name)
            if jobs and max(max(job.shapes) for job in jobs) > site.capacity:
                raise SiteError(f"batch_sites.{i}.brokers.{j}.workload: a job is wider than "
                                f"{spec.name} ({site.capacity})")  # fmt: skip
            users.append(
                SiteBrokerAgent(
                    model,
                    f"{spec.name}/{broker.name}",
                    site,
                    jobs,
                    broker.probability,
                    broker.price,
                )
            )
    return sites, users


def client_stream(model: GridMarket, index: int) -> np.random.Generator:
    """The generator client ``index`` of the scenario draws its jobs from (the model's first
    spawn, :class:`market.model.GridMarket`), made again: the same jobs for a broker."""
    root = model.rng.bit_generator.seed_seq
    return np.random.default_rng(
        np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, index))
    )


def site_rows(model: GridMarket) -> list[dict[str, Any]]:
    """One summary row per VARQ user (with its site's figures), and one per site without."""
    rows = []
    for site in getattr(model, "batch_sites", {}).values():
        mine = list(site.users)
        base = _site_figures(model, site)
        for user in mine or [None]:
            row = {**base, **(user.summary() if user is not None else {"provider": site.name})}
            for metric in SUMMARY_METRICS:  # a service provider's metrics: none here
                row.setdefault(metric, math.nan)
            rows.append(row)
    return rows


def _site_figures(model: GridMarket, site: BatchSiteAgent) -> dict[str, Any]:
    jobs = list(site.jobs.values())
    started = [j for j in jobs if j.start is not None]
    first = min((j.submit for j in jobs), default=0.0)
    last = max((j.end for j in jobs if j.end is not None), default=first)
    held = math.fsum(j.nodes * ((j.end if j.end is not None else model.time) - j.start)
                     for j in started)  # fmt: skip
    span = site.capacity * (last - first)
    waits = [j.start - j.submit for j in started]
    bounded = [(j.start - j.submit, j.bound) for j in started if math.isfinite(j.bound)]
    ratios = sorted(b / w for w, b in bounded if w >= 60 / 3600)  # as `trace qbets`
    return {
        "site": site.name,
        "scheduler": "easy",
        "admission": "best-effort",
        # the run table's columns (a site has no admission, prices or shapes)
        "accepted_pct": math.nan,
        "mean_processors": math.nan,
        "revenue": math.nan,
        "rent": math.nan,
        "profit": math.nan,
        "profit_rate": math.nan,
        "realised_pct": math.nan,
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
