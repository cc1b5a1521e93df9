"""Jobs: what a client asks a service provider to run.

A job is immutable: it is the client's request. What happens to it (decision, shape, start, end,
price paid) is recorded by the service provider that runs it (see :mod:`agents.service_provider`).

Moldable jobs scale by Amdahl's law (Popovici & Wilkes SC'05 §4, footnote 2):
``runtime(n) = work * (serial_fraction + (1 - serial_fraction) / n)``, where ``work`` is the
runtime on one processor in hours. A rigid job (e.g. from a trace) has a single shape; give it
``serial_fraction=0`` and ``work = processors * runtime`` so that ``runtime(processors)`` is the
trace's runtime.

The service provider plans with ``work_estimate`` (its prediction, from the client or its own
history); the simulation runs the job for ``work``. They are equal unless a workload says
otherwise (the profit paper assumes accurate estimates, §1.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from market.core.utility import UtilityFunction

_new = object.__new__
_ONE_SHAPE: dict[int, tuple[int]] = {}  # rigid jobs' shapes, one tuple per width (immutable)


def amdahl_runtime(work: float, serial_fraction: float, processors: int) -> float:
    """Runtime of ``work`` processor-hours (on one processor) on ``processors`` processors."""
    return work * (serial_fraction + (1.0 - serial_fraction) / processors)


@dataclass(frozen=True, slots=True, eq=False)
class Job:
    """A parallel job offered by a client.

    Attributes:
        id: unique within a run.
        arrival: submission time (hours).
        work: actual runtime on one processor (hours).
        utility: price paid as a function of completion time.
        serial_fraction: Amdahl's beta (0.2 in the profit paper).
        shapes: the processor counts the job may run on, increasing.
        work_estimate: the runtime on one processor the planner believes (defaults to ``work``).
        deadline: optional completion deadline (hours), for deadline-guarantee policies.
        client: the name of the submitting client, if any.
        kind: a free label from the workload (e.g. "high-value/steep").
        best_effort: the client set no deadline; a deadline the job carries anyway was given by
            the provider's scheme (QoPS's relaxed deadline for such jobs, §4.2), and the job is
            measured as best-effort (response time, slowdown).
        swf_job: the SWF job number (field 1) of a trace job, None for synthetic jobs; a
            duplicate made to raise a trace's load carries its original's number.
        planned_work: the work the planner believes (``work_estimate``, else ``work``).
    """

    id: int
    arrival: float
    work: float
    utility: UtilityFunction
    serial_fraction: float = 0.0
    shapes: tuple[int, ...] = (1,)
    work_estimate: float | None = None
    deadline: float | None = None
    client: str | None = None
    kind: str = ""
    best_effort: bool = False
    swf_job: int | None = None
    planned_work: float = field(init=False, repr=False)  # work_estimate, else work

    def __post_init__(self) -> None:
        if not self.work > 0:  # also rejects NaN
            raise ValueError(f"job {self.id}: work must be > 0, got {self.work}")
        shapes = self.shapes
        if not shapes or min(shapes) < 1:
            raise ValueError(f"job {self.id}: shapes must be processor counts >= 1")
        if len(shapes) > 1 and list(shapes) != sorted(set(shapes)):
            raise ValueError(f"job {self.id}: shapes must be increasing and distinct")
        if not 0.0 <= self.serial_fraction <= 1.0:
            raise ValueError(f"job {self.id}: serial_fraction must be in [0, 1]")
        estimate = self.work if self.work_estimate is None else self.work_estimate
        if not estimate > 0:  # also rejects NaN
            raise ValueError(f"job {self.id}: work_estimate must be > 0")
        object.__setattr__(self, "planned_work", estimate)

    @classmethod
    def rigid(
        cls,
        id: int,
        arrival: float,
        work: float,
        utility: UtilityFunction,
        processors: int,
        work_estimate: float,
        deadline: float | None = None,
        client: str | None = None,
        kind: str = "",
        best_effort: bool = False,
        swf_job: int | None = None,
    ) -> Job:
        """A rigid job on ``processors`` (serial fraction 0) from numbers the caller has
        checked (work and estimate > 0, processors >= 1): the job the constructor gives,
        without its per-job checks, for workloads that build tens of thousands of jobs from
        arrays they check at once (a trace)."""
        job = _new(cls)
        # Each field through its slot's own setter (the frozen class's __setattr__ refuses), as
        # object.__setattr__ would, without looking the name up: the fields in class order.
        (
            set_id, set_arrival, set_work, set_utility, set_serial, set_shapes, set_estimate,
            set_deadline, set_client, set_kind, set_best_effort, set_swf_job, set_planned,
        ) = _SLOT_SETTERS  # fmt: skip
        set_id(job, id)
        set_arrival(job, arrival)
        set_work(job, work)
        set_utility(job, utility)
        set_serial(job, 0.0)
        set_shapes(
            job, _ONE_SHAPE.get(processors) or _ONE_SHAPE.setdefault(processors, (processors,))
        )
        set_estimate(job, work_estimate)
        set_deadline(job, deadline)
        set_client(job, client)
        set_kind(job, kind)
        set_best_effort(job, best_effort)
        set_swf_job(job, swf_job)
        set_planned(job, work_estimate)
        return job

    def runtime(self, processors: int) -> float:
        """Actual runtime on ``processors`` processors (:func:`amdahl_runtime`, inlined: planners
        call it for every job they place)."""
        beta = self.serial_fraction
        return self.work * (beta + (1.0 - beta) / processors)

    def predicted_runtime(self, processors: int) -> float:
        """Runtime the planner expects on ``processors`` processors (Amdahl on the estimate;
        :func:`amdahl_runtime`, inlined)."""
        beta = self.serial_fraction
        return self.planned_work * (beta + (1.0 - beta) / processors)

    @property
    def max_shape(self) -> int:
        """The widest shape the job can use."""
        return self.shapes[-1]

    def __repr__(self) -> str:
        return f"Job({self.id}, arrival={self.arrival:.3f}, work={self.work:.3f}, {self.shapes})"


#: Each field's slot setter, in the class's field order (:meth:`Job.rigid`).
_SLOT_SETTERS = tuple(vars(Job)[f.name].__set__ for f in fields(Job))
