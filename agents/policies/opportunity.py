"""The Opportunity schedulers of Popovici & Wilkes SC'05 §3.3 items 6 and 7.

FirstOpportunity tries each queued job first (on its most profitable standalone shape) with the
rest scheduled by FirstProfit, and keeps the schedule with the highest total profit;
FirstOpportunityRate keeps the one with the highest profit ÷ schedule length. Our reading: the
plan is that best schedule, so the lookahead decides which job goes first and the next plan
chooses again; a shape pinned by admission is kept; candidates are tried in FirstProfit's order
with ties to the earlier, so FirstOpportunity never plans less profit than FirstProfit. One
plan of the whole queue per queued job: the cost §3.4 warns about for long queues.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agents.policies.base import Plan, PlanContext, Scheduler
from agents.policies.list_scheduling import place
from agents.policies.profit import FirstProfit
from agents.policies.registry import register_scheduler
from market.core.jobs import Job


@register_scheduler("first_opportunity")
class FirstOpportunity(Scheduler):
    """Try each queued job first, the rest by FirstProfit; keep the most rewarding schedule
    (§3.3 item 6). Both the choice and the admission reward (§3.4) are the plan's profit."""

    def __init__(self) -> None:
        self._first_profit = FirstProfit()

    def plan(
        self, ctx: PlanContext, queue: Sequence[Job], pinned: Mapping[int, int] | None = None
    ) -> Plan:
        order = self._first_profit.order(ctx, queue, pinned)
        best_plan = place(ctx, order)  # FirstProfit's own first job tried first
        if len(order) < 2:
            return best_plan
        best = self.reward(best_plan, ctx)
        for i in range(1, len(order)):
            plan = place(ctx, [order[i], *order[:i], *order[i + 1 :]])
            score = self.reward(plan, ctx)
            if score > best:
                best_plan, best = plan, score
        return best_plan


@register_scheduler("first_opportunity_rate")
class FirstOpportunityRate(FirstOpportunity):
    """FirstOpportunity choosing by profit ÷ schedule length (§3.3 item 7), which is also its
    admission reward (§3.4: "profit divided by schedule duration").

    The schedule length is from now to the last planned completion; an empty plan has reward 0.
    """

    def reward(self, plan: Plan, ctx: PlanContext) -> float:
        length = plan.end - ctx.now
        return plan.profit / length if length > 0 else 0.0
