"""``gridmarket --version`` and ``--help`` need neither Mesa nor pandas: each command imports what
it runs when it runs (the command line answers at once; the speed is a benchmark's, this checks
what is imported, in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

HEAVY = ("mesa", "pandas", "numpy", "scipy", "pyarrow", "pydantic", "market.sim")

PROBE = """
import json, sys
from market.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def imported_by(*argv: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["run", "--help"]])
def test_version_and_help_import_no_heavy_package(argv):
    modules = imported_by(*argv)
    assert "market.cli.main" in modules  # the probe ran the command line
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY))
    assert heavy == [], f"gridmarket {' '.join(argv)} imported {heavy[:5]}"


def test_a_bad_scenario_is_still_one_line_after_the_lazy_imports(tmp_path, capsys):
    from market.cli.main import main

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nclients: 3\n")
    assert main(["run", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gridmarket: error: ") and err.count("\n") == 1


def test_the_script_ends_at_once_after_a_run_with_its_output_complete():
    # As the console script (no argv): the output is flushed, then the process ends without the
    # interpreter's teardown (the atexit hook below never runs).
    script = (
        "import atexit, sys; atexit.register(lambda: print('teardown', file=sys.stderr)); "
        "from market.cli.main import main; sys.exit(main())"
    )
    argv = ["run", "profit/default", "--set", "clients.0.workload.jobs=20", "--format", "csv"]
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    assert done.returncode == 0 and "teardown" not in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("variant,seed,provider") and len(lines) == 1 + 8  # 8 variants


def test_the_model_imports_no_scenario_machinery_nor_scipy_stats():
    # A model script pays for Mesa (which imports pandas and scipy.spatial) and the model;
    # validating a scenario (pydantic, YAML) is the scenario's import, and scipy.stats is
    # imported where a forecast or QBETS needs it.
    probe = (
        "import json, sys, mesa; mesa_only = set(sys.modules); from market import GridMarket; "
        "print(json.dumps(sorted(set(sys.modules) - mesa_only)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    modules = set(json.loads(done.stdout))
    assert "market.sim.model" in modules
    assert {m.split(".")[0] for m in modules} == {"market", "agents"}


def test_a_built_in_command_reads_no_package_metadata_and_help_lists_the_plugins(monkeypatch):
    from market.cli import main as cli_main
    from market.cli import version as cli_version

    read = []
    monkeypatch.setattr(cli_main, "plugins", lambda: read.append("plugins") or {})
    monkeypatch.setattr(cli_version, "version", lambda: read.append("version") or "9.9")
    assert cli_main.main(["scenarios", "profit"]) == 0
    assert read == []  # neither the plugins' entry points nor the version looked up
    with pytest.raises(SystemExit):
        cli_main.main(["--version"])
    assert read == ["plugins", "version"]  # (a command line not naming a built-in first)
    monkeypatch.undo()
    parser = cli_main._parser()  # every command, plugins' too, as --help lists them
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert "dashboard" in commands and set(cli_main.BUILT_IN) <= set(commands)


def test_version_prints_the_installed_version_as_argparse_would(capsys):
    from market.cli.main import main
    from market.cli.version import version

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"gridmarket {version()}\n"
