"""A policy of the user's own, named in a scenario file: ``module:Class`` from a module outside
the project, or an entry point of an installed package, in every kind of policy field, through
``gridmarket run``, a two-process sweep, a local Dask cluster and the dashboard's loading; a bad
reference is one line naming the field."""

from __future__ import annotations

import base64
import json
import textwrap

import pandas as pd
import pytest
import yaml

from agents.policies import make_scheduler
from agents.policies.resolve import _installed
from dashboards.served_scenarios import add_upload, allow, load_scenario
from market import GridMarket
from market.cli.main import main
from market.experiments.results_store import load_results
from market.inputs.scenario import load

#: The user's module: a FirstProfit that runs no job on more than ``widest`` processors, an
#: accept-everything admission, a cost-plus pricing and an EDF cluster of its own.
MODULE = """
from agents.policies.admission import AcceptAll
from agents.policies.libra import EDF
from agents.policies.pricing import CostPlus
from agents.policies.profit import FirstProfit


class Narrow(FirstProfit):
    def __init__(self, widest: int = 2) -> None:
        super().__init__()
        if widest < 1:
            raise ValueError("widest must be >= 1")
        self.widest = widest

    def shapes(self, job):
        return tuple(n for n in job.shapes if n <= self.widest) or job.shapes[:1]


class Everything(AcceptAll):
    pass


class Dear(CostPlus):
    pass


class MyEDF(EDF):
    pass


class NotAPolicy:
    pass
"""


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """``userpolicies.py`` in a folder of its own, on the module path (as it would be when
    `gridmarket` runs from that folder)."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "userpolicies.py").write_text(MODULE)
    (folder / "broken.py").write_text("raise RuntimeError('not today')\n")
    monkeypatch.syspath_prepend(str(folder))
    return folder


def scenario_file(path, scheduler, jobs: int = 40, **extra) -> str:
    data = {
        "name": "mine",
        "resource_providers": [{"name": "rp", "capacity": 10, "price": 3.0}],
        "service_providers": [{"name": "sp", "scheduler": scheduler, **extra}],
        "clients": [{"name": "c", "workload": {"jobs": jobs}}],
    }
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_a_scheduler_of_ones_own_runs_from_the_command_line(user_module, tmp_path, capsys):
    spec = {"name": "userpolicies:Narrow", "widest": 1}
    path = scenario_file(tmp_path / "s.yaml", spec)
    jobs_out = tmp_path / "jobs.csv"
    assert main(["run", path, "--format", "json", "--jobs-out", str(jobs_out)]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["scheduler"] == "userpolicies:Narrow(widest=1)"
    ran = pd.read_csv(jobs_out)["processors"].dropna()
    assert len(ran) > 10 and set(ran) == {1}  # its rule: never wider than one processor
    wide = GridMarket(load(scenario_file(tmp_path / "w.yaml", "first_profit")), seed=1).run()
    assert wide.jobs["processors"].max() > 1  # (FirstProfit itself runs jobs wider)


def test_every_kind_of_policy_by_reference(user_module, tmp_path):
    planned = load(
        scenario_file(
            tmp_path / "s.yaml",
            "userpolicies:Narrow",
            admission="userpolicies:Everything",
            pricing={"name": "userpolicies:Dear", "markup": 0.5},
        )
    )
    result = GridMarket(planned, seed=2).run()
    jobs = result.jobs
    assert jobs["accepted"].all() and (jobs["reason"] == "accept-all").all()  # Everything's
    assert jobs["price"].notna().all() and (jobs["quote_markup"] == 0.5).all()  # Dear's markup
    data = yaml.safe_load((tmp_path / "s.yaml").read_text())
    data["service_providers"][0]["cluster"] = "userpolicies:MyEDF"
    data["clients"][0]["workload"] = {"jobs": 20}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(data))
    cluster = GridMarket(load(tmp_path / "c.yaml"), seed=2).run()
    assert cluster.summary["scheduler"][0] == "space_shared"  # EDF's own label


@pytest.mark.parametrize(
    ("field", "reference", "message"),
    [
        ("scheduler", "nowhere:Narrow", "no module named 'nowhere' on the Python path"),
        ("scheduler", "userpolicies:Wide", "userpolicies has no attribute 'Wide'"),
        ("scheduler", "userpolicies:NotAPolicy", "NotAPolicy is not a scheduler"),
        ("scheduler", "userpolicies:Everything", "Everything is not a scheduler"),
        ("admission", "userpolicies:Narrow", "Narrow is not an admission policy"),
        ("scheduler", "broken:Narrow", "importing broken failed: RuntimeError: not today"),
        ("scheduler", "userpolicies:", "give it as 'module:Class'"),
        ("scheduler", "narrowest", "unknown scheduler 'narrowest' (known: conservative,"),
        ("scheduler", {"name": "userpolicies:Narrow", "wide": 2}, "has no parameter 'wide'"),
        ("scheduler", {"name": "userpolicies:Narrow", "widest": 1.5}, "widest: Input should be"),
        ("scheduler", {"name": "userpolicies:Narrow", "widest": 0}, "widest must be >= 1"),
    ],
)
def test_a_bad_reference_is_one_line_naming_the_field(
    user_module, tmp_path, capsys, field, reference, message
):
    extra = {} if field == "scheduler" else {field: reference}
    path = scenario_file(tmp_path / "s.yaml", reference if field == "scheduler" else "ljf", **extra)
    assert main(["run", path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"gridmarket: error: {path}: service_providers.0.{field}: ")
    assert message in err


def test_a_two_process_sweep_imports_the_users_module(user_module, tmp_path, capsys):
    path = scenario_file(tmp_path / "s.yaml", {"name": "userpolicies:Narrow", "widest": 1})
    data = yaml.safe_load((tmp_path / "s.yaml").read_text())
    data["sweep"] = {"parameters": {"service_providers.0.scheduler.params.widest": [1, 3]}}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(data))
    out = tmp_path / "results"
    assert main(["sweep", path, "--workers", "2", "--out", str(out)]) == 0
    assert "on 2 local processes" in capsys.readouterr().out
    frame = load_results(out).set_index("service_providers.0.scheduler.params.widest")
    assert frame.loc[1, "mean_processors"] == 1.0
    assert frame.loc[3, "mean_processors"] > 1.0
    assert (frame["scheduler"].str.startswith("userpolicies:Narrow")).all()


def test_a_local_dask_cluster_imports_the_users_module(user_module, tmp_path, capsys):
    path = scenario_file(tmp_path / "s.yaml", {"name": "userpolicies:Narrow", "widest": 1}, 20)
    data = yaml.safe_load((tmp_path / "s.yaml").read_text())
    data["sweep"] = {"parameters": {"service_providers.0.scheduler.params.widest": [1, 2]}}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(data))
    out = tmp_path / "results"
    argv = ["sweep", path, "--scheduler", "local", "--workers", "2", "--out", str(out)]
    assert main(argv) == 0
    frame = load_results(out).set_index("service_providers.0.scheduler.params.widest")
    assert frame.loc[1, "mean_processors"] == 1.0 and frame["finished"].all()


def test_the_dashboard_loads_a_scenario_naming_ones_own_policy(user_module, tmp_path):
    # a file of the folders the dashboard serves (the operator's): the class is imported
    path = scenario_file(tmp_path / "s.yaml", {"name": "userpolicies:Narrow", "widest": 1})
    allow(path)  # as `gridmarket dashboard --scenario s.yaml` does
    scenario = load_scenario(str(path))
    assert scenario.service_providers[0].scheduler.name == "userpolicies:Narrow"
    assert GridMarket(scenario, seed=1).run().jobs["processors"].max() == 1
    # an upload (a browser's) may not make the server import a module: one line
    data = (tmp_path / "s.yaml").read_bytes()
    upload = "data:application/x-yaml;base64," + base64.b64encode(data).decode()
    with pytest.raises(ValueError, match=r"a policy of your own .* not from an upload"):
        load_scenario(add_upload("s.yaml", upload))


@pytest.fixture
def installed(user_module, tmp_path, monkeypatch):
    """A package "installed" as a dist-info directory on the module path, declaring
    ``narrow = userpolicies:Narrow`` in the ``gridmarket.policies`` entry-point group."""
    site = tmp_path / "site"
    info = site / "userpolicies-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: userpolicies\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent(
            """\
            [gridmarket.policies]
            narrow = userpolicies:Narrow
            not_a_policy = userpolicies:NotAPolicy
            """
        )
    )
    monkeypatch.syspath_prepend(str(site))
    _installed.cache_clear()
    yield site
    _installed.cache_clear()


def test_an_installed_entry_point_is_a_policy_by_its_name(installed, tmp_path, capsys):
    assert type(make_scheduler("narrow", widest=2)).__name__ == "Narrow"
    path = scenario_file(tmp_path / "s.yaml", {"name": "narrow", "widest": 1})
    jobs_out = tmp_path / "jobs.csv"
    assert main(["run", path, "--format", "json", "--jobs-out", str(jobs_out)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["scheduler"] == "narrow(widest=1)"
    assert set(pd.read_csv(jobs_out)["processors"].dropna()) == {1}
    bad = scenario_file(tmp_path / "b.yaml", "not_a_policy")
    assert main(["run", bad]) == 2
    err = capsys.readouterr().err
    assert "service_providers.0.scheduler: scheduler 'not_a_policy': NotAPolicy is not a " in err


def test_the_kind_of_a_policy_is_the_base_its_registered_ones_share():
    from agents.policies import ADMISSIONS, CLUSTERS, PRICINGS, SCHEDULERS, Admission, Scheduler
    from agents.policies.libra import ClusterPolicy
    from agents.policies.pricing import Pricing
    from agents.policies.resolve import kind_base

    assert kind_base(SCHEDULERS) is Scheduler
    assert kind_base(ADMISSIONS) is Admission
    assert kind_base(PRICINGS) is Pricing
    assert kind_base(CLUSTERS) is ClusterPolicy
