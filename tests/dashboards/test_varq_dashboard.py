"""The VARQ page (dashboards/varq.py): its figures on a small run, from a tab's session."""

from __future__ import annotations

import yaml

from dashboards import served_scenarios
from dashboards.setup import AS_WRITTEN, Setup
from dashboards.varq import (
    DEFAULTS,
    VarqSession,
    draw,
    first_variant,
    queue_figure,
    success_figure,
    suits,
    trajectory_figure,
)
from market.inputs.scenario import load, validate
from tests.dashboards.conftest import SID, served_swf


def spec(trace) -> dict:
    return {
        "name": "varq-view",
        "service_providers": [],
        "clients": [],
        "batch_sites": [
            {"name": "site", "trace": str(trace), "varq": {"fraction": 0.3, "probability": 0.5}}
        ],
    }


def test_figures_of_a_varq_run(tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text(yaml.safe_dump(spec(served_swf(n=300, procs=16).name)))
    served_scenarios.allow(path)
    session = VarqSession(SID, Setup(str(path), (AS_WRITTEN,), overrides=tuple(DEFAULTS.items())))
    model = session.runs[0].model
    assert trajectory_figure(model)["data"] == []  # nothing asked yet
    session.advance_to(1e6)
    assert session.finished
    user = model.varq_users[0]
    _, _, asked, deadline, _ = user.latest
    drawn = trajectory_figure(model)
    trajectory = drawn["data"][0]
    assert trajectory["x"][0] == asked and trajectory["x"][-1] < deadline
    required = drawn["layout"]["shapes"][0]  # the dotted lines say what they are
    assert required["y0"] == user.required and required["label"]["text"] == "required 0.5"
    assert all(0.0 <= p <= 1.0 for p in trajectory["y"])
    success = success_figure(session)["data"]
    assert [t["name"] for t in success] == ["site/varq predicted", "site/varq observed"]
    assert all(p >= 50.0 for p in success[0]["y"])  # every reservation was predicted >= p
    waiting, busy = queue_figure(session)["data"]
    record = session.queues[0, "site"]
    assert max(busy["y"]) <= 16 and len(waiting["x"]) == len(record["t"])
    assert list(record["t"]) == sorted(record["t"]) and record["t"][1] - record["t"][0] == 1.0
    assert len(draw(session)) == 3


def test_the_page_shows_batch_sites_and_starts_with_one_variant():
    table4 = load("varq/table4")
    assert suits(table4) is None and suits(load("profit/default")).startswith("no batch site")
    assert first_variant(table4) == ("SDSC-SP2",)
    assert first_variant(validate(spec("x.swf"))) == (AS_WRITTEN,)


def test_a_market_of_batch_sites_only_is_refused_in_one_line_naming_the_mode(tmp_path):
    """VARQ's batch sites have no service provider to compete in one market: the live page's
    "competing service providers" mode says so (it was an IndexError), the run goes on."""
    from dashboards.session import Session
    from dashboards.setup import SetupError

    path = tmp_path / "v.yaml"
    two = spec(served_swf(n=50, procs=16).name) | {"variants": {"p": {}, "q": {"seed": 2}}}
    path.write_text(yaml.safe_dump(two))
    served_scenarios.allow(path)
    session = Session(SID, Setup(str(path), ("p", "q")))
    session.advance_to(2.0)
    try:
        session.reset(Setup(str(path), ("p", "q"), mode="market"))
    except SetupError as exc:
        assert exc.field == "mode"
        assert str(exc) == (
            "mode: 'p' has no service provider to compete in one market: compare the policies "
            "as parallel runs"
        )
    else:
        raise AssertionError("a market of no service provider was built")
    assert session.now == 2.0 and session.setup.mode == "parallel"
