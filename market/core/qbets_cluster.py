"""QBETS with job classes found by clustering (VARQ TR 2007-09 §2.3: "on-line model-based
clustering to categorize jobs automatically in terms of the scheduling delay they have
experienced"), the option beside :class:`market.core.qbets.JobClasses`'s fixed grid.

The paper does not give its clustering; ours: jobs fall in the cells of a fine grid (requested
nodes cut at powers of two, requested time at 1/4, 1/2, 1, 2, 4, 8, 16 h). Every ``refit_every``
delays, each cell with at least ``min_cell`` of the last ``window`` delays is summarised by its
median log-delay, and those medians are grouped into ``k`` classes by one-dimensional k-means
(:func:`scipy.cluster.vq.kmeans2`, seeded: deterministic); a cell with too few delays joins the
class whose centre is nearest the median of all of them. The class histories are then rebuilt
from the window, in order (so change points are found again). Before the first fit every job
is in one class. Cells of similar delay end up together whatever their shape, which is how the
paper's classes "indicate where the backfilling cutoff is".
"""

from __future__ import annotations

from collections import deque

import numpy as np

from market.core.qbets import QBETS, DelayHistory, JobClasses

FINE_NODES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
FINE_TIMES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)  # hours


class ClusteredClasses:
    """Job classes as groups of fine-grid cells (see the module docstring)."""

    def __init__(self, k: int, fine: JobClasses | None = None) -> None:
        self.k = k
        self.fine = fine or JobClasses(FINE_NODES, FINE_TIMES)
        self.assignment = [0] * len(self.fine)  # one class until the first fit
        self.fitted = False

    @property
    def time_breaks(self) -> tuple[float, ...]:
        """The fine grid's time cuts (a class is a function of the cell: QBETS.bounds uses it)."""
        return self.fine.time_breaks

    def __len__(self) -> int:
        return self.k

    def cell(self, nodes: int, walltime: float) -> int:
        """The fine-grid cell of a job."""
        return self.fine.of(nodes, walltime)

    def of(self, nodes: int, walltime: float) -> int:
        """The class of a job."""
        return self.assignment[self.fine.of(nodes, walltime)]

    def label(self, index: int) -> str:
        """The class and how many cells it holds."""
        cells = sum(1 for a in self.assignment if a == index)
        return f"cluster {index} ({cells} cells)"

    def fit(self, cells: np.ndarray, delays: np.ndarray, min_cell: int) -> None:
        """Group the cells by the median log-delay of their recent delays."""
        logs = np.log1p(np.maximum(delays, 0.0))
        counts = np.bincount(cells, minlength=len(self.fine))
        populated = np.flatnonzero(counts >= min_cell)
        if len(populated) < self.k:
            return
        medians = np.array([np.median(logs[cells == c]) for c in populated])
        distinct = np.unique(medians)
        if len(distinct) <= self.k:  # as many classes as values: k-means has nothing to do
            centres, labels = distinct, np.searchsorted(distinct, medians)
        else:
            from scipy.cluster.vq import kmeans2  # (here: only clustering needs scipy)

            centres, labels = kmeans2(medians, self.k, seed=np.random.default_rng(0), minit="++")
        order = np.argsort(centres)  # class 0: the shortest delays
        rank = np.empty(len(centres), dtype=int)
        rank[order] = np.arange(len(centres))
        default = int(rank[np.argmin(np.abs(centres - np.median(logs)))])
        assignment = [default] * len(self.fine)
        for cell, label in zip(populated.tolist(), labels.tolist(), strict=True):
            assignment[cell] = int(rank[label])
        self.assignment = assignment
        self.fitted = True


class ClusteredQBETS(QBETS):
    """:class:`market.core.qbets.QBETS` whose classes are refitted by clustering as delays arrive.

    Args:
        k: classes (ours: 4).
        refit_every: delays between fits.
        window: delays a fit looks at (the most recent).
        min_cell: delays a cell needs to be clustered on its own.
        (the rest as :class:`market.core.qbets.QBETS`)
    """

    def __init__(
        self,
        quantile: float = 0.95,
        confidence: float = 0.95,
        k: int = 4,
        refit_every: int = 2000,
        window: int = 20000,
        min_cell: int = 20,
        alpha: float = 0.01,
        min_run: int = 3,
        time_scale: float = 1.0,
    ) -> None:
        classes = ClusteredClasses(k)
        super().__init__(quantile, confidence, JobClasses.single(), alpha, min_run, time_scale)
        self.classes = classes  # type: ignore[assignment]
        self._params = (alpha, min_run)
        self.histories = [self._history() for _ in range(k)]
        self.refit_every, self.min_cell = refit_every, min_cell
        self._log: deque[tuple[int, float]] = deque(maxlen=window)
        self.refits = 0
        self.seen = 0

    def _history(self) -> DelayHistory:
        return DelayHistory(self.quantile, self.confidence, *self._params)

    def observe(self, nodes: int, walltime: float, delay: float) -> None:
        """Learn a delay; refit the classes every ``refit_every`` delays."""
        cell = self.classes.cell(nodes, walltime * self.time_scale)
        self._log.append((cell, delay))
        self.histories[self.classes.assignment[cell]].add(delay)
        self.pooled.add(delay)
        self.seen += 1
        if self.seen % self.refit_every == 0:
            self.refit()

    def refit(self) -> None:
        """Cluster the cells on the window and rebuild the class histories from it."""
        cells = np.fromiter((c for c, _ in self._log), dtype=np.int64, count=len(self._log))
        delays = np.fromiter((d for _, d in self._log), dtype=float, count=len(self._log))
        self.classes.fit(cells, delays, self.min_cell)
        histories = [self._history() for _ in range(self.classes.k)]
        for cell, delay in self._log:
            histories[self.classes.assignment[cell]].add(delay)
        self.histories = histories
        self.refits += 1
