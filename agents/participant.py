"""The participant interface: what the market asks its agents to know whether it is done.

A :class:`Participant` is an agent with work the market waits for: it says whether it is
``idle`` (nothing left to submit, queue or run) and how many jobs it is ``running``. The model
(:class:`market.sim.model.GridMarket`) finishes once every participant is idle, and stalls when
for a long time no participant runs a job and nothing arrives; it finds its participants among
its agents, so a new agent kind that subclasses :class:`Participant` is waited for without an edit
of the model. A participant may add rows of its own to the run's summary (:meth:`summary_rows`)
and say why its work cannot progress (:meth:`why_waiting`), for the stall message.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import mesa


class Participant(mesa.Agent, ABC):
    """An agent the market waits for (see the module docstring)."""

    #: Jobs it runs now (a market with running jobs progresses: they end).
    running: int = 0

    @property
    @abstractmethod
    def idle(self) -> bool:
        """Nothing left to do: no job to submit, none queued or running."""

    def summary_rows(self) -> list[dict[str, Any]]:
        """Rows it adds to the run's summary itself (a batch site's figures). None by default:
        a provider's row is built from its job records by :mod:`market.results`."""
        return []

    def why_waiting(self) -> str | None:
        """Why its queued work cannot start, for the stall message (None: nothing waits)."""
        return None
