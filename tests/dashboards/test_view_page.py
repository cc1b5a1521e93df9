"""The frame of the view pages (dashboards/view_page.py), called directly: every control a page
shows acts on the tab's own session; a new scenario resets the tab to it at once; a page whose
default scenario cannot run says why and still serves."""

from __future__ import annotations

import pytest
from dash.exceptions import PreventUpdate

from dashboards import market_view, varq, view_page, vqops
from dashboards.app import create_app
from dashboards.setup import AS_WRITTEN
from tests.conftest import ROOT
from tests.dashboards.conftest import OTHER, SID
from tests.dashboards.test_paper_views import shipped

COMPETITION = str(ROOT / "scenarios" / "market" / "competition.yaml")
ENTRY = str(ROOT / "scenarios" / "market" / "entry.yaml")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("views")
    vq = shipped(folder, "vqops", {"first_jobs": 40}, n=50)
    missing = folder / "missing.yaml"
    missing.write_text(
        "name: needs-a-trace\nservice_providers: []\nclients: []\n"
        "batch_sites: [{name: s, trace: NOT-DOWNLOADED.swf.gz}]\n"
    )
    return create_app(page_scenarios={"market": ENTRY, "vqops": vq, "varq": str(missing)})


def control(app, view, trigger, sid=SID, speed=None, path=None, policies=None, seed=None, *args):
    state = app.gridmarket_state
    return view_page.control(view, state, trigger, sid, speed, path, policies, seed, 0, *args)


def session_of(app, key, sid=SID):
    return app.gridmarket_state.sessions[key].get(sid)


def test_start_pause_speed_and_reset_act_on_the_tabs_own_session(app):
    view = market_view.VIEW
    assert control(app, view, "market-start")[:2] == (1, "")
    assert session_of(app, "market").playing and not session_of(app, "market", OTHER).playing
    control(app, view, "market-speed", speed=6)
    session = session_of(app, "market")
    assert session.speed == 6.0
    session.update()
    assert session.now == pytest.approx(6.0)
    control(app, view, "market-pause")
    assert not session.playing
    # reset: the panel's policies and seed
    _, message, rev = control(app, view, "market-reset", path=ENTRY, seed=7)
    assert message == "" and rev == 1 and session.now == 0.0
    assert session.runs[0].model.spec.seed == 7 and dict(session.setup.overrides)["seed"] == 7
    _, message, _ = control(app, view, "market-reset", path=ENTRY, policies=[])
    assert message == "Not reset: policies: tick at least one"
    with pytest.raises(PreventUpdate):
        control(app, view, None)


def test_a_new_scenario_resets_the_tab_to_it_at_once(app):
    view = market_view.VIEW
    control(app, view, "market-start")
    session_of(app, "market").update()
    _, message, rev = control(app, view, "market-scenario", path=COMPETITION)
    session = session_of(app, "market")
    assert (message, rev) == ("", 1)
    assert session.setup.scenario == COMPETITION and session.setup.policies == (AS_WRITTEN,)
    assert session.now == 0.0 and not session.playing
    assert [line.label for line in session.lines] == ["plus", "opp", "urgent"]
    with pytest.raises(PreventUpdate):  # the page load setting the list to the tab's own
        control(app, view, "market-scenario", path=COMPETITION)


def test_the_market_pages_markup_control_works(app):
    control(app, market_view.VIEW, "market-scenario", path=ENTRY)
    session = session_of(app, "market")
    session.advance_to(2.0)
    _, message, _ = control(
        app, market_view.VIEW, "market-set", SID, None, None, None, None, "a", 2
    )
    assert message == "a: markup 2 from t = 2.0 h"
    _, message, _ = control(
        app, market_view.VIEW, "market-set", SID, None, None, None, None, None, 2
    )
    assert message == "Choose a provider that prices by a markup."


def test_the_vqops_page_runs_every_variant_with_its_finer_samples(app):
    session = session_of(app, "vqops")
    assert len(session.runs) == 7 and session.sample_interval == 1.0  # the page's own
    assert session.speed == 24.0


def test_a_page_whose_default_cannot_run_serves_and_says_why(app):
    session = session_of(app, "varq")
    assert session.runs == [] and session.setup is None
    assert session.message.startswith("Nothing to run: ")
    assert "NOT-DOWNLOADED.swf.gz" in session.message
    assert "trace" in session.message
    assert varq.draw(session)  # empty figures, no error
    assert (
        control(app, varq.VIEW, "varq-start")[1]
        == "Nothing to run: choose a scenario the dashboard can run."
    )
    assert session.status()["state"] == "nothing to run"


