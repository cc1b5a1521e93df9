"""VARQ: virtual advance reservations on a best-effort batch queue (Nurmi, Wolski & Brevik, VARQ
TR 2007-09 §3, Figure 3).

To have ``nodes`` running at a ``deadline`` for ``walltime``, submit at ``t`` a job of padded
wall time ``walltime + (deadline - t)``. :func:`plan` takes the latest ``t`` on a ``step`` grid
whose probability of starting by the deadline, ``QBETS(nodes, padded, deadline - t)``, is at
least the required one, or None ("no reservation possible"); the overhead is
``nodes x (deadline - t)``. We follow the text's wall time (the job's own plus the padding)
where the pseudocode returns the padding alone. "Probability >= p" is tested as "the bound on
the p-quantile <= deadline - t", the same test, one vectorised call; :func:`trajectory` gives
the probabilities. :class:`VarqPlanner` is the planner as a named policy
(``make_reservation("varq", ...)``). Re-planning is the caller's (:mod:`agents.varq_user`).
Times in hours.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Protocol

import numpy as np

from agents.policies.registry import register_reservation

PAPER_STEP = 30.0 / 3600.0  # hours: the paper's 30 s trajectory step


class VarqError(ValueError):
    """A bad reservation request; the message is one line naming the field."""


class Predictor(Protocol):
    """What VARQ needs from QBETS."""

    def bounds(self, nodes: int, walltimes: np.ndarray, quantile: float) -> np.ndarray: ...

    def probability(self, nodes: int, walltime: float, wait: float) -> float: ...


@dataclass(frozen=True, slots=True)
class VarqPlan:
    """A reservation VARQ can make: submit at ``submit_at`` a job requesting ``walltime`` (padded),
    which starts by the deadline with (predicted) ``probability``; ``overhead`` is the worst-case
    extra allocation, node-hours."""

    submit_at: float
    walltime: float
    probability: float
    overhead: float
    deadline: float
    nodes: int


def check_request(
    nodes: int, walltime: float, now: float, deadline: float, required: float, step: float
) -> None:
    """Raise a one-line :class:`VarqError` naming the first bad field of a request."""
    if not isinstance(nodes, int | np.integer) or nodes < 1:
        raise VarqError(f"nodes: must be a whole number >= 1, got {nodes!r}")
    if not walltime > 0:
        raise VarqError(f"walltime: must be > 0, got {walltime!r}")
    if not deadline > now:
        raise VarqError(f"deadline: {deadline:g} is not after now ({now:g})")
    if not 0.0 < required < 1.0:
        raise VarqError(f"probability: must lie strictly between 0 and 1, got {required!r}")
    if not step > 0:
        raise VarqError(f"step: must be > 0, got {step!r}")


def grid(now: float, deadline: float, step: float = PAPER_STEP) -> np.ndarray:
    """The submission times of the trajectory: ``now, now + step, ...`` while ``< deadline``."""
    count = max(1, math.ceil((deadline - now) / step - 1e-9))
    return now + step * np.arange(count)


def trajectory(
    predictor: Predictor,
    nodes: int,
    walltime: float,
    now: float,
    deadline: float,
    step: float = PAPER_STEP,
) -> tuple[np.ndarray, np.ndarray]:
    """Figure 3's ``probVec``: submission times and the probability of starting by the deadline
    if submitted then, with the wall time padded to cover an immediate start."""
    times = grid(now, deadline, step)
    waits = deadline - times
    probs = np.array([predictor.probability(nodes, walltime + w, w) for w in waits.tolist()])
    return times, probs


def plan(
    predictor: Predictor,
    nodes: int,
    walltime: float,
    now: float,
    deadline: float,
    required: float,
    step: float = PAPER_STEP,
) -> VarqPlan | None:
    """The latest submission on the trajectory whose probability is >= ``required`` (Figure 3),
    or None: no reservation is possible."""
    check_request(nodes, walltime, now, deadline, required, step)
    times = grid(now, deadline, step)
    waits = deadline - times
    bounds = np.asarray(predictor.bounds(nodes, walltime + waits, required), dtype=float)
    ok = np.flatnonzero(bounds <= waits)
    if len(ok) == 0:
        return None
    i = int(ok[-1])
    submit, wait = float(times[i]), float(waits[i])
    padded = walltime + wait
    return VarqPlan(
        submit_at=submit,
        walltime=padded,
        probability=predictor.probability(nodes, padded, wait),
        overhead=nodes * wait,
        deadline=deadline,
        nodes=int(nodes),
    )


class ReservationPlanner(ABC):
    """Plans a reservation on a best-effort batch queue: when to submit a job, requesting how
    long, so that it runs by a deadline (registered by name: ``RESERVATIONS``)."""

    name: ClassVar[str] = ""

    @abstractmethod
    def plan(
        self, predictor: Predictor, nodes: int, walltime: float, now: float, deadline: float
    ) -> VarqPlan | None:
        """The reservation to make for ``nodes`` running from ``deadline`` for ``walltime``
        hours, asked at ``now``, or None: no reservation is possible."""


@register_reservation("varq")
class VarqPlanner(ReservationPlanner):
    """VARQ (Figure 3): the latest submission on the probability trajectory whose probability
    of starting by the deadline is at least ``probability``, on a grid of ``step_seconds``."""

    def __init__(self, probability: float, step_seconds: float = 30.0) -> None:
        if not 0.0 < probability < 1.0:
            raise ValueError(f"probability must lie strictly between 0 and 1, got {probability}")
        if not step_seconds > 0:
            raise ValueError(f"step_seconds must be > 0, got {step_seconds}")
        self.probability = probability
        self.step = step_seconds / 3600.0  # hours

    def plan(
        self, predictor: Predictor, nodes: int, walltime: float, now: float, deadline: float
    ) -> VarqPlan | None:
        return plan(predictor, nodes, walltime, now, deadline, self.probability, self.step)
