"""The competing-market page (dashboards/market_view.py): its figures, and a markup changed
mid-run moving the shares."""

from __future__ import annotations

import pytest

from dashboards.market_view import (
    GRAPHS,
    PROVIDER_CHARTS,
    MarketSession,
    draw,
    provider_figure,
    suits,
    welfare_figure,
)
from dashboards.setup import AS_WRITTEN, Setup
from market.inputs.scenario import load
from market.results.result import RunResult
from market.sim.model import GridMarket
from tests.conftest import ROOT
from tests.dashboards.conftest import SID

ENTRY = str(ROOT / "scenarios" / "market" / "entry.yaml")


def _entry(jobs: int = 120) -> GridMarket:
    return GridMarket(load("market/entry").with_overrides({"clients.0.workload.jobs": jobs}))


def _session(jobs: int = 120) -> MarketSession:
    return MarketSession(
        SID, Setup(ENTRY, (AS_WRITTEN,), overrides=(("clients.0.workload.jobs", jobs),))
    )


def test_figures_of_a_market_run():
    session = _session()
    session.advance_to(1e6)
    assert session.finished
    share = provider_figure(session, *PROVIDER_CHARTS[0])["data"]
    assert [t["name"] for t in share] == ["a", "b", "entrant"]
    final = [t["y"][-1] for t in share]
    assert sum(final) == pytest.approx(100.0)
    entrant = share[2]
    assert all(
        y is None or y == 0 for x, y in zip(entrant["x"], entrant["y"], strict=True) if x < 12
    )
    welfare = welfare_figure(session)["data"]
    names = ["ra revenue", "rb revenue", "rc revenue", "client surplus"]
    assert sorted(t["name"] for t in welfare) == sorted(names)
    market = RunResult.from_model(session.runs[0].model).market.set_index("name").loc["market"]
    surplus = next(t for t in welfare if t["name"] == "client surplus")
    assert surplus["y"][-1] == pytest.approx(market.surplus)
    assert session.providers() == ["a", "b", "entrant"]
    options, *figures = draw(session)
    assert [o["value"] for o in options] == ["a", "b", "entrant"] and len(figures) == len(
        GRAPHS
    ) + 1


def test_raising_a_markup_mid_run_lowers_that_providers_share_from_then():
    # Same seed, same jobs; at hour 6 incumbent a raises its markup from 0.5 to 3 in one run.
    base, raised = _entry(), _entry()
    for model in (base, raised):
        model.run_until(6.0)
    placed_before = raised.service_providers["a"].accepted
    raised.set_markup("a", 3.0)
    with pytest.raises(ValueError, match="markup must be >= 0"):
        raised.set_markup("a", -1.0)
    with pytest.raises(ValueError, match="no pricing service provider named 'z'"):
        raised.set_markup("z", 1.0)
    base.run(), raised.run()
    after = [m.service_providers["a"].accepted - placed_before for m in (base, raised)]
    assert after[1] < after[0] / 2


def test_the_pages_markup_control_says_what_it_did_in_one_line():
    session = _session()
    session.advance_to(6.0)
    assert session.set_markup("a", "3") == "a: markup 3 from t = 6.0 h"
    session.advance_to(7.0)
    line = next(line for line in session.lines if line.provider == "a")
    assert line.values["markup"][-1] == pytest.approx(3.0)  # the snapshot's, from then on
    assert session.set_markup("z", 1) == "Choose a provider that prices by a markup."
    assert session.set_markup("a", "x") == "markup: enter a number"
    assert session.set_markup("a", -1) == "markup: must be a number >= 0"
    assert session.set_markup("a", float("inf")) == "markup: must be a number >= 0"


def test_the_page_shows_markets_only():
    assert suits(load("market/competition")) is None
    assert suits(load("profit/default")).startswith("not a market")
