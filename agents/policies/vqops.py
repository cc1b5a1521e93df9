"""VQoPS, value-aware QoPS (Islam, Balaji, Sabin & Sadayappan, OSU-CISRC-3/07-TR17, §4.2.1,
Figure 3).

The rule: QoPS (:mod:`.qops`) supplies every feasible schedule of the waiting jobs plus the new
one, one per insertion point; each is valued at the revenue its jobs would earn at their planned
completions (their price functions, :mod:`market.inputs.workloads.priced`). The job is admitted on
the
best of them if its revenue gain over the current schedule is at least ``oc_factor`` x the job's
size in processor-seconds (the statically assumed opportunity cost); else it is rejected with
reason ``opportunity-cost``. Property 1 (backfilling favours urgent jobs): one more candidate is
every job in order of price per processor-hour (urgent first), EDF within equal prices, taken
only if it meets every deadline (``favour_urgent``, our reading). Our choices: the size uses the
estimated runtime (what is known at admission); ties go to the earlier candidate (QoPS's order);
``k``, ``order`` and ``append`` are QoPS's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import ClassVar, NamedTuple

from agents.policies.base import Admission, Decision, Placement, PlanContext, Scheduler
from agents.policies.deadline_schedule import (
    Current,
    Entry,
    Order,
    Slot,
    accept,
    current_schedule,
    entries,
    fill,
    insertion_points,
    precheck,
    start_due,
)
from agents.policies.qops import Found, QoPS
from agents.policies.registry import register_admission
from market.core.jobs import Job

SECONDS_PER_HOUR = 3600.0
_tuple_new = tuple.__new__  # builds a Placement as agents.policies.base.placement does
_REJECTED = Decision(False, "rejected", "")  # a what-if's rejection (:meth:`VQoPS.verdict`)


def check_oc_factor(value: float, name: str = "oc_factor") -> float:
    """``value`` if it is a valid OC-Factor (>= 0), else a one-line ValueError naming ``name``."""
    if not value >= 0:  # also rejects NaN
        raise ValueError(f"{name} must be >= 0, got {value}")
    return float(value)


def prices(
    candidates: list[list[Slot]], current: list[Slot]
) -> tuple[list[list[float]], list[float]]:
    """What each placed job of each of ``candidates`` and of ``current`` would pay at its
    planned end, in slot order (their sums are the revenues), with fewer price evaluations:
    a candidate's leading slots that are ``current``'s own (QoPS keeps the current schedule's
    first jobs at an insertion point) reuse their values."""
    inf = math.inf
    known = [job.utility(end) for job, _, start, end in current if start != inf]
    if len(known) < len(current):  # rare: a job that never fits; no reuse
        return [
            [job.utility(end) for job, _, s, end in slots if s != inf] for slots in candidates
        ], known
    out = []
    for slots in candidates:
        p, m = 0, min(len(slots), len(current))
        while p < m and slots[p] is current[p]:
            p += 1
        out.append([*known[:p], *[job.utility(end) for job, _, s, end in slots[p:] if s != inf]])
    return out, known


def size_seconds(entry: Entry) -> float:
    """A job's size in processor-seconds (§4.2.1), on its estimated runtime."""
    _, n, runtime, _, _ = entry
    return n * runtime * SECONDS_PER_HOUR


