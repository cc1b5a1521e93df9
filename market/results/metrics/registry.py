"""The metric registry: every metric a run reports, one :class:`Metric` entry each.

An entry says what the metric is called (``name``, a short ``header`` for a terminal table, a
long ``label`` for figure axes), what it holds (``type``, ``unit``, ``decimals``), which tables
have it (``providers``: a row per service provider, the run summary; ``sites``: a row per batch
site or site user; ``market``: the market table; ``timeseries``: sampled while the run goes), in
which runs the run table shows it (``shown``, a predicate on the :class:`RunKind`), and how it is
computed (``compute``, from a :class:`market.results.metrics.provider_run.ProviderRun`; ``sample``,
the DataCollector reporter of the live value). Site figures are computed by the agents that hold
them (their result rows) and registered here for their names, types and headers.

Each family registers its own entries in its module of this package, in the order the tables
show them; the CLI tables, the sweep's metric list, the report's axis titles and the dashboard's
monitors read them from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

TABLES = ("providers", "sites", "market", "timeseries")


@dataclass(frozen=True)
class RunKind:
    """What a run's outputs show, decided from its summary
    (:func:`market.results.outputs.run_kind`).

    ``money``: some provider was paid or paid rent; ``rent``: some provider paid rent (else the
    profit is the revenue); ``qos``: jobs had deadlines; ``classes``: the workload has the VQoPS
    job classes; ``market``: more than one service provider competes."""

    money: bool
    rent: bool
    qos: bool
    classes: bool
    market: bool


def always(kind: RunKind) -> bool:
    return True


def never(kind: RunKind) -> bool:
    return False


@dataclass(frozen=True)
class Metric:
    """One metric: its names, what it holds, where it shows and how it is computed."""

    name: str
    family: str  # profit, qos, scheduling, value, dvqops, market, varq
    header: str  # at most 14 characters: a column of a 100-column terminal table
    label: str  # a figure's axis title, with its unit
    type: type = float  # int (counts), float, or str (a label column)
    unit: str = ""  # %, h, money, jobs, processors, ...
    decimals: int = 1  # in tables
    tables: tuple[str, ...] = ("providers",)
    shown: Callable[[RunKind], bool] = never  # in the run table, for a run of this kind
    priority: int = 2  # 1: kept longest when a table must lose columns to fit; 3: dropped first
    compute: Callable[[Any], Any] | None = None  # from a ProviderRun
    sample: Callable[[Any], float] | str | None = None  # the DataCollector reporter, per provider
    monitor: str | None = None  # the dashboard monitor's number format, if it is a monitor
    derive: Callable[[Any, Sequence[str]], Any] | None = None  # from a frame of runs (below)

    def __post_init__(self) -> None:
        if len(self.header) > 14:
            raise ValueError(f"metric {self.name}: header {self.header!r} is over 14 characters")
        unknown = set(self.tables) - set(TABLES)
        if unknown:
            raise ValueError(f"metric {self.name}: unknown tables {sorted(unknown)}")


class Registry:
    """The metrics by name, in the order they were registered."""

    def __init__(self) -> None:
        self._metrics: dict[str, Metric] = {}

    def register(self, *metrics: Metric) -> None:
        for metric in metrics:
            if metric.name in self._metrics:
                raise ValueError(f"metric {metric.name} is registered twice")
            self._metrics[metric.name] = metric

    def __getitem__(self, name: str) -> Metric:
        return self._metrics[name]

    def __contains__(self, name: object) -> bool:
        return name in self._metrics

    def __iter__(self) -> Iterator[Metric]:
        return iter(self._metrics.values())

    def get(self, name: str) -> Metric | None:
        return self._metrics.get(name)

    def of(self, table: str) -> list[Metric]:
        """The metrics of ``table``, in order."""
        return [m for m in self._metrics.values() if table in m.tables]

    def numeric(self, table: str) -> dict[str, type]:
        """``{name: int or float}`` of the numeric metrics of ``table``."""
        return {m.name: m.type for m in self.of(table) if m.type is not str}

    def derive(self, frame: Any, keys: Sequence[str] = ()) -> Any:
        """``frame`` (a DataFrame of runs: one row per run and provider) with every metric that
        compares runs (``derive``, e.g. VQoPS's revenue gain over the QoPS run of the same
        ``keys``) added where it applies to these runs."""
        for metric in self:
            if metric.derive is not None:
                values = metric.derive(frame, keys)
                if values is not None:
                    frame = frame.assign(**{metric.name: values.to_numpy()})
        return frame


#: The one registry; the family modules of this package fill it when the package is imported.
METRICS = Registry()
