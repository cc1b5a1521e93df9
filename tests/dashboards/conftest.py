"""Fixtures of the dashboard tests: the default scenario, small set-ups and a registry, and the
helpers that call the callbacks as the browser does and read what they send back."""

from __future__ import annotations

import contextlib
import copy
import itertools
import os
from pathlib import Path

import pytest
import yaml

from dashboards import served_scenarios
from dashboards.app import DEFAULT_SCENARIO
from dashboards.callbacks import Callbacks
from dashboards.session import Session
from dashboards.setup import Setup
from dashboards.tab_sessions import TabSessions
from market.inputs.scenario import load
from tests.conftest import ROOT, synthetic_swf

DEFAULT = str(DEFAULT_SCENARIO)
SID = "tab-aaaaaaaa"
OTHER = "tab-bbbbbbbb"
_SERVED: list[Path] = []  # the trace folder the dashboard serves in these tests
_NAMES = itertools.count()


@contextlib.contextmanager
def serving_traces(folder: Path):
    """While open, ``folder`` is a trace folder the dashboard serves (on ``$GRIDMARKET_TRACES``)
    and the one :func:`served_swf` writes to."""
    old = os.environ.get("GRIDMARKET_TRACES")
    os.environ["GRIDMARKET_TRACES"] = os.pathsep.join(filter(None, [str(folder), old]))
    _SERVED.append(folder)
    try:
        yield folder
    finally:
        _SERVED.remove(folder)
        if old is None:
            del os.environ["GRIDMARKET_TRACES"]
        else:
            os.environ["GRIDMARKET_TRACES"] = old


@pytest.fixture(scope="session", autouse=True)
def served_traces(tmp_path_factory):
    """A trace folder the dashboard serves: a scenario the dashboard runs may name only traces
    of its trace and scenario folders."""
    with serving_traces(tmp_path_factory.mktemp("served-traces")) as folder:
        yield folder


def served_swf(**kw) -> Path:
    """A synthetic SWF trace (tests.conftest.synthetic_swf) in the served trace folder."""
    return synthetic_swf(_SERVED[-1] / f"t{next(_NAMES)}.swf", **kw)


def small(policies=("FirstProfit", "LJF", "SJF"), jobs=30, **kw) -> Setup:
    """The default scenario with three policies and a short job stream."""
    params = (("jobs", jobs), *kw.pop("params", ()))
    return Setup(DEFAULT, tuple(policies), params=params, **kw)


def qops_file(folder: Path, name: str = "sdsc_load", jobs: int = 60) -> str:
    """``scenarios/qops/<name>.yaml`` on a synthetic 16-processor trace of ``jobs`` jobs,
    sampled every hour, written to ``folder`` and allowed in the dashboard (no trace needed)."""
    trace = served_swf(n=jobs, procs=16, max_gap=300)
    scenario = load(ROOT / f"scenarios/qops/{name}.yaml").with_overrides(
        {"clients.0.workload.trace": str(trace), "resource_providers.0.capacity": 16,
         "clients.0.workload.first_jobs": jobs, "sample_interval": 1.0}
    )  # fmt: skip
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(scenario.model_dump(mode="json", exclude_none=True)))
    served_scenarios.allow(str(path))
    return str(path)


@pytest.fixture
def session() -> Session:
    return Session(SID, small())


@pytest.fixture
def registry() -> TabSessions:
    return TabSessions(lambda: small())


@pytest.fixture
def callbacks(registry) -> Callbacks:
    return Callbacks(registry, [("profit/default.yaml", DEFAULT)])


def text(component) -> str:
    """All the text inside a Dash component tree."""
    if component is None:
        return ""
    if isinstance(component, str | int | float):
        return str(component)
    if isinstance(component, list | tuple):
        return " ".join(text(c) for c in component)
    return text(getattr(component, "children", None))


def apply_extend(figure: dict, payload: list) -> dict:
    """What ``Plotly.extendTraces`` does with a ``dcc.Graph.extendData`` payload."""
    figure = copy.deepcopy(figure)
    update, indices = payload
    for k, index in enumerate(indices):
        for key, values in update.items():
            figure["data"][index][key] = figure["data"][index][key] + values[k]
    return figure


def control(callbacks, trigger, sid=SID, **kw):
    args = {
        "speed": 2,
        "until": None,
        "scenario_path": DEFAULT,
        "setup_values": None,
        "setup_ids": None,
        "param_values": None,
        "param_ids": None,
        "nudge": 0,
    }
    args.update(kw)
    return callbacks.control(trigger, sid, *args.values())


def panel(policies=("FirstProfit", "LJF"), mode="parallel", pool="own", **params):
    """The set-up panel's values as the control callback receives them."""
    setup_ids = [{"type": "setup", "name": n} for n in ("mode", "pool", "policies")]
    values = {"mean_interarrival": 0.15, "price": 3.0, "capacity": 10, "jobs": 30}
    values.update(params)
    values = {"sigma": 0.0, "risk_bound": None} | values
    values |= {"seed": values.get("seed", 1)}
    return {
        "setup_values": [mode, pool, list(policies)],
        "setup_ids": setup_ids,
        "param_values": list(values.values()),
        "param_ids": [{"type": "param", "name": n} for n in values],
    }