@register_admission("vqops")
class VQoPS(Admission):
    """Value-aware QoPS (§4.2.1, Figure 3): admit on the best feasible schedule if its revenue
    gain covers ``oc_factor`` x size.

    Args:
        oc_factor: the OC-Factor (>= 0; the paper tries 0, 0.05, 0.1, 0.2, 0.4).
        k, order, append: QoPS's K-factor, heuristic and last insertion point.
        favour_urgent: also try the urgent-first order (property 1; see the module docstring).
    """

    scheduler: ClassVar[str | None] = "conservative"  # the plan its guarantee is about

    def __init__(
        self,
        oc_factor: float = 0.1,
        k: int = 5,
        order: Order = "edf",
        append: bool = True,
        favour_urgent: bool = True,
    ) -> None:
        self.oc_factor = check_oc_factor(oc_factor)
        self.qops = QoPS(k=k, order=order, append=append)
        self.favour_urgent = favour_urgent

    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        return self.decide_with(job, queue, ctx, self.oc_factor)

    def parameters(self) -> dict[str, float]:
        return {"oc_factor": self.oc_factor}

    def decide_with(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, oc_factor: float
    ) -> Decision:
        """The decision with ``oc_factor`` in place of this policy's own (what DVQoPS and its
        what-if simulations call): :meth:`appraise`, then :meth:`judge`."""
        return self.judge(self.appraise(job, queue, ctx), oc_factor, ctx)

    def appraise(self, job: Job, queue: Sequence[Job], ctx: PlanContext) -> Appraisal | Decision:
        """Everything of the decision but the OC-Factor: the best feasible schedule and its
        revenue gain (an :class:`Appraisal`), or the rejection of a job that can never fit or
        meet its deadline (a :class:`Decision`, whatever the OC-Factor)."""
        key = self.qops.key
        new = entries((job,), key)[0]
        ctx, waiting, started = start_due(ctx, entries(queue, key))
        first = precheck(new, ctx)
        if isinstance(first, Decision):
            return first
        append = self.qops.append
        points = insertion_points(len(waiting), append)
        current = current_schedule(ctx, waiting, points)
        found = list(self.qops.schedules(new, waiting, ctx, current, first, points))
        candidates = [slots for _, slots, _ in found]
        placed = [not violations for _, _, violations in found]
        if self.favour_urgent:
            urgent_first = _urgent_first(new, current, found, ctx, append)
            if urgent_first is not None:
                candidates.append(urgent_first)
                placed.append(True)
        n, size = new[1], size_seconds(new)
        if not candidates:
            return Appraisal(job, n, size, len(waiting), candidates, -1, math.nan, None)
        if started:  # first in every schedule (see start_due)
            candidates = [started + slots for slots in candidates]
        paid, known = prices(candidates, started + current.slots)
        values = [math.fsum(v) for v in paid]
        best = max(range(len(values)), key=values.__getitem__)  # first of the best
        gain = values[best] - math.fsum(known)
        kept = paid[best] if placed[best] else None
        return Appraisal(job, n, size, len(waiting), candidates, best, gain, kept)

    def judge(
        self, appraisal: Appraisal | Decision, oc_factor: float, ctx: PlanContext
    ) -> Decision:
        """The decision on ``appraisal`` (from :meth:`appraise` on ``ctx``) at ``oc_factor``:
        admit on the best schedule if its gain covers ``oc_factor`` x size."""
        if isinstance(appraisal, Decision):
            return appraisal
        job, _, size, waiting, candidates, best, gain, _ = appraisal
        params = {"oc_factor": oc_factor}
        if not candidates:
            detail = self.qops.no_schedule(waiting)
            return Decision(False, "deadline-miss", detail, params=params)
        cost = oc_factor * size
        if gain < cost:
            detail = (
                f"revenue gain {gain:.6g} of the best of {len(candidates)} feasible schedule(s) "
                f"is below the opportunity cost {oc_factor:g} x {size:.6g} "
                f"processor-seconds = {cost:.6g}"
            )
            return Decision(False, "opportunity-cost", detail, gain=gain, params=params)
        why = f"schedule {best + 1} of {len(candidates)} gains {gain:.6g} >= {cost:.6g}"
        in_order = appraisal.paid is not None  # (the best schedule placed with no reordering)
        return accept(job, ctx, candidates[best], why, in_order, gain=gain, params=params)

    @staticmethod
    def verdict(appraisal: Appraisal | Decision, oc_factor: float, ctx: PlanContext) -> Decision:
        """:meth:`judge`'s decision without its words, for what-if simulations, which read only
        whether the job is admitted, on how many processors and in what queue order: the same
        rule (a schedule whose gain covers ``oc_factor`` x size), no detail, gain or prices."""
        if isinstance(appraisal, Decision):
            return appraisal
        if not appraisal.candidates or appraisal.gain < oc_factor * appraisal.size:
            return _REJECTED
        order = tuple([slot[0].id for slot in appraisal.candidates[appraisal.best]])
        return Decision(True, "meets-deadlines", "", appraisal.processors, queue_order=order)

    @staticmethod
    def plan_of(
        appraisal: Appraisal, decision: Decision, ctx: PlanContext
    ) -> list[Placement] | None:
        """The conservative scheduler's plan of the queue in the order ``decision`` (admitting on
        ``appraisal``, both on ``ctx``) sets, if the appraisal placed it: its best schedule when
        that was placed in order with no reordering (the same reservations on the same profile
        as the scheduler's, so the same plan); None if it was reordered (re-plan then)."""
        paid = appraisal.paid
        if paid is None:
            return None
        cost, inf = ctx.price.cost, math.inf
        slots = [slot for slot in appraisal.candidates[appraisal.best] if slot[2] != inf]
        return [
            _tuple_new(Placement, (job, n, s, end, value, cost(n, s, end)))
            for (job, n, s, end), value in zip(slots, paid, strict=True)
        ]


class Appraisal(NamedTuple):
    """VQoPS's decision on a job up to the OC-Factor (:meth:`VQoPS.appraise`)."""

    job: Job
    processors: int  # its shape
    size: float  # processor-seconds (:func:`size_seconds`)
    waiting: int  # the jobs waiting when it was offered
    candidates: list[list[Slot]]  # the feasible schedules (none: rejected at any OC-Factor)
    best: int  # the index of the one earning most (-1 if none)
    gain: float  # its revenue gain over the current schedule (nan if none)
    # what each job of that one pays at its planned end (jobs that never run left out) if it is
    # its order placed as it is, with no reordering (the scheduler's plan), else None
    paid: list[float] | None


def _urgent_first(
    new: Entry, current: Current, found: list[Found], ctx: PlanContext, append: bool
) -> list[Slot] | None:
    """Every job by price per processor-hour, highest first (EDF among equals), placed in turn;
    its slots if every deadline is met, else None (property 1 of §4.2).

    Work saved, same slots: an order that is QoPS's first order at point 0 (the new job first,
    the rest by EDF; ``found`` has it unless it missed a deadline) or at the last point (the
    current schedule, then the new job) was placed from the same profile already."""
    arranged = current.entries
    # by (-max price / (processors x estimated runtime), rank)
    order = sorted(
        [*arranged, new], key=lambda e: (-(e[0].utility.max_value / (e[1] * e[2])), e[4])
    )
    if order[0] is new and not current.late and all(a[4] < b[4] for a, b in pairwise(order[1:])):
        return next((list(slots) for ts, slots, v in found if ts == 0 and not v), None)
    if append and order[-1] is new and order[:-1] == arranged:
        return next((list(slots) for ts, slots, _ in found if ts == len(arranged)), None)
    slots: list[Slot] = []
    if fill(ctx.capacity.copy(), order, ctx.now, slots) >= 0:
        return None
    return slots
