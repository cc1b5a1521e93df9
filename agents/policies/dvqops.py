"""DVQoPS, dynamic value-aware QoPS (Islam et al., OSU-CISRC-3/07-TR17, §4.3, Figure 4).

VQoPS (:mod:`.vqops`) whose OC-Factor is re-chosen every ``window`` hours: what-if simulations
(:mod:`.whatif`, the live run's own decision and scheduler) replay the jobs of the last window
once per candidate, and the one that earned most is kept (§4.3.1). Every ``max_window`` hours the
window is re-chosen from ``windows`` (Figure 4b); our reading: each candidate window replays the
last ``max_window`` hours changing its OC-Factor as DVQoPS with that window would have. Our
choices: ties keep the current value; the first OC-Factor is ``initial_oc_factor``, the first
window ``initial_window``, the first change one window after the first arrival; what-ifs start
from an empty machine (``whatif_start="live"``: from the live one at the window's first arrival).
``incremental=False`` runs each what-if alone (the reference path). Every decision carries
``oc_factor`` and ``rollback_window`` in ``Decision.params``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import ClassVar, Literal

from agents.policies.base import Admission, Decision, PlanContext, Scheduler
from agents.policies.deadline_schedule import Order
from agents.policies.registry import register_admission
from agents.policies.vqops import VQoPS, check_oc_factor
from agents.policies.whatif import Start, whatif_revenue, whatif_revenues
from market.core.jobs import Job

OC_FACTORS = (0.0, 0.05, 0.1, 0.2, 0.4)
WINDOWS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
ARRIVAL = attrgetter("arrival")


def best_of(values: dict[float, float], current: float) -> float:
    """The key earning most in ``values``; ``current`` on a tie with it, else the first."""
    top = max(values.values())
    if values.get(current) == top:
        return current
    return next(k for k, v in values.items() if v == top)


@register_admission("dvqops")
class DVQoPS(Admission):
    """Dynamic VQoPS (§4.3, Figure 4): VQoPS whose OC-Factor follows what-if simulations.

    Args:
        oc_factors: the candidate OC-Factors (each >= 0; the paper's 0, 0.05, 0.1, 0.2, 0.4).
        windows: the candidate rollback windows in hours (the paper's 1, 2, 4, ..., 64).
        max_window: hours between window changes, and the span they are judged on (64).
        initial_oc_factor, initial_window: before the first change (ours: 0 and max_window).
        k, order, append, favour_urgent: VQoPS's.
        whatif_start: "empty" (ours) or "live": the machine a what-if starts from.
        incremental: run the what-ifs of one choice together (:func:`.whatif.whatif_revenues`:
            the same choices, in less time); False runs each on its own (the reference path).
    """

    scheduler: ClassVar[str | None] = "conservative"  # the plan its guarantee is about

    def __init__(
        self,
        oc_factors: Sequence[float] = OC_FACTORS,
        windows: Sequence[float] = WINDOWS,
        max_window: float = 64.0,
        initial_oc_factor: float = 0.0,
        initial_window: float | None = None,
        k: int = 5,
        order: Order = "edf",
        append: bool = True,
        favour_urgent: bool = True,
        incremental: bool = True,
        whatif_start: Literal["empty", "live"] = "empty",
    ) -> None:
        if not oc_factors:
            raise ValueError("oc_factors must list at least one OC-Factor")
        if not windows:
            raise ValueError("windows must list at least one rollback window")
        self.oc_factors = tuple(check_oc_factor(v, "oc_factors") for v in oc_factors)
        if any(not w > 0 for w in windows):
            raise ValueError(f"windows must be > 0 hours, got {list(windows)}")
        if not max_window > 0:
            raise ValueError(f"max_window must be > 0 hours, got {max_window}")
        self.windows = tuple(float(w) for w in windows)
        self.max_window = float(max_window)
        self.oc_factor = check_oc_factor(initial_oc_factor, "initial_oc_factor")
        self.window = self.max_window if initial_window is None else float(initial_window)
        if not self.window > 0:
            raise ValueError(f"initial_window must be > 0 hours, got {initial_window}")
        self.vqops = VQoPS(initial_oc_factor, k, order, append, favour_urgent)
        self.incremental = incremental
        if whatif_start not in ("empty", "live"):
            raise ValueError(f"whatif_start must be 'empty' or 'live', got {whatif_start!r}")
        self.live = whatif_start == "live"
        self._starts: dict[int, Start] = {}  # the live market at each job's arrival ("live")
        self.history: list[Job] = []  # jobs offered, by arrival
        self._next_oc: float | None = None  # when the OC-Factor is next re-chosen
        self._next_window: float | None = None  # when the window is next re-chosen
        self._memo: dict[tuple[float, float, float], float] = {}  # what-ifs of one decision

    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        now = ctx.now
        if self._next_oc is None:
            self._next_oc, self._next_window = now + self.window, now + self.max_window
        capacity = ctx.capacity.capacity
        self._memo.clear()
        if now >= self._next_window:
            self._forget(now)
            self.window = self.choose_window(now, capacity, scheduler)
            self._next_window = now + self.max_window
            self._next_oc = now  # re-choose the OC-Factor with the new window at once
        if now >= self._next_oc:
            self._forget(now)
            self.oc_factor = self.choose_oc_factor(now, self.window, capacity, scheduler)
            self._next_oc = now + self.window
        self._memo.clear()  # what-ifs are shared only within this decision
        self.history.append(job)
        if self.live:
            shapes = ctx.shapes
            pinned = {j.id: shapes[j.id] for j in queue if j.id in shapes}
            self._starts[job.id] = Start(now, ctx.capacity.copy(), tuple(queue), pinned)
        decision = self.vqops.decide_with(job, queue, ctx, self.oc_factor)
        decision.params = self.parameters()
        return decision

    def parameters(self) -> dict[str, float]:
        return {"oc_factor": self.oc_factor, "rollback_window": self.window}

    # -- the choices (Figure 4b, 4c) -----------------------------------------------------------
    def choose_oc_factor(
        self, now: float, window: float, capacity: int, scheduler: Scheduler
    ) -> float:
        """The candidate OC-Factor that earned most over the last ``window`` hours (Figure 4c)."""
        return best_of(self.oc_scores(now, window, capacity, scheduler), self.oc_factor)

    def choose_window(self, now: float, capacity: int, scheduler: Scheduler) -> float:
        """The candidate window that would have earned most over the last ``max_window`` hours
        (Figure 4b): for each ``w``, one replay of those hours in which the OC-Factor changes
        every ``w`` hours to the one the what-ifs over the ``w`` hours before picked (what
        DVQoPS with window ``w`` would have done)."""
        return best_of(self.window_scores(now, capacity, scheduler), self.window)

    def oc_scores(
        self, now: float, window: float, capacity: int, scheduler: Scheduler
    ) -> dict[float, float]:
        """What each candidate OC-Factor earned over the last ``window`` hours."""
        if self.incremental:
            jobs = self._arrived(now - window, now)
            rows = self._whatifs(jobs, _constants(self.oc_factors), [now], capacity, scheduler)
            return dict(zip(self.oc_factors, (row[0] for row in rows), strict=True))
        return {
            oc: self.revenue(now - window, now, oc, capacity, scheduler) for oc in self.oc_factors
        }

    def window_scores(self, now: float, capacity: int, scheduler: Scheduler) -> dict[float, float]:
        """What each candidate window would have earned over the last ``max_window`` hours."""
        if self.incremental:
            return self._shared_window_scores(now, capacity, scheduler)
        start = now - self.max_window
        scores = {}
        for w in self.windows:
            changes: list[tuple[float, float]] = []  # (from, OC-Factor), by time
            at = start
            while at < now:
                changes.append((at, self.choose_oc_factor(at, w, capacity, scheduler)))
                at += w
            scores[w] = self._replay(start, now, changes, capacity, scheduler)
        return scores

    # -- the reference path: each what-if on its own ---------------------------------------------
    def revenue(
        self, start: float, end: float, oc_factor: float, capacity: int, scheduler: Scheduler
    ) -> float:
        """What the jobs that arrived in ``[start, end)`` would have earned with ``oc_factor``."""
        key = (start, end, oc_factor)
        if key in self._memo:
            return self._memo[key]

        def decide(job: Job, queue: Sequence[Job], ctx: PlanContext) -> Decision:
            return self.vqops.decide_with(job, queue, ctx, oc_factor)

        jobs = [j for j in self.history if start <= j.arrival < end]
        start_at = self._start_of(jobs)
        earned = self._memo[key] = whatif_revenue(jobs, capacity, decide, scheduler, 0.0, start_at)
        return earned

    def _replay(
        self,
        start: float,
        end: float,
        changes: list[tuple[float, float]],
        capacity: int,
        scheduler: Scheduler,
    ) -> float:
        """The revenue of the jobs that arrived in ``[start, end)`` with the OC-Factor of
        ``changes`` in force at each arrival."""
        jobs = [j for j in self.history if start <= j.arrival < end]
        times = [t for t, _ in changes]

        def decide(job: Job, queue: Sequence[Job], ctx: PlanContext) -> Decision:
            oc = changes[max(bisect_right(times, job.arrival) - 1, 0)][1]
            return self.vqops.decide_with(job, queue, ctx, oc)

        return whatif_revenue(jobs, capacity, decide, scheduler, 0.0, self._start_of(jobs))

    # -- the incremental path: the what-ifs of one choice run together ---------------------------
    def _arrived(self, start: float, end: float) -> list[Job]:
        """The jobs that arrived in ``[start, end)`` (the history is by arrival)."""
        history = self.history
        return history[
            bisect_left(history, start, key=ARRIVAL) : bisect_left(history, end, key=ARRIVAL)
        ]

    def _whatifs(
        self,
        jobs: list[Job],
        params: list[Callable[[float], float]],
        ends: list[float],
        capacity: int,
        scheduler: Scheduler,
    ) -> list[list[float]]:
        vqops = self.vqops
        planned = vqops.plan_of if scheduler.plans_in_order else None
        return whatif_revenues(
            jobs, capacity, vqops.appraise, vqops.verdict, scheduler, params, ends,
            planned=planned, start=self._start_of(jobs),
        )  # fmt: skip

    def _shared_window_scores(
        self, now: float, capacity: int, scheduler: Scheduler
    ) -> dict[float, float]:
        """:meth:`window_scores` with the what-ifs that start at the same time run together
        (one pass gives every end), then the replays of every window together."""
        start = now - self.max_window
        points: dict[float, list[float]] = {}  # window -> its OC-Factor change times
        ends: dict[float, set[float]] = {}  # what-if start -> its ends
        for w in self.windows:
            at, points[w] = start, []
            while at < now:  # the same float arithmetic as the reference path
                points[w].append(at)
                ends.setdefault(at - w, set()).add(at)
                at += w
        constants = _constants(self.oc_factors)
        earned: dict[tuple[float, float], dict[float, float]] = {}  # (start, end) -> per OC
        for begin, stops in ends.items():
            stops = sorted(stops)
            rows = self._whatifs(
                self._arrived(begin, stops[-1]), constants, stops, capacity, scheduler
            )
            for k, stop in enumerate(stops):
                earned[begin, stop] = dict(
                    zip(self.oc_factors, (row[k] for row in rows), strict=True)
                )
        replays = [
            _steps([(at, best_of(earned[at - w, at], self.oc_factor)) for at in points[w]])
            for w in self.windows
        ]
        rows = self._whatifs(self._arrived(start, now), replays, [now], capacity, scheduler)
        return dict(zip(self.windows, (row[0] for row in rows), strict=True))

    def _start_of(self, jobs: Sequence[Job]) -> Start | None:
        """Where a what-if of ``jobs`` starts: None (empty), or the live market at the first."""
        return self._starts.get(jobs[0].id) if self.live and jobs else None

    def _forget(self, now: float) -> None:
        """Drop jobs too old for any what-if simulation."""
        horizon = now - self.max_window - max(self.windows)
        if self.history and self.history[0].arrival < horizon:
            self.history = [j for j in self.history if j.arrival >= horizon]
            if self.live:
                kept = self._starts
                self._starts = {j.id: kept[j.id] for j in self.history if j.id in kept}


def _constants(oc_factors: Sequence[float]) -> list[Callable[[float], float]]:
    """Each OC-Factor as a function of time."""
    return [lambda _, oc=oc: oc for oc in oc_factors]


def _steps(changes: list[tuple[float, float]]) -> Callable[[float], float]:
    """The OC-Factor of ``changes`` ((from, OC-Factor), by time) in force at a time (the first
    before it)."""
    times = [t for t, _ in changes]
    return lambda t: changes[max(bisect_right(times, t) - 1, 0)][1]
