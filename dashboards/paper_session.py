"""The session of the market, VQoPS and Libra pages: a :class:`~dashboards.session.Session`
that also records at each sample the ``extra`` snapshot metrics of each line (DVQoPS's
``oc_factor`` and ``rollback_window``, a market's shares and markups; they go to the CSV export
too) and, with ``shares``, the jobs and shares on every node of each time-shared cluster (Yeo &
Buyya §3.1), kept per node only when they change. Pure Python (no Dash); the run loop and the
controls are the session's, this class only adds to :meth:`Session.on_sample`.
"""

from __future__ import annotations

from array import array

from dashboards.session import Session
from dashboards.setup import Setup
from market.sim.snapshot import cluster_shares

NodeState = dict[int, float]  # job id -> share, on one node


class ViewSession(Session):
    """A session recording ``extra`` snapshot metrics per line and, with ``shares``, the
    share history of every node of each time-shared cluster."""

    interval = 1.0  # wall-clock seconds between page updates (whole figures are redrawn)
    budget = 0.6  # wall-clock seconds of simulation per update (the session's share of it)

    def __init__(
        self, sid: str, setup: Setup | None, extra: tuple[str, ...] = (), shares: bool = False
    ) -> None:
        self.extra = tuple(extra)
        self.shares = shares
        #: line index -> per node, ``[(time, {job id: share}), ...]`` at each change
        self.node_history: dict[int, list[list[tuple[float, NodeState]]]] = {}
        super().__init__(sid, setup)

    def reset(self, setup: Setup) -> None:
        """As :meth:`Session.reset`, with the recorded shares dropped too."""
        old, self.node_history = self.node_history, {}
        try:
            super().reset(setup)
        except Exception:
            self.node_history = old
            raise

    def on_sample(self, runs: list[int]) -> None:
        """Record the ``extra`` metrics and the node shares of the runs just sampled."""
        for i in runs:
            model = self.runs[i].model
            metrics = {}
            if self.extra:
                views = model.snapshot(jobs=False).providers
                metrics = {view.name: view.metrics for view in views}
            for k, line in enumerate(self.lines):
                if line.run != i:
                    continue
                for name in self.extra:
                    value = metrics[line.provider].get(name, float("nan"))
                    line.values.setdefault(name, array("d")).append(value)
                if self.shares:
                    self._record_shares(k, line.t[-1], cluster_shares(model, line.provider))

    def _record_shares(self, k: int, t: float, nodes: list[NodeState] | None) -> None:
        if nodes is None:  # not time-shared (EDF)
            return
        history = self.node_history.setdefault(k, [[] for _ in nodes])
        for node, state in zip(history, nodes, strict=True):
            if not node or node[-1][1] != state:
                node.append((t, state))

    def cluster_size(self, k: int) -> int | None:
        """The nodes of line ``k``'s time-shared cluster (None: it has none)."""
        history = self.node_history.get(k)
        return None if history is None else len(history)
