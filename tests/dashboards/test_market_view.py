"""The market view (dashboards/market_view.py): its figures, and a markup changed mid-run moving
the shares."""

from __future__ import annotations

import pytest

from dashboards.market_view import PROVIDER_CHARTS, MarketRecorder, create_app, markup_options
from market.inputs.scenario import load
from market.sim.model import GridMarket


def _entry(jobs: int = 120) -> GridMarket:
    return GridMarket(load("market/entry").with_overrides({"clients.0.workload.jobs": jobs}))


def test_figures_of_a_market_run():
    model, recorder = _entry(), MarketRecorder()
    while model.running:
        model.run_until(model.time + 2.0)
        recorder.record(model.snapshot(jobs=False))
    share = recorder.provider_figure(*PROVIDER_CHARTS[0]).data
    assert [t.name for t in share] == ["a", "b", "entrant"]
    final = [t.y[-1] for t in share]
    assert sum(final) == pytest.approx(100.0)
    entrant = share[2]
    assert all(y != y or y == 0 for x, y in zip(entrant.x, entrant.y, strict=True) if x < 12)
    welfare = recorder.market_figure().data
    assert [t.name for t in welfare] == ["ra revenue", "rb revenue", "rc revenue", "client surplus"]
    market = model.result().market.set_index("name").loc["market"]
    assert welfare[3].y[-1] == pytest.approx(market.surplus)
    assert [o["value"] for o in markup_options(model)] == ["a", "b", "entrant"]


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


def test_the_app_builds_and_ticks():
    app = create_app("market/entry", hours=5.0)
    assert app.gridmarket_model.time == 0.0
    ids = {getattr(c, "id", None) for c in app.layout.children}
    assert {"market-clock", "market-welfare", "market-tick"} <= ids
