"""The VARQ view (dashboards/varq.py): its figures on a small run, and the app's layout."""

from __future__ import annotations

import yaml

from dashboards.varq import QueueSampler, create_app, success_figure, trajectory_figure
from market.inputs.scenario import validate
from market.sim.model import GridMarket
from tests.conftest import synthetic_swf


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
    model = GridMarket(validate(spec(synthetic_swf(tmp_path / "s.swf", n=300, procs=16))))
    sampler = QueueSampler()
    assert trajectory_figure(model).data == ()  # nothing asked yet
    while model.running:
        model.run_until(model.time + 24.0)
        sampler.sample(model)
    user = model.varq_users[0]
    _, _, asked, deadline, _ = user.latest
    trajectory = trajectory_figure(model).data[0]
    assert trajectory.x[0] == asked and trajectory.x[-1] < deadline
    assert all(0.0 <= p <= 1.0 for p in trajectory.y)
    success = success_figure(model).data
    assert [t.name for t in success] == ["site/varq predicted", "site/varq observed"]
    assert all(p >= 50.0 for p in success[0].y)  # every reservation was predicted >= p
    queue = sampler.figure().data
    assert max(queue[1].y) <= 16 and len(queue[0].x) == len(sampler.rows)


def test_the_app_builds_on_a_scenario_file(tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text(yaml.safe_dump(spec(synthetic_swf(tmp_path / "s.swf", n=50, procs=16))))
    app = create_app(path)
    ids = {c.id for c in app.layout.children if getattr(c, "id", None)}
    assert {"varq-trajectory", "varq-success", "varq-queue", "varq-tick"} <= ids
    assert app.gridmarket_model.running
