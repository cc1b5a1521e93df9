"""What-if simulation: the revenue a window of past arrivals would have earned under an admission
rule (Islam et al., OSU-CISRC-3/07-TR17, §4.3.1).

A small Mesa-free event loop running the live market's code: each arrival is offered to the
admission rule with the queue and pool as they are, and the scheduler re-plans. Our choices: the
pool is empty at the window's start, or a :class:`Start` (the live market then: its waiting jobs
are planned and kept, not counted); jobs run for their estimates, so a plan holds until the
next arrival; the queue is kept in planned-start order. :func:`whatif_revenue` runs one;
:func:`whatif_revenues` runs several of the same jobs together and reads each revenue at several
ends in one pass, with the same numbers (the decision split into ``appraise`` and ``judge``,
called in the live run's order).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import NamedTuple

from agents.policies.base import Decision, Placement, PlanContext, Scheduler
from market.core.capacity import CapacityProfile
from market.core.jobs import Job
from market.core.rent import PriceSchedule

_START = attrgetter("start")
Decide = Callable[[Job, Sequence[Job], PlanContext], Decision]


class Start(NamedTuple):
    """The live market when a what-if begins: its free processors from ``now`` on (running jobs
    taken out), its waiting jobs and their admitted shapes."""

    now: float
    pool: CapacityProfile
    queue: tuple[Job, ...]
    shapes: Mapping[int, int]


def _start(pool: CapacityProfile, p: Placement) -> None:
    """Take a started job's processors at its planned start, or, if an end a float rounding
    apart from it was merged into a nearby breakpoint (market/core/capacity.py's EPS; jobs are
    started
    in start order, not in the plan's order), at the breakpoint just after (the same reservation
    as ``pool.reserve`` whenever that one succeeds: it used to raise CapacityError there)."""
    pool.reserve_earliest(p.processors, p.end - p.start, p.start)


def whatif_revenue(
    jobs: Sequence[Job],
    capacity: int,
    decide: Decide,
    scheduler: Scheduler,
    price: float = 0.0,
    start: Start | None = None,
) -> float:
    """The revenue ``jobs`` (in arrival order) earn on an empty pool of ``capacity`` (or from
    ``start``) under ``decide`` and ``scheduler`` (see the module docstring)."""
    market = Market.at(start, scheduler, price)
    queue, pool, shapes, pending = market.queue, market.pool, market.shapes, market.pending
    carried = market.carried  # the start's waiting jobs: not counted
    earned: list[float] = []
    for job in jobs:
        now = job.arrival
        if pending and pending[0].start <= now:  # start what the last plan starts before now
            started = {p.job.id for p in pending if p.start <= now}
            for p in pending:
                if p.job.id in started:
                    _start(pool, p)
                    if p.job.id not in carried:
                        earned.append(p.value)
            pending = [p for p in pending if p.job.id not in started]
            queue = [p.job for p in pending]  # in planned-start order (compression)
        if pool is None:
            pool = CapacityProfile(capacity, origin=now)
        pool.trim(now)
        ctx = PlanContext(now, pool, price, shapes=shapes)  # policies plan on copies
        decision = decide(job, queue, ctx)
        if not decision.accepted:
            continue  # the plan stands: with runtimes = estimates nothing moves
        queue.append(job)
        if decision.processors is not None:
            shapes[job.id] = decision.processors
        if decision.queue_order is not None:
            position = {job_id: i for i, job_id in enumerate(decision.queue_order)}
            queue.sort(key=lambda j: position[j.id])
        placements = scheduler.plan(ctx, queue).placements
        pending = sorted(placements, key=_START)  # stable: ties keep queue order
        queue = [p.job for p in pending]
    earned.extend(p.value for p in pending if p.job.id not in carried)
    return math.fsum(earned)


Appraise = Callable[[Job, Sequence[Job], PlanContext], object]
Judge = Callable[[object, float, PlanContext], Decision]
Planned = Callable[[object, Decision, PlanContext], list[Placement] | None]


class Market:
    """One simulated market of :func:`whatif_revenues`: the state and steps of
    :func:`whatif_revenue`'s loop but the revenue earned so far, which its simulations keep."""

    __slots__ = ("carried", "pending", "pool", "queue", "shapes")

    def __init__(self) -> None:
        self.queue: list[Job] = []
        self.pool: CapacityProfile | None = None
        self.shapes: dict[int, int] = {}
        self.pending: list[Placement] = []
        self.carried: frozenset[int] = frozenset()  # jobs whose values are not counted

    @classmethod
    def at(
        cls, start: Start | None, scheduler: Scheduler, price: PriceSchedule | float = 0.0
    ) -> Market:
        """An empty market (``start`` None), or one in ``start``: its waiting jobs planned by
        ``scheduler`` and carried."""
        market = cls()
        if start is None:
            return market
        market.pool = start.pool.copy()
        market.shapes = dict(start.shapes)
        ctx = PlanContext(start.now, market.pool, price, shapes=market.shapes)
        market.pending = sorted(scheduler.plan(ctx, list(start.queue)).placements, key=_START)
        market.queue = [p.job for p in market.pending]
        market.carried = frozenset(job.id for job in start.queue)
        return market

    def copy(self) -> Market:
        clone = Market.__new__(Market)
        clone.queue = self.queue.copy()
        clone.pool = self.pool.copy()
        clone.shapes = self.shapes.copy()
        clone.pending = self.pending.copy()
        clone.carried = self.carried
        return clone

    def advance(self, now: float, capacity: int) -> list[float]:
        """Start what the last plan starts by ``now`` (their values are returned: earned); the
        pool from ``now`` on."""
        pending = self.pending
        earned = []
        if pending and pending[0].start <= now:
            started = [p for p in pending if p.start <= now]  # by start: they come first
            pool = self.pool
            for p in started:
                _start(pool, p)
                if p.job.id not in self.carried:
                    earned.append(p.value)
            self.pending = pending = pending[len(started) :]
            self.queue = [p.job for p in pending]
        if self.pool is None:
            self.pool = CapacityProfile(capacity, origin=now)
        self.pool.trim(now)
        return earned

    def admit(
        self,
        job: Job,
        decision: Decision,
        scheduler: Scheduler,
        ctx: PlanContext,
        placements: list[Placement] | None = None,
    ) -> None:
        """Queue ``job`` as ``decision`` says and re-plan (``ctx`` is on this market's pool and
        shapes), or take ``placements`` as the scheduler's plan if the caller has it."""
        if decision.processors is not None:
            self.shapes[job.id] = decision.processors
        if placements is None:
            queue = self.queue
            queue.append(job)
            if decision.queue_order is not None:
                position = {job_id: i for i, job_id in enumerate(decision.queue_order)}
                queue.sort(key=lambda j: position[j.id])
            placements = scheduler.plan(ctx, queue).placements
        self.pending = sorted(placements, key=_START)
        self.queue = [p.job for p in self.pending]

    def state(self) -> tuple:
        """All that its future depends on: the plan of the waiting jobs (their shapes pinned
        or not) and the pool (the queue is the plan's jobs in order)."""
        shapes = self.shapes
        plan = tuple((p.job.id, p.processors, p.start, shapes.get(p.job.id)) for p in self.pending)
        return plan, tuple(self.pool.steps())