def test_a_scenario_a_page_cannot_show_is_refused_in_one_line(app):
    path = str(ROOT / "scenarios" / "profit" / "default.yaml")
    _, message, _ = control(app, vqops.VIEW, "vqops-scenario", path=path)
    assert message == (
        "Not loaded: default.yaml: not a VQoPS scenario (no priced_swf workload): open it on "
        "the live page"
    )
    layout = vqops.PAGE.layout(app.gridmarket_state)
    assert "profit/default.yaml" not in str(layout)  # the list offers what the page shows


def test_a_bad_seed_is_refused_on_reset_naming_the_field(app):
    view = market_view.VIEW
    control(app, view, "market-reset", path=ENTRY, seed=5)
    session = session_of(app, "market")
    session.advance_to(2.0)
    refused = {
        "": "Not reset: seed: enter a whole number, 0 or more",  # empty, or unreadable ("1e")
        -1: "Not reset: seed: Input should be greater than or equal to 0",
        1.5: "Not reset: seed: Input should be a valid integer, got a number with a fractional "
        "part",
    }
    for seed, said in refused.items():
        assert control(app, view, "market-reset", path=ENTRY, seed=seed)[1] == said
        assert session.now == 2.0 and dict(session.setup.overrides)["seed"] == 5  # run goes on
    # the field lets the browser send what was typed (a min or step would make it empty)
    fields = view_page.setup_fields(view, app.gridmarket_state, ENTRY, session)
    seed_input = next(f for f in fields if getattr(f, "id", {}).get("name") == "seed")
    assert getattr(seed_input, "min", None) is None and getattr(seed_input, "step", None) is None
    assert seed_input.value == 5


def test_an_unreadable_seed_sent_by_the_browser_is_refused_over_http(app):
    """A seed field the browser cannot read ("1e", or empty) arrives as null: Reset says so."""
    control(app, market_view.VIEW, "market-reset", path=ENTRY, seed=5)
    key = next(k for k in app.callback_map if "..market-msg.children.." in k)
    spec = app.callback_map[key]
    seed_id = {"name": "seed", "page": "market", "type": "view-field"}

    def value(d):
        if d["id"].startswith("{"):  # the set-up fields (ALL): the seed only, as null
            sent = None if d["property"] == "value" else seed_id
            return [{"id": seed_id, "property": d["property"], "value": sent}]
        return {"sid": SID, "market-reset": 1, "market-scenario": ENTRY}.get(d["id"])

    body = {
        "output": key,
        "outputs": [
            {"id": part.split(".")[0], "property": part.split(".")[1]}
            for part in key.strip(".").split("...")
        ],
        "inputs": [{**d, "value": value(d)} for d in spec["inputs"]],
        "state": [
            value(d) if d["id"].startswith("{") else {**d, "value": value(d)} for d in spec["state"]
        ],
        "changedPropIds": ["market-reset.n_clicks"],
    }
    response = app.server.test_client().post("/_dash-update-component", json=body)
    assert response.status_code == 200
    said = response.get_json()["response"]["market-msg"]["children"]
    assert said == "Not reset: seed: enter a whole number, 0 or more"
    assert dict(session_of(app, "market").setup.overrides)["seed"] == 5


def test_any_markup_of_zero_or_more_is_set_and_a_negative_one_refused(app):
    control(app, market_view.VIEW, "market-scenario", path=COMPETITION)
    session = session_of(app, "market")

    def set_markup(markup):
        args = (SID, None, None, None, None, "plus", markup)
        return control(app, market_view.VIEW, "market-set", *args)[1]

    assert set_markup(0.33) == "plus: markup 0.33 from t = 0.0 h"
    assert session.runs[0].model.service_providers["plus"].pricing.markup == 0.33
    assert set_markup(-1) == "markup: must be a number >= 0"
    assert set_markup(None) == "markup: enter a number"
    # the field lets the browser send what was typed (a min or step would make -1, 0.33 empty)
    markup = next(c for c in market_view._tools()[0].children if c.id == "market-markup")
    assert getattr(markup, "min", None) is None and getattr(markup, "step", None) is None
