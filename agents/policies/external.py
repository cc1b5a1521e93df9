"""Admission decided outside the model: by an agent in a learning environment (:mod:`envs`).

The decision point is the profit paper's admission control (Popovici & Wilkes SC'05 §3.4): a job
is offered, the provider says yes (on a shape) or no. ``external`` hands that choice to whoever
drives the model: the environment that builds a :class:`~market.sim.model.GridMarket` with this
policy gives it a ``decider``, a function of the same inputs as :meth:`Admission.decide` that
returns the :class:`~agents.policies.base.Decision` its agent chose. The policy itself holds no
state of the run and never sees Mesa; a scenario run without an environment (``gridmarket run``
of a scenario that says ``admission: external``) stops at the first offer with a one-line error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agents.policies.base import Admission, Decision, PlanContext, Scheduler
from agents.policies.registry import register_admission
from market.core.errors import ScenarioError
from market.core.jobs import Job

Decider = Callable[[Job, Sequence[Job], PlanContext, Scheduler], Decision]


class NoDecider(ScenarioError):
    """An ``external`` admission was asked to decide with no environment driving the model (a
    scenario error: the command line reports it in one line)."""


@register_admission("external")
class ExternalAdmission(Admission):
    """Admit as the environment's agent says (see :mod:`envs.driver`)."""

    def __init__(self) -> None:
        self.decider: Decider | None = None

    def decide(
        self, job: Job, queue: Sequence[Job], ctx: PlanContext, scheduler: Scheduler
    ) -> Decision:
        if self.decider is None:
            raise NoDecider(
                f"job {job.id}: admission 'external' is decided by an agent in a learning "
                "environment (gymnasium.make('gridmarket/Admission-v0') or envs.MarketEnv), "
                "not by a plain run"
            )
        return self.decider(job, queue, ctx, scheduler)
