"""MSB admission, the Modified Slack-Based baseline of QoPS (Islam, Balaji, Sadayappan & Panda,
OSU-CISRC-4/03-TR21, §2.2.1, Figure 1).

The rule: the waiting jobs keep one order and the new job is tried at each of the N + 1
positions; of the schedules meeting every deadline the cheapest is taken, ties to the earlier
position. Our choices: the order is the current schedule's planned starts (``order="start"``,
as Figure 1 re-places removed jobs "in Ascending Scheduled Time order") or a heuristic; the
paper's "pre-decided cost function" is ``completion`` (sum of planned completions, default) or
``makespan``. Shared rules: :mod:`.deadline_schedule`.
"""

from __future__ import annotations

import math
from typing import Literal

from agents.policies.base import Decision, PlanContext
from agents.policies.deadline_schedule import (
    RANK,
    Entry,
    First,
    Guarantee,
    Slot,
    accept,
    current_schedule,
    fill,
    heuristic,
)
from agents.policies.registry import register_admission
from market.core.capacity import CapacityProfile


@register_admission("msb")
class MSB(Guarantee):
    """Modified Slack-Based (§2.2.1, Figure 1): the new job at each of the N + 1 positions of a
    fixed order, the cheapest schedule meeting every deadline.

    Args:
        order: the fixed order of the waiting jobs: ``start`` (their planned starts, default),
            ``edf`` or ``llf``.
        cost: ``completion`` (sum of planned completions, default) or ``makespan``.
    """

    def __init__(
        self,
        order: Literal["start", "edf", "llf"] = "start",
        cost: Literal["completion", "makespan"] = "completion",
    ) -> None:
        if cost not in ("completion", "makespan"):
            raise ValueError(f"cost must be 'completion' or 'makespan', got {cost!r}")
        super().__init__(order, None if order == "start" else heuristic(order))
        self.cost = cost

    def _cost(self, slots: list[Slot]) -> float:
        ends = [end for _, _, _, end in slots if end != math.inf]
        if self.cost == "makespan":
            return max(ends)
        return math.fsum(ends)

    def search(self, new: Entry, waiting: list[Entry], ctx: PlanContext, first: First) -> Decision:
        arranged = current_schedule(ctx, waiting).entries
        if self.key is not None:
            arranged.sort(key=RANK)
        now = ctx.now
        baseline: list[Slot] = []  # the fixed order without the job
        if fill(ctx.capacity.copy(), arranged, now, baseline) >= 0:
            baseline = []  # it misses a deadline itself: no shortcut
        later = [math.inf] * (len(baseline) + 1)  # the earliest baseline start from each on
        for i in range(len(baseline) - 1, -1, -1):
            later[i] = min(baseline[i][2], later[i + 1])
        prefix = ctx.capacity.copy()
        prefix_slots: list[Slot] = []
        best: tuple[float, int, list[Slot]] | None = None
        for ts in range(len(arranged) + 1):
            if ts and fill(prefix, arranged[ts - 1 : ts], now, prefix_slots) >= 0:
                break  # the fixed order itself misses a deadline before the job
            slots = prefix_slots.copy()
            if not _insert(prefix.copy(), new, arranged, ts, baseline, later, now, slots):
                continue
            cost = self._cost(slots)
            if best is None or cost < best[0]:
                best = (cost, ts, slots)
        if best is None:
            detail = f"the job misses a deadline at each of the {len(arranged) + 1} positions"
            return Decision(False, "deadline-miss", detail)
        cost, ts, slots = best
        why = f"position {ts} of {len(arranged) + 1} is the cheapest ({self.cost} {cost:.4g} h)"
        return accept(new[0], ctx, slots, why, in_order=True)


def _insert(
    profile: CapacityProfile,
    new: Entry,
    arranged: list[Entry],
    ts: int,
    baseline: list[Slot],
    later: list[float],
    now: float,
    slots: list[Slot],
) -> bool:
    """Figure 1 steps b-c: place ``new`` then ``arranged[ts:]`` on ``profile`` (the first ``ts``
    placed), appending their slots; whether every deadline is met.

    An exact shortcut: while each job after the new one keeps its slot in ``baseline`` (all of
    ``arranged`` placed without it), the profile is the baseline's less the new job, so once the
    jobs left all start after the new job ends (``later[p]``: the earliest baseline start from
    ``p`` on), they keep their baseline slots too."""
    if fill(profile, (new,), now, slots) >= 0:
        return False
    if not baseline:
        return fill(profile, arranged[ts:], now, slots) < 0
    end = slots[-1][3]
    for p in range(ts, len(arranged)):
        if later[p] >= end:
            slots.extend(baseline[p:])
            return True
        if fill(profile, arranged[p : p + 1], now, slots) >= 0:
            return False
        if slots[-1][2] != baseline[p][2]:  # moved: no shortcut from here on
            return fill(profile, arranged[p + 1 :], now, slots) < 0
    return True
