"""What every policy works with: the planning context, plans, decisions, and the two policy kinds.

Policies are pure (DESIGN principle 1): they take plain inputs and return a plan or a decision,
never touching the Mesa model, so tests call them directly.

- A :class:`Scheduler` orders and shapes the queued jobs into a :class:`Plan` on the capacity the
  service provider expects (Popovici & Wilkes SC'05 §3.3: the "preferred schedule"), and says how
  rewarding a plan is (§3.4: the reward metric differs per scheduler).
- An :class:`Admission` policy decides whether to accept a newly offered job (§3.4), returning a
  :class:`Decision` with its reason and expected profit.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

from market.core.capacity import CapacityProfile
from market.core.forecast import Forecast
from market.core.jobs import Job
from market.core.rent import PriceSchedule


@dataclass(slots=True)
class PlanContext:
    """What a service provider knows when it plans, at time ``now``.

    Attributes:
        now: the current time (hours).
        capacity: processors it plans on from ``now`` on, leases already granted taken out (the
            forecast's mean, or the capacity available with probability >= 1 - risk).
        price: rent per processor-hour (a number or a :class:`~market.core.rent.PriceSchedule`).
        forecast: the resource provider's forecast with its uncertainty, if any.
        risk: the acceptable risk that a plan cannot be carried out (None: uncertainty-oblivious).
        shapes: the shape each queued job was admitted on, by job id: a commitment every later
            plan keeps (admission chose the plan with that shape, §3.4).
    """

    now: float
    capacity: CapacityProfile
    price: PriceSchedule | float
    forecast: Forecast | None = None
    risk: float | None = None
    shapes: Mapping[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.price, PriceSchedule):
            self.price = PriceSchedule.constant(self.price)

    def pins(self, pinned: Mapping[int, int] | None = None) -> Mapping[int, int]:
        """The admitted shapes, with ``pinned`` (a plan's own forced shapes) on top."""
        if not pinned:
            return self.shapes
        return {**self.shapes, **pinned} if self.shapes else pinned

    def rent(self, processors: int, start: float, end: float) -> float:
        """Rent for ``processors`` held over ``[start, end)``."""
        return self.price.cost(processors, start, end)

    def plan_probability(self, plan: Plan) -> float:
        """Probability that ``plan`` can be carried out on the forecast (1 without one)."""
        if self.forecast is None:
            return 1.0
        return self.forecast.plan_probability(plan.placements)


class Placement(NamedTuple):
    """One job in a plan: its shape, predicted start and end, value and rent.

    Hot planners build them with :func:`placement` (the same tuple, without the keyword
    handling of the generated constructor)."""

    job: Job
    processors: int
    start: float
    end: float
    value: float  # the job's utility at its predicted end
    rent: float  # rent for its processors over [start, end)

    @property
    def profit(self) -> float:
        """Value minus rent."""
        return self.value - self.rent


def placement(job: Job, processors: int, start: float, end: float, price: PriceSchedule):
    """The :class:`Placement` of ``job`` on ``processors`` over ``[start, end)``: valued by its
    utility at ``end``, rented at ``price``."""
    rent = price.cost(processors, start, end)
    return _tuple_new(Placement, (job, processors, start, end, job.utility(end), rent))


_tuple_new = tuple.__new__


@dataclass(slots=True)
class Plan:
    """A preferred schedule: where every queued job will run, as far as the planner knows.

    ``unplaced`` holds jobs that cannot run at all on the expected capacity (a shape wider than
    the pool); they stay queued but earn nothing in this plan.
    """

    now: float
    placements: list[Placement]
    unplaced: list[Job] = field(default_factory=list)
    #: What the scheduler that made the plan needs to extend it (:meth:`Scheduler.extend`).
    resume: object = field(default=None, compare=False, repr=False)

    @property
    def profit(self) -> float:
        """Predicted profit of every placed job."""
        return math.fsum(p.profit for p in self.placements)

    @property
    def value(self) -> float:
        """Predicted revenue of every placed job."""
        return math.fsum(p.value for p in self.placements)

    @property
    def end(self) -> float:
        """When the last placed job is predicted to end (``now`` for an empty plan)."""
        return max((p.end for p in self.placements), default=self.now)

    def placement_of(self, job_id: int) -> Placement | None:
        """The placement of job ``job_id``, or None if it is not placed."""
        for p in self.placements:
            if p.job.id == job_id:
                return p
        return None

    def due(self, now: float, tolerance: float = 1e-9) -> list[Placement]:
        """Placements that should start at ``now`` (in plan order)."""
        by = now + tolerance
        return [p for p in self.placements if p.start <= by]

    def next_start(self, now: float, tolerance: float = 1e-9) -> float | None:
        """The earliest planned start after ``now``, if any."""
        by, first = now + tolerance, None
        for p in self.placements:  # a loop: plans are short and this runs after every plan
            start = p.start
            if start > by and (first is None or start < first):
                first = start
        return first


@dataclass(slots=True)
class Decision:
    """An admission decision and why it was made. Read-only by convention: not a frozen
    dataclass because building one costs five times as much, and a trace replay builds two
    for every job offered.

    Attributes:
        accepted: whether the job is admitted.
        reason: a short code (e.g. ``profitable``, ``unprofitable``, ``displaces``, ``no-fit``).
        detail: one human-readable sentence with the numbers behind the reason.
        processors: the shape in the best plan with the job (None if it cannot be placed).
        start, end: its predicted start and completion in that plan.
        expected_value: its utility at the predicted completion (what the client would pay).
        expected_profit: that value minus the rent for its processors.
        gain: how much the plan's reward rises by admitting it (the scheduler's own metric).
        queue_order: for policies that keep their queue in an order of their own (QoPS inserts
            a job at a chosen position), the ids of the queued jobs, new one included, in the
            order the service provider must keep; None keeps arrival order.
        params: the adaptive parameters the policy decided with, by name (DVQoPS: its current
            ``oc_factor`` and ``rollback_window``), so a run records every change; None if none.
        displaced: the predicted profit the other queued jobs lose in the chosen plan with the
            job (profit of the plan without it, minus the plan with it less the job's own
            profit): the opportunity cost of admitting it, which ``opportunity`` pricing charges
            (:mod:`agents.policies.pricing`); None when the policy does not compute it.
        schedule: ``(job, processors, start, end)`` of every queued job in ``queue_order``,
            when the policy placed them just as conservative backfilling plans that order on the
            same context (each at its earliest start on what the jobs before it leave; a start
            of ``inf``: never placed), so the service provider follows it without planning
            again; None when the policy does not vouch for that.
    """

    accepted: bool
    reason: str
    detail: str
    processors: int | None = None
    start: float | None = None
    end: float | None = None
    expected_value: float | None = None
    expected_profit: float | None = None
    gain: float | None = None
    queue_order: tuple[int, ...] | None = None
    params: Mapping[str, float] | None = None
    displaced: float | None = None
    schedule: tuple[tuple[Job, int, float, float], ...] | None = None


class Scheduler(ABC):
    """Orders and shapes queued jobs into a plan (Popovici & Wilkes SC'05 §3.3).

    Subclasses are registered by name (see :mod:`agents.policies.registry`); their constructor
    arguments are the policy's parameters, settable from a scenario file.
    """

    name: ClassVar[str] = ""
    #: Keep the queue in planned-start order after every plan (conservative backfilling's
    #: compression: when jobs end early, later reservations move up without overtaking).
    compresses: ClassVar[bool] = False
    #: Its plan places the queue's jobs in queue order, each on its admitted shape (else its
    #: widest) at its earliest start on the profile the ones before it leave (conservative
    #: backfilling): a schedule built that way elsewhere (e.g. by a deadline check) is its plan.
    plans_in_order: ClassVar[bool] = False

    @abstractmethod
    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        """Plan ``queue`` on ``ctx.capacity``. ``pinned`` maps job ids to a forced shape, on top
        of the shapes jobs were admitted on (``ctx.shapes``; see :meth:`PlanContext.pins`)."""

    def extend(
        self, plan: Plan, ctx: PlanContext, job: Job, pinned: Mapping[int, int] | None = None
    ) -> Plan | None:
        """The plan of ``plan``'s queue with ``job`` appended, if the scheduler can say without
        planning again, else None. The caller vouches that ``plan`` is this scheduler's plan of
        that queue on ``ctx`` (a plan made earlier holds at ``ctx.now`` when nothing it rests
        on changed since: :class:`agents.planner.Planner` checks when)."""
        return None

    def shapes(self, job: Job) -> tuple[int, ...]:
        """The shapes this scheduler may run ``job`` on, which admission tries (all of them
        unless the scheduler's rule fixes one)."""
        return job.shapes

    def reward(self, plan: Plan, ctx: PlanContext) -> float:
        """How rewarding ``plan`` is, for admission (§3.4). Profit unless a scheduler says so."""
        return plan.profit


class Admission(ABC):
    """Decides whether to admit a newly offered job (Popovici & Wilkes SC'05 §3.4).

    ``scheduler`` names the one scheduler whose plan the policy's promises are about (the QoPS
    family's deadline guarantee holds for the schedule it admits, which is the ``conservative``
    scheduler's plan: QoPS TR §3, "reservations" for every job); None: any scheduler."""

    name: ClassVar[str] = ""
    scheduler: ClassVar[str | None] = None

    @abstractmethod
    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        """Admit ``job`` or not, given the accepted-but-waiting ``queue`` and the context."""

    def parameters(self) -> dict[str, float]:
        """Its adaptive parameters now, by name, as a run's time series samples them (VQoPS:
        ``oc_factor``; DVQoPS: also ``rollback_window``); none by default."""
        return {}
