"""The paper pages (dashboards/vqops.py, dashboards/libra.py): hand-made curves, the figures of
small runs of the shipped scenarios (on synthetic traces, so no trace is needed), their last
points against the run summary, and one-line errors for a bad node or a bad override."""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace

import numpy as np
import pytest
import yaml

from dashboards import libra, served_scenarios, vqops
from dashboards.figures import colour as _colour
from dashboards.live_page import view_note
from dashboards.paper_session import ViewSession
from dashboards.setup import Setup, SetupError
from market.inputs.scenario import load
from market.results.result import RunResult
from market.sim.snapshot import cluster_shares
from tests.conftest import ROOT, require_trace
from tests.dashboards.conftest import served_swf

NODES = 16  # the synthetic traces' machine


def shipped(tmp_path, folder: str, jobs: dict, n: int) -> str:
    """The shipped ``scenarios/<folder>/sdsc.yaml`` on a synthetic 16-node trace of ``n`` jobs."""
    data = yaml.safe_load((ROOT / "scenarios" / folder / "sdsc.yaml").read_text())
    data["resource_providers"][0]["capacity"] = NODES
    workload = data["clients"][0]["workload"]
    workload["trace"] = str(served_swf(n=n, procs=NODES, max_gap=600))
    workload.update(jobs)
    path = tmp_path / f"{folder}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


def finish(session: ViewSession) -> ViewSession:
    session.advance_to(1e6)
    assert session.finished
    return session


def summary(session: ViewSession, label: str):
    run = next(r for r in session.runs if r.label == label)
    return RunResult.from_model(run.model).summary.iloc[0]


def last(trace) -> float:
    return next(v for v in reversed(trace["y"]) if v is not None)


# -- hand-made cases ------------------------------------------------------------------------
def test_node_traces_give_every_job_a_point_at_every_change_of_its_stay():
    history = [(0.0, {1: 0.5}), (1.0, {1: 0.5, 2: 0.25}), (3.0, {2: 0.25})]
    traces = libra.node_traces(history, now=4.0)
    assert traces[1] == ([0.0, 1.0, 3.0], [0.5, 0.5, 0.0])  # left at 3
    assert traces[2] == ([1.0, 3.0, 4.0], [0.25, 0.25, 0.25])  # still there now


def test_colours_are_fixed_per_policy():
    assert _colour("DVQoPS") != _colour("QoPS") and _colour("Libra") != _colour("LibraRisk")
    assert _colour("my policy") == _colour("my policy")


# -- the VQoPS/DVQoPS view ---------------------------------------------------------------------
def every_variant(path: str, session_type=ViewSession, **overrides) -> ViewSession:
    """A page's session of every variant of the scenario at ``path`` (allowed), with
    ``overrides``, as a new tab of its page starts it."""
    served_scenarios.allow(path)
    setup = Setup.default(path, overrides)
    return session_type("t-view", setup)


@pytest.fixture(scope="module")
def vqops_session(tmp_path_factory):
    path = shipped(tmp_path_factory.mktemp("vqops"), "vqops", {"first_jobs": 150}, n=160)
    session = every_variant(path, vqops.PAGE.factory, sample_interval=2.0)
    return finish(session)


