"""The package as a user installs it: a wheel built from the sources and
installed non-editable into a new venv runs a shipped scenario by name, lists the shipped
scenarios and reports its version, from a directory that has no ``scenarios/`` folder.

Offline and quick (a few seconds): the wheel is built from a copy of the sources with the
project venv's hatchling (``--no-build-isolation --no-deps --no-index``) and installed by the
project venv's pip into a venv without pip whose dependencies are the project venv's own (one
``.pth`` line), so nothing is downloaded.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "market", "agents", "dashboards", "envs", "scenarios")

pytestmark = [
    pytest.mark.packaging,
    pytest.mark.skipif(
        importlib.util.find_spec("hatchling") is None, reason="needs hatchling (the dev extra)"
    ),
]


def _run(*argv, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, **kwargs)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The bin/ folder of a new venv with the wheel installed (not editable)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    for name in SOURCES:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            src.mkdir(exist_ok=True)
            shutil.copy2(origin, src / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    offline = ["--no-deps", "--no-index", "--no-build-isolation"]
    built = _run(*pip, "wheel", *offline, "-w", str(tmp / "dist"), str(src))
    assert built.returncode == 0, built.stderr
    venv = tmp / "venv"
    made = _run(sys.executable, "-m", "venv", "--without-pip", str(venv))
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    purelib = _run(str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    deps = sysconfig.get_paths()["purelib"]  # this venv's packages (gridmarket is not one)
    Path(purelib.stdout.strip(), "_project_deps.pth").write_text(deps + "\n")
    wheel = next((tmp / "dist").glob("gridmarket-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "market/scenarios/profit/default.yaml" in names  # scenarios/, mapped as package data
    assert not [n for n in names if n.startswith(("tests/", "scenarios/"))]
    done = _run(*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel))
    assert done.returncode == 0, done.stderr
    return venv / "bin"


def test_an_installed_wheel_runs_shipped_scenarios_by_name(installed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = _run(
        str(installed / "python"),
        "-c",
        "import market, market.inputs.scenario_files as f; print(market.__file__); "
        "print(f.shipped_dir()); print(len(f.list_files(f.shipped_dir()))); "
        f"print(f.resolve({str(ROOT / 'scenarios' / 'profit' / 'default.yaml')!r})); "
        "from dashboards.app import DEFAULT_SCENARIO; from dashboards.served_scenarios import "
        "catalog; print(DEFAULT_SCENARIO.is_file(), len(catalog()))",
        cwd=tmp_path,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    module, shipped, count, by_path, dashboard_default, listed = where.stdout.split()
    assert dashboard_default == "True" and listed == count  # the dashboard finds them too
    assert by_path == str(ROOT / "scenarios" / "profit" / "default.yaml")  # paths still work
    venv = installed.parent
    assert Path(module).is_relative_to(venv), "the installed copy, not the checkout"
    assert Path(shipped) == Path(module).parent / "scenarios"
    assert int(count) == len(list((ROOT / "scenarios").rglob("*.yaml")))

    version = _run(str(installed / "gridmarket"), "--version", cwd=tmp_path, env=env)
    assert version.returncode == 0 and version.stdout.strip() == "gridmarket 0.1.0"

    argv = ["run", "profit/default", "--set", "clients.0.workload.jobs=20", "--format", "json"]
    ran = _run(str(installed / "gridmarket"), *argv, cwd=tmp_path, env=env)
    assert ran.returncode == 0, ran.stderr
    records = json.loads(ran.stdout)
    assert [r["variant"] for r in records][:2] == ["LJF", "SJF"]
    assert all(r["offered"] == 20 for r in records)


def test_an_installed_wheel_has_the_learning_environments(installed, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    script = (
        "import gymnasium as gym, envs; "
        "e = gym.make('gridmarket/Admission-v0', scenario='profit/default'); "
        "o, i = e.reset(seed=1); print(envs.__file__, i['job'])"
    )
    ran = _run(str(installed / "python"), "-c", script, cwd=tmp_path, env=env)
    assert ran.returncode == 0, ran.stderr
    module, job = ran.stdout.split()
    assert Path(module).is_relative_to(installed.parent) and job == "0"
