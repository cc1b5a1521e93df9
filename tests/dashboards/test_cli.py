"""``gridmarket dashboard`` (and its alias ``python -m dashboards``): one server, one set of
flags; a bad argument is one line on stderr and exit status 2, before anything is served."""

from __future__ import annotations

import pytest

from dashboards import app as app_module
from dashboards.__main__ import main as module_main
from market.cli.main import main


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--port", "70000"], "--port: 70000 is out of range"),
        (["--port", "0"], "--port: 0 is out of range"),
        (["--scenario", "no/such/scenario.yaml"], "no/such/scenario.yaml: no such scenario"),
        (["--set", "nonsense"], "--set: 'nonsense' is not of the form key=value"),
        (["--set", "clients.0.workload.jobs=-3"], "clients.0.workload.jobs"),
        (["--set", "seed=" + "9" * 5000], "seed"),
        (["--host", "999.1.1.1"], "--host: cannot serve on '999.1.1.1'"),
        (["a.yaml", "--scenario", "b.yaml"], "give the scenario once"),
    ],
)
@pytest.mark.parametrize("entry", ["gridmarket", "python -m dashboards"])
def test_bad_arguments_are_one_line(entry, argv, words, capsys, monkeypatch):
    served = []
    monkeypatch.setattr(app_module, "serve", lambda *a, **k: served.append(a))
    status = main(["dashboard", *argv]) if entry == "gridmarket" else module_main(argv)
    err = capsys.readouterr().err
    assert status == 2 and not served
    assert err.startswith("gridmarket: error: ") and words in err and err.count("\n") == 1


def test_one_set_of_flags_reaches_the_server(monkeypatch):
    served = []
    monkeypatch.setattr(app_module, "serve", lambda *args: served.append(args))
    argv = ["--scenario", "market/entry", "--set", "clients.0.workload.jobs=50", "--port", "8123"]
    assert module_main(argv) == 0
    assert served == [("127.0.0.1", 8123, "market/entry", {"clients.0.workload.jobs": 50})]
