"""MRT admission, the Modified Real-Time baseline of QoPS (Islam, Balaji, Sadayappan & Panda,
OSU-CISRC-4/03-TR21, §2.2.2, Figure 2; after Ramamritham, Stankovic & Shiah 1990).

The rule: all waiting jobs and the new one are sorted by the heuristic and the schedule is
rebuilt from empty by depth-first search: the next job in heuristic order that keeps the partial
schedule *strongly feasible* (every job in it meets its deadline, and so would each unscheduled
job placed next on its own) is appended; one that does not is a backtrack, and so is returning
from a dead end. After ``max_backtracks`` the job is rejected and the old schedule kept. Our
choice: the paper gives no limit; 10 is the default. Shared rules: :mod:`.deadline_schedule`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from agents.policies.base import Decision, PlanContext
from agents.policies.deadline_schedule import (
    RANK,
    Entry,
    First,
    Guarantee,
    Order,
    Slot,
    accept,
    current_schedule,
    heuristic,
)
from agents.policies.registry import register_admission
from market.core.capacity import CapacityProfile


@register_admission("mrt")
class MRT(Guarantee):
    """Modified Real-Time (§2.2.2, Figure 2): rebuild the schedule in heuristic order, keeping
    it strongly feasible, backtracking at most ``max_backtracks`` times.

    Args:
        order: the heuristic, ``edf`` (default) or ``llf``.
        max_backtracks: backtracks allowed before the job is rejected (the paper gives no
            value; 10 is our choice).
    """

    def __init__(self, order: Order = "edf", max_backtracks: int = 10) -> None:
        if max_backtracks < 0:
            raise ValueError(f"max_backtracks must be >= 0, got {max_backtracks}")
        super().__init__(order, heuristic(order))
        self.max_backtracks = max_backtracks

    def search(self, new: Entry, waiting: list[Entry], ctx: PlanContext, first: First) -> Decision:
        arranged = current_schedule(ctx, waiting).entries
        now = ctx.now
        profile = ctx.capacity.copy()
        remaining = sorted([*arranged, new], key=RANK)
        chosen: list[Slot] = []
        frames: list[tuple[list[Entry], int]] = []  # (remaining before, index chosen) per level
        backtracks = 0
        index = 0

        while remaining:
            extended = False
            while index < len(remaining):
                _, n, runtime, due, _ = candidate = remaining[index]
                rest = [*remaining[:index], *remaining[index + 1 :]]
                start = profile.reserve_earliest(n, runtime, now, due)
                if start + runtime <= due:  # it meets its deadline, or never runs and has none
                    if start == math.inf or _strongly_feasible(profile, rest, now):
                        frames.append((remaining, index))
                        chosen.append((candidate[0], n, start, start + runtime))
                        remaining, index, extended = rest, 0, True
                        break
                    profile.release(start, runtime, n)
                backtracks += 1
                if backtracks > self.max_backtracks:
                    return self._reject(backtracks)
                index += 1
            if extended:
                continue
            if not frames:  # every first job fails: no schedule
                return self._reject(backtracks)
            remaining, index = frames.pop()  # dead end: back to the previous partial schedule
            _, n, start, _ = chosen.pop()
            if start != math.inf:
                profile.release(start, remaining[index][2], n)
            index += 1
            backtracks += 1
            if backtracks > self.max_backtracks:
                return self._reject(backtracks)
        why = f"rebuilt in {self.order.upper()} order" + (
            f" with {backtracks} backtrack(s)" if backtracks else ""
        )
        return accept(new[0], ctx, chosen, why, in_order=not backtracks)

    def _reject(self, backtracks: int) -> Decision:
        detail = (
            f"no strongly feasible schedule within {self.max_backtracks} backtrack(s) "
            f"({backtracks} tried)"
        )
        return Decision(False, "deadline-miss", detail)


def _strongly_feasible(profile: CapacityProfile, rest: Iterable[Entry], now: float) -> bool:
    """Whether each of ``rest`` placed next on its own would meet its deadline (§2.2.2). A job
    that would meet it even starting when the profile has settled needs no search (work saved,
    same decisions)."""
    settled, room = profile.settled
    settled = max(settled, now)
    for _, n, runtime, due, _ in rest:
        if (
            due != math.inf
            and (n > room or settled + runtime > due)
            and profile.earliest_start(n, runtime, now) + runtime > due
        ):
            return False
    return True
