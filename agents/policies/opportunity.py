"""The Opportunity schedulers of Popovici & Wilkes, "Profitable services in an uncertain world"
(SC'05) §3.3 items 6 and 7.

FirstOpportunity "examines the effect of running a job on the others in the queue. It builds a
new schedule for the entire workload by trying each possible job in turn (picking only the most
profitable standalone shape), and then using FirstProfit to generate a schedule for the remaining
jobs. It then selects the job that generates the schedule with the highest total profit."
FirstOpportunityRate is "like FirstOpportunity, but it selects the job that would produce the
highest aggregate profit ÷ the total schedule length".

Our reading: the plan returned is that best schedule itself (the chosen job placed first, the
rest in FirstProfit's order), so the lookahead decides only which job goes first; the next plan,
built when something changes, chooses again. Each job keeps its FirstProfit shape (its most
profitable standalone shape) whether it is tried first or not, and a shape pinned by admission is
respected in both roles. Trying FirstProfit's own first job gives exactly FirstProfit's plan, and
candidates are tried in FirstProfit's order with ties kept by the earlier one, so FirstOpportunity
never plans less profit than FirstProfit.

Cost: one FirstProfit ranking (kept by FirstProfit for the instant) and then one
placement of the whole queue per queued job, O(n) plans of n jobs per call; admission builds
1 + (number of shapes) such plans per offered job. This is the cost §3.4 warns about "when the
queue lengths get large".
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
