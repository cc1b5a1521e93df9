"""Building a scenario's batch sites and VARQ users (``batch_sites:``,
:mod:`market.inputs.site_spec`)
inside a market, and their rows of the run summary.

Each site draws from its own child stream of the model's generator, spawned after every other
stream so that adding a site leaves the clients' job streams unchanged. Table 4's split (each
trace job a VARQ job with probability f, §4.4) is drawn from it first, then each random user's
stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from agents.batch_site import BatchSiteAgent, SiteError
from agents.site_broker import SiteBrokerAgent
from agents.varq_user import RandomVarqUser, TraceVarqUser, VarqUser
from market.core.qbets import QBETS, JobClasses
from market.core.qbets_cluster import ClusteredQBETS

if TYPE_CHECKING:  # (the scenario's inputs: imported by the model's callers, not the model)
    from market.inputs.site_spec import BatchSiteSpec
    from market.sim.model import GridMarket


def build_batch_sites(
    model: GridMarket, specs: list[BatchSiteSpec]
) -> tuple[dict[str, BatchSiteAgent], list[VarqUser]]:
    """The sites and their VARQ users, scheduled to start."""
    from market.inputs.workloads.site_trace import load_site_trace  # (only with sites)

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
    spawn, :class:`market.sim.model.GridMarket`), made again: the same jobs for a broker."""
    root = model.rng.bit_generator.seed_seq
    return np.random.default_rng(
        np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, index))
    )