def whatif_revenues(
    jobs: Sequence[Job],
    capacity: int,
    appraise: Appraise,
    judge: Judge,
    scheduler: Scheduler,
    params: Sequence[Callable[[float], float]],
    ends: Sequence[float],
    price: float = 0.0,
    planned: Planned | None = None,
    start: Start | None = None,
) -> list[list[float]]:
    """:func:`whatif_revenue` for several simulations of ``jobs`` at once: simulation ``i``
    decides with ``judge(appraise(job, queue, ctx), params[i](arrival), ctx)``. Its revenue over
    the jobs that arrived before each of ``ends`` (increasing) is ``result[i][k]``, the same
    number :func:`whatif_revenue` returns on those jobs alone (from the same ``start``).

    Work saved, same results: simulations whose markets are the same share one market and one
    appraisal per job; they part when their parameters judge a job differently, and join again
    when their markets become the same (:meth:`Market.state`: the jobs one admitted and the
    other did not have ended), each keeping what it earned. Every end is read off one pass (the
    market after the jobs before an end is the whole simulation of those jobs). ``planned``
    (e.g. :meth:`VQoPS.plan_of`) gives the scheduler's plan after an admission when the appraisal
    already holds it (None: re-plan)."""
    price_schedule = PriceSchedule.constant(price)  # built once, not per context
    result = [[math.nan] * len(ends) for _ in params]
    earned: list[list[float]] = [[] for _ in params]
    groups = [(Market.at(start, scheduler, price_schedule), list(range(len(params))))]
    k = 0

    def record(k: int) -> None:
        for market, members in groups:
            planned = [p.value for p in market.pending if p.job.id not in market.carried]
            for i in members:
                result[i][k] = math.fsum([*earned[i], *planned])

    for job in jobs:
        now = job.arrival
        while k < len(ends) and now >= ends[k]:
            record(k)
            k += 1
        for market, members in groups:
            started = market.advance(now, capacity)
            if started:
                for i in members:
                    earned[i].extend(started)
        if len(groups) > 1:
            groups = _join(groups)
        parted: list[tuple[Market, list[int]]] = []
        for market, members in groups:
            ctx = PlanContext(now, market.pool, price_schedule, shapes=market.shapes)
            appraisal = appraise(job, market.queue, ctx)
            decisions: dict[float, Decision] = {}
            outcomes: dict[object, tuple[Decision, list[int]]] = {}  # same outcome, same market
            for i in members:
                param = params[i](now)
                decision = decisions.get(param)
                if decision is None:
                    decision = decisions[param] = judge(appraisal, param, ctx)
                key = (decision.processors, decision.queue_order) if decision.accepted else None
                if key in outcomes:
                    outcomes[key][1].append(i)
                else:
                    outcomes[key] = (decision, [i])
            rejected = outcomes.pop(None, None)
            if rejected is not None:
                parted.append((market, rejected[1]))
            last = len(outcomes) - 1
            for n, (decision, admitted) in enumerate(outcomes.values()):
                if rejected is None and n == last:  # the market itself, untouched so far
                    branch, branch_ctx = market, ctx
                else:
                    branch = market.copy()
                    branch_ctx = PlanContext(now, branch.pool, price_schedule, shapes=branch.shapes)
                plan = None if planned is None else planned(appraisal, decision, branch_ctx)
                branch.admit(job, decision, scheduler, branch_ctx, plan)
                parted.append((branch, admitted))
        groups = parted
    while k < len(ends):
        record(k)
        k += 1
    return result


def _join(groups: list[tuple[Market, list[int]]]) -> list[tuple[Market, list[int]]]:
    """The groups whose markets are in the same :meth:`Market.state` as one. Work saved: the
    states are built only if two markets have as many waiting jobs and the same last
    breakpoint (:attr:`CapacityProfile.settled`), as markets in one state do."""
    if len({(len(market.pending), market.pool.settled) for market, _ in groups}) == len(groups):
        return groups
    joined: dict[tuple, tuple[Market, list[int]]] = {}
    for market, members in groups:
        state = market.state()
        if state in joined:
            joined[state][1].extend(members)
        else:
            joined[state] = (market, members)
    return list(joined.values()) if len(joined) < len(groups) else groups
