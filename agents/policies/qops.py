"""QoPS admission (Islam, Balaji, Sadayappan & Panda, OSU-CISRC-4/03-TR21, §3, Figure 3).

The rule: the waiting jobs are taken in the current schedule's order of planned start; at each
insertion point ``ts`` in ``0, N - N/2, N - N/4, ..., N - 1`` (the paper's ``{0, N/2, 3N/4, ...}``)
the jobs before ``ts`` keep their order, the new job goes at ``ts`` and the rest follow in
heuristic order. When job ``J`` at position ``T`` misses its deadline, the jobs from
``mid = (ts + T) // 2`` are re-sorted with ``J`` first; more than ``k`` such violations abandon
the point. The first point whose schedule meets every deadline is taken (§6: the options "in a
FCFS order"). Our choices: ``k = 5``; the new job first at the point (``new_job="first"``);
appending at ``N`` as a last point (``append``). Shared rules: :mod:`.deadline_schedule`;
results: docs/results/qops.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from agents.policies.base import Decision, PlanContext
from agents.policies.deadline_schedule import (
    RANK,
    Current,
    Entry,
    First,
    Guarantee,
    Order,
    Slot,
    accept,
    current_schedule,
    fill,
    heuristic,
    insertion_points,
    unfill,
)
from agents.policies.registry import register_admission
from market.core.capacity import CapacityProfile

# A feasible schedule found at an insertion point: (point, slots of every job, reorderings)
Found = tuple[int, list[Slot], int]


@register_admission("qops")
class QoPS(Guarantee):
    """QoPS (§3, Figure 3): try log2 N insertion points, reordering at most ``k`` times each.

    Args:
        k: the K-factor, violations allowed per insertion point before it is abandoned. The
            paper gives no value; 5 is our choice.
        order: the heuristic, ``edf`` (default) or ``llf``.
        new_job: ``first`` puts the new job at the insertion point (the paper's reading, our
            default); ``sorted`` sorts it in with the jobs after the point.
        append: also try appending the job at the end (our addition: it delays nobody).
    """

    def __init__(
        self,
        k: int = 5,
        order: Order = "edf",
        new_job: Literal["first", "sorted"] = "first",
        append: bool = True,
    ) -> None:
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        if new_job not in ("first", "sorted"):
            raise ValueError(f"new_job must be 'first' or 'sorted', got {new_job!r}")
        super().__init__(order, heuristic(order))
        self.k = k
        self.new_job = new_job
        self.append = append

    def search(self, new: Entry, waiting: list[Entry], ctx: PlanContext, first: First) -> Decision:
        for ts, slots, violations in self.schedules(new, waiting, ctx, first=first):
            why = f"inserted at position {ts} of {len(slots) - 1} waiting jobs"
            if violations:
                why += f" after {violations} reordering(s)"
            return accept(new[0], ctx, slots, why, in_order=not violations)
        return Decision(False, "deadline-miss", self.no_schedule(len(waiting)))

    def no_schedule(self, waiting: int) -> str:
        """The detail of a rejection for want of a feasible schedule."""
        points = len(insertion_points(waiting, self.append))
        return (
            f"no schedule meets every deadline at {points} insertion point(s) with up to "
            f"k={self.k} reordering(s) each"
        )

    def schedules(
        self,
        new: Entry,
        waiting: list[Entry],
        ctx: PlanContext,
        current: Current | None = None,
        first: First | None = None,
        points: list[int] | None = None,
    ) -> Iterator[Found]:
        """The feasible schedule found at each insertion point, in point order (§4.2.1 of the
        VQoPS paper: QoPS "adapted to provide the entire list of acceptable schedules"); QoPS
        itself takes the first. Lazy: nothing past the first is computed unless asked for.
        What the caller may have already: ``current``, the current schedule (with the insertion
        points' snapshots); ``first``, the new job placed alone (:func:`precheck`, taken over);
        ``points``, the insertion points.

        Work saved, same schedules: the first placement at point 0 needs no current schedule,
        so it comes first, going on from ``first``; later points start from copies of the
        profile taken while the current schedule is placed, and end at the first where the new
        job misses its deadline alone (every later point's profile is that one and more)."""
        now = ctx.now
        tail = self._tail(new, waiting)
        if first is not None and self.new_job == "first":
            zero, slots = first  # point 0's profile and slots
            miss = fill(zero, tail[1:], now, slots)
            if miss >= 0:
                miss += 1
        else:
            zero, slots = ctx.capacity.copy(), []
            miss = fill(zero, tail, now, slots)
        if miss < 0:
            yield 0, slots, 0
        if points is None:
            points = insertion_points(len(waiting), self.append)
        if current is None:
            current = current_schedule(ctx, waiting, points)
        prefix = ctx.capacity.copy()
        kept: list[Slot] = []  # the slots of the jobs before the insertion point
        for ts in points:
            if ts == 0 and not current.late:
                if miss < 0:
                    continue  # found above
                found = self._reorder(zero, tail, now, slots, miss)  # going on from above
            else:
                if current.snapshots is not None:
                    profile = current.snapshots[ts]  # the current schedule's first ts jobs
                    kept = current.slots[:ts]
                elif fill(prefix, current.entries[len(kept) : ts], now, kept) >= 0:
                    return  # cannot happen with a feasible schedule: a kept prefix delays nobody
                else:
                    profile = prefix.copy()
                tail = self._tail(new, current.entries[ts:])
                slots = []
                miss = fill(profile, tail, now, slots)
                if miss == 0 and self.new_job == "first":
                    return  # the new job misses alone at the point: at every later one too
                found = self._reorder(profile, tail, now, slots, miss)
            if found is not None:
                tail_slots, violations = found
                yield ts, kept[:ts] + tail_slots, violations

    def _tail(self, new: Entry, rest: list[Entry]) -> list[Entry]:
        """The new job and the jobs after the insertion point, in heuristic order."""
        if self.new_job == "first":
            return [new, *sorted(rest, key=RANK)]
        return sorted([*rest, new], key=RANK)

    def _reorder(
        self,
        profile: CapacityProfile,
        tail: list[Entry],
        now: float,
        slots: list[Slot] | None = None,
        miss: int = -1,
    ) -> tuple[list[Slot], int] | None:
        """Figure 3 step 4: place ``tail`` on ``profile`` (or go on from ``slots``, its first
        placement, which missed at ``miss``); when job ``J`` at ``T`` misses its deadline,
        re-sort the jobs from ``mid = T // 2`` with ``J`` first and go on from there, at most
        ``k`` times. The slots of the order found and the violations, or None.

        Going on from ``mid`` takes back the reservations from ``mid`` to ``T`` rather than
        placing the jobs before ``mid`` again: the profile is then the same step function, so
        every later placement is the same."""
        if slots is None:
            slots = []
            miss = fill(profile, tail, now, slots)
        violations = 0
        while miss >= 0:
            if violations == self.k or miss == 0:  # at 0: the same order again, the same miss
                return None
            violations += 1
            done = miss // 2
            unfill(profile, tail[done:miss], slots[done:])
            del slots[done:]
            rest = sorted(tail[done:miss] + tail[miss + 1 :], key=RANK)
            tail = [*tail[:done], tail[miss], *rest]
            miss = fill(profile, tail[done:], now, slots)
            if miss >= 0:
                miss += done
        return slots, violations