def test_vqops_figures_have_a_series_per_variant_and_end_at_the_summary(vqops_session):
    session = vqops_session
    labels = ["QoPS", "VQoPS 0", "VQoPS 0.05", "VQoPS 0.1", "VQoPS 0.2", "VQoPS 0.4", "DVQoPS"]
    assert [line.label for line in session.lines] == labels
    _table, revenue, adaptive, classes = vqops.draw(session)
    assert [t["name"] for t in revenue["data"]] == labels
    assert [t["name"] for t in classes["data"]] == [x for lb in labels for x in (lb, lb)]
    for label, rev, urgent, normal in zip(
        labels, revenue["data"], classes["data"][::2], classes["data"][1::2], strict=True
    ):
        row = summary(session, label)
        assert last(rev) == pytest.approx(row.revenue)
        assert last(urgent) == pytest.approx(row.urgent_accepted_pct)
        assert last(normal) == pytest.approx(row.normal_accepted_pct)
        assert rev["line"]["color"] == _colour(label)
    # the OC-Factor and window: DVQoPS only, from its candidates
    assert [(t["name"], t["xaxis"]) for t in adaptive["data"]] == [
        ("DVQoPS", "x"),
        ("DVQoPS", "x2"),
    ]
    assert set(adaptive["data"][0]["y"]) <= {0.0, 0.05, 0.1, 0.2, 0.4}
    assert set(adaptive["data"][1]["y"]) <= {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0}
    rows = vqops.summary_rows(session, vqops._outcomes(session))
    assert rows[0]["gain_pct"] == 0.0 and rows[2]["oc_factor"] == 0.05
    assert math.isnan(rows[0]["oc_factor"])  # QoPS has none


def test_the_view_session_records_dvqops_parameters_at_each_sample(vqops_session):
    session = vqops_session
    dvq = session.lines[-1]
    assert len(dvq.values["oc_factor"]) == len(dvq.t) == len(dvq.values["revenue"])
    assert np.diff(dvq.t)[:-1] == pytest.approx(2.0)  # the sample interval asked for
    frame = session.timeseries_frame()
    assert {"oc_factor", "rollback_window"} <= set(frame.columns)


def test_a_view_without_dvqops_says_so(tmp_path):
    path = shipped(tmp_path, "vqops", {"first_jobs": 30}, n=40)
    session = every_variant(path, vqops.PAGE.factory)
    session.reset(Setup(session.setup.scenario, ("QoPS",), overrides=session.setup.overrides))
    fig = vqops.adaptive_figure(session)
    assert fig["data"] == [] and "no adaptive" in fig["layout"]["annotations"][-1]["text"]


# -- the Libra view ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def libra_app(tmp_path_factory):
    path = shipped(tmp_path_factory.mktemp("libra"), "libra", {"last_jobs": 150}, n=160)
    overrides = {**libra.DEFAULTS, "clients.0.workload.arrival_delay_factor": 0.5}
    session = every_variant(path, libra.PAGE.factory, **overrides)
    session.advance_to(10.0)
    midway = {k: cluster_shares(session.runs[k].model, "site") for k in range(2)}
    finish(session)
    return SimpleNamespace(gridmarket_session=session, midway=midway)


def test_libra_fulfilment_ends_at_the_summary(libra_app):
    session = libra_app.gridmarket_session
    message, fulfilled, _node = libra.draw(session, 3)
    assert message == ""
    labels = ["Libra", "LibraRisk", "EDF", "EDF (no admission control)"]
    assert [t["name"] for t in fulfilled["data"][::2]] == labels
    for label, pct, slow in zip(
        labels, fulfilled["data"][::2], fulfilled["data"][1::2], strict=True
    ):
        row = summary(session, label)
        assert last(pct) == pytest.approx(row.deadlines_fulfilled_pct)
        assert last(slow) == pytest.approx(row.mean_slowdown_fulfilled)
        assert pct["xaxis"] == "x" and slow["xaxis"] == "x2"


