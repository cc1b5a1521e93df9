"""Fixtures of the dashboard tests: the default scenario, small set-ups and a registry."""

from __future__ import annotations

import pytest

from dashboards.app import DEFAULT_SCENARIO
from dashboards.callbacks import Callbacks
from dashboards.registry import Registry
from dashboards.session import Session
from dashboards.setup import Setup

DEFAULT = str(DEFAULT_SCENARIO)
SID = "tab-aaaaaaaa"
OTHER = "tab-bbbbbbbb"


def small(policies=("FirstProfit", "LJF", "SJF"), jobs=30, **kw) -> Setup:
    """The default scenario with three policies and a short job stream."""
    params = (("jobs", jobs), *kw.pop("params", ()))
    return Setup(DEFAULT, tuple(policies), params=params, **kw)


@pytest.fixture
def session() -> Session:
    return Session(SID, small())


@pytest.fixture
def registry() -> Registry:
    return Registry(lambda: small())


@pytest.fixture
def callbacks(registry) -> Callbacks:
    return Callbacks(registry, [("profit/default.yaml", DEFAULT)])
