"""The profit-aware schedulers of Popovici & Wilkes, "Profitable services in an uncertain world"
(SC'05) §3.3.

FirstProfit (§3.3 item 5): "selects the shape of jobs in order to maximize the per-job profit for
each job independently, and sorts jobs by profit alone". A job's profit at a shape is its utility
at completion minus the rent for its processors, if it started now; the reward metric used by
its admission control is the plan's total profit (§3.4).
"""

from __future__ import annotations

from agents.policies.base import PlanContext
from agents.policies.list_scheduling import ListScheduler, standalone_profit
from agents.policies.registry import register_scheduler
from market.jobs import Job


@register_scheduler("first_profit")
class FirstProfit(ListScheduler):
    """Shape each job for its own best profit; run the most profitable first (§3.3).

    Ties between shapes go to the smaller shape (it rents fewer processors for the same profit).
    """

    def rank(self, job: Job, ctx: PlanContext, processors: int | None = None) -> tuple[int, float]:
        if processors is not None:
            return processors, -standalone_profit(job, processors, ctx)
        best_n, best = job.shapes[0], standalone_profit(job, job.shapes[0], ctx)
        for n in job.shapes[1:]:
            profit = standalone_profit(job, n, ctx)
            if profit > best:
                best_n, best = n, profit
        return best_n, -best