def test_node_shares_are_stacked_per_time_shared_variant(libra_app):
    session = libra_app.gridmarket_session
    assert libra.cluster_sizes(session) == [NODES]  # Libra and LibraRisk; EDF space-shares
    assert session.cluster_size(2) is None and cluster_shares(session.runs[2].model, "site") is None
    for node in range(NODES):
        libra_history = session.node_history[0][node]
        for _, state in libra_history:  # Libra: a node's total share never exceeds 1 (Eq. 2)
            assert sum(state.values()) <= 1 + 1e-9
        changes = [state for _, state in libra_history]
        assert all(a != b for a, b in itertools.pairwise(changes))  # changes only
    # the history holds what the cluster held at t = 10 (a sample time)
    for k in range(2):
        for node, state in enumerate(libra_app.midway[k]):
            at = [s for t, s in session.node_history[k][node] if t <= 10.0]
            assert at[-1] == state
    busiest = max(range(NODES), key=lambda n: len(session.node_history[0][n]))
    fig = libra.node_figure(session, busiest)
    jobs = {j for _, s in session.node_history[0][busiest] for j in s}
    libra_traces = [t for t in fig["data"] if t["xaxis"] == "x"]
    assert {t["name"] for t in libra_traces} == {f"job {j}" for j in jobs} and len(jobs) > 1
    assert all(t["stackgroup"] == "node0" and t["line"]["shape"] == "hv" for t in libra_traces)
    assert {t["xaxis"] for t in fig["data"]} <= {"x", "x2"}


@pytest.mark.parametrize(
    ("node", "words"),
    [
        (NODES, f"no node {NODES}: the clusters have nodes from 0 to {NODES - 1}"),
        (-1, "no node -1"),
        (2.5, "must be a whole number from 0 to 15, got 2.5"),
        (None, "enter a node number from 0 to 15"),
        ("x", "must be a whole number"),
        (True, "must be a whole number"),
    ],
)
def test_the_node_chooser_rejects_a_bad_node_in_one_line(libra_app, node, words):
    message, _, fig = libra.draw(libra_app.gridmarket_session, node)
    assert message.startswith("node: ") and words in message and "\n" not in message
    assert fig["layout"]["title"]["text"].startswith("<b>Node 0:")  # node 0 drawn meanwhile


def test_a_run_without_time_shared_nodes_has_no_node_to_choose(libra_app):
    session = libra_app.gridmarket_session
    edf = ViewSession(
        "t-edf",
        Setup(session.setup.scenario, ("EDF",), overrides=session.setup.overrides),
        shares=True,
    )
    assert libra.check_node(0, edf) == (
        "node: no variant of this run time-shares its nodes (Libra, LibraRisk)"
    )
    assert "no variant" in libra.node_figure(edf, 0)["layout"]["annotations"][-1]["text"]


# -- bad input ------------------------------------------------------------------------------
def test_a_bad_override_is_a_setup_error_naming_the_field(tmp_path):
    path = shipped(tmp_path, "libra", {"last_jobs": 40}, n=50)
    served_scenarios.allow(path)
    bad = Setup(path, ("Libra",), overrides=(("clients.0.workload.urgent_share", 2),))
    with pytest.raises(SetupError, match=r"^clients\.0\.workload\.urgent_share: "):
        ViewSession("t-bad", bad)


# -- the live page points to the views --------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "page"),
    [
        ("vqops/sdsc.yaml", "/vqops"),
        ("vqops/ctc.yaml", "/vqops"),
        ("libra/sdsc.yaml", "/libra"),
        ("libra/fig1_load.yaml", "/libra"),
        ("varq/table4.yaml", "/varq"),
        ("market/competition.yaml", "/market"),
        ("profit/default.yaml", None),
        ("qops/sdsc_load.yaml", None),
    ],
)
def test_each_paper_scenario_links_to_its_page(name, page):
    note = view_note(load(ROOT / "scenarios" / name))
    if page is None:
        assert note == []
    else:
        (hint,) = note
        assert hint.children[-1].href == page


def test_the_live_page_links_a_libra_scenario_to_its_page(callbacks):
    require_trace()  # (the scenario's setup reads its trace)
    path = str(ROOT / "scenarios" / "libra" / "sdsc.yaml")
    fields, message = callbacks.render_setup(path, "tab-aaaaaaaa")
    assert message == "" and "/libra" in str(fields[0]) and "own page" in str(fields[0])
    fields, _ = callbacks.render_setup(
        str(ROOT / "scenarios" / "profit" / "default.yaml"), "tab-aaaaaaaa"
    )
    assert "own page" not in str(fields)
