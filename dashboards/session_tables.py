"""What a dashboard session shows beyond its time series, read from its models on demand: the
monitors (each line's latest point and its run's summary so far), the latest admission decisions,
the running and planned jobs of the Gantt chart, and the CSV exports. A mixin of
:class:`~dashboards.session.Session` (it reads the session's ``runs`` and ``lines``); pure
Python, no Dash.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

import pandas as pd

from market.results.provider_metrics import provider_summary
from market.results.result import RunResult

#: The time-series metrics recorded for every line, as the model's DataCollector names them.
METRICS = (
    "profit_rate",
    "profit",
    "revenue",
    "rent",
    "utilization",
    "queue_length",
    "accepted_pct",
    "running",
)


def _or_none(value: float) -> float | None:
    return None if math.isnan(value) else value


class SessionTables:
    """The monitors, decisions, Gantt rows and exports of a session (see the module
    docstring)."""

    def monitors(self) -> list[dict[str, Any]]:
        """The current values of every line: its run's state, told as the header tells the
        session's (a run not yet over is "playing" or "paused" with the session), the latest
        recorded point, and the run's summary metrics so far (market/results/provider_metrics.py:
        utilization
        over the arrival phase, as the CLI reports it, so a finished run keeps its own rather
        than the 0 % of an empty pool; the QoS metrics)."""
        summaries = {}
        for i, run in enumerate(self.runs):
            model = run.model
            for name, sp in model.service_providers.items():
                summaries[i, name] = provider_summary(model, sp)
        live = "playing" if self.playing else "paused"
        rows = []
        for line in self.lines:
            model = self.runs[line.run].model
            state = "stalled" if model.stalled else live if model.running else "finished"
            row = {"line": line.label, "colour": line.colour, "state": state, "time": line.t[-1]}
            row.update({m: _or_none(line.values[m][-1]) for m in METRICS})
            summary = summaries[line.run, line.provider]
            row["summary"] = summary
            row["utilization"] = _or_none(summary["utilization"] / 100.0)
            rows.append(row)
        return rows

    def decisions(self, limit: int = 15) -> list[dict[str, Any]]:
        """The latest admission decisions of every line, newest first."""
        rows = []
        for line, view in self._views(decisions=limit, planned=0):
            rows.extend({"line": line.label, **asdict(d)} for d in view.decisions)
        rows.sort(key=lambda r: (-r["time"], r["job"], r["line"]))
        return rows[:limit]

    def gantt(self, planned_limit: int = 40) -> list[dict[str, Any]]:
        """The running and planned jobs of every line: job, shape, start, predicted end and
        expected profit (value at the predicted end minus the rent to then)."""
        rows = []
        for line, view in self._views(decisions=0, planned=planned_limit):
            for job in [*view.running, *view.planned]:
                rows.append({"line": line.label, **asdict(job)})
        return rows

    def capacities(self) -> dict[str, int]:
        """The processors of each line's pool (the Gantt chart's rows), from the scenario."""
        sizes = {}
        for line in self.lines:
            spec = self.runs[line.run].model.spec
            sp = next(s for s in spec.service_providers if s.name == line.provider)
            rps = {rp.name: rp.capacity for rp in spec.resource_providers}
            name = sp.resource_provider or spec.resource_providers[0].name
            sizes[line.label] = rps.get(name, 0)
        return sizes

    def colours(self) -> dict[str, str]:
        """Each line's colour (its policy's)."""
        return {line.label: line.colour for line in self.lines}

    def _views(self, **options):
        """``(line, ProviderView)`` of every line, from a snapshot of each run."""
        snapshots = [run.model.snapshot(**options) for run in self.runs]
        for line in self.lines:
            views = snapshots[line.run].providers
            yield line, next(v for v in views if v.name == line.provider)

    def timeseries_frame(self) -> pd.DataFrame:
        """Every recorded point: one row per line and time."""
        self.record_qos()
        frames = []
        for line in self.lines:
            frame = pd.DataFrame({"time": line.t, **line.values})
            frame.insert(0, "provider", line.provider)
            frame.insert(0, "run", self.runs[line.run].label)
            frame.insert(0, "line", line.label)
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def jobs_frame(self) -> pd.DataFrame:
        """The per-job table of every run so far (see :class:`market.results.result.RunResult`)."""
        frames = [RunResult.from_model(run.model).jobs.assign(run=run.label) for run in self.runs]
        frame = pd.concat(frames, ignore_index=True)
        return frame[["run", *[c for c in frame if c != "run"]]]
