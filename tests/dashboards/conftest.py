"""Fixtures of the dashboard tests: the default scenario, small set-ups and a registry."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dashboards import scenario_files
from dashboards.app import DEFAULT_SCENARIO
from dashboards.callbacks import Callbacks
from dashboards.registry import Registry
from dashboards.session import Session
from dashboards.setup import Setup
from market.inputs.scenario import load
from tests.conftest import ROOT, synthetic_swf

DEFAULT = str(DEFAULT_SCENARIO)
SID = "tab-aaaaaaaa"
OTHER = "tab-bbbbbbbb"


def small(policies=("FirstProfit", "LJF", "SJF"), jobs=30, **kw) -> Setup:
    """The default scenario with three policies and a short job stream."""
    params = (("jobs", jobs), *kw.pop("params", ()))
    return Setup(DEFAULT, tuple(policies), params=params, **kw)


def qops_file(folder: Path, name: str = "sdsc_load", jobs: int = 60) -> str:
    """``scenarios/qops/<name>.yaml`` on a synthetic 16-processor trace of ``jobs`` jobs,
    sampled every hour, written to ``folder`` and allowed in the dashboard (no trace needed)."""
    trace = synthetic_swf(folder / "t.swf", n=jobs, procs=16, max_gap=300)
    scenario = load(ROOT / f"scenarios/qops/{name}.yaml").with_overrides(
        {"clients.0.workload.trace": str(trace), "resource_providers.0.capacity": 16,
         "clients.0.workload.first_jobs": jobs, "sample_interval": 1.0}
    )  # fmt: skip
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(scenario.model_dump(mode="json", exclude_none=True)))
    scenario_files.allow(str(path))
    return str(path)


@pytest.fixture
def session() -> Session:
    return Session(SID, small())


@pytest.fixture
def registry() -> Registry:
    return Registry(lambda: small())


@pytest.fixture
def callbacks(registry) -> Callbacks:
    return Callbacks(registry, [("profit/default.yaml", DEFAULT)])
