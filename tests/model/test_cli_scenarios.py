"""`gridmarket scenarios` (each scenario, its description and traces, found or missing),
`gridmarket run --variant`, and the progress a run shows on a terminal (and not in a pipe)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time

import pytest
from rich.console import Console

from market.cli import scenarios as scenarios_cli
from market.cli.main import main
from market.cli.progress import RunProgress
from market.inputs.scenario_files import list_files
from market.inputs.traces import TraceNotFoundError
from tests.conftest import ROOT

SDSC = "SDSC-SP2-1998-4.2-cln.swf.gz"
CTC = "CTC-SP2-1996-3.1-cln.swf.gz"


def listing(capsys, *args) -> list[dict]:
    assert main(["scenarios", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_every_scenario_file_is_listed_with_its_description(capsys):
    entries = {e["name"]: e for e in listing(capsys)}
    files = {n.removesuffix(".yaml") for n, _ in list_files(ROOT / "scenarios")}
    assert files <= set(entries)
    assert all(entries[name]["description"] for name in files)
    default = entries["profit/default"]
    assert default["description"].startswith("Profit paper Table 1")
    assert default["traces"] == [] and default["missing"] == []
    assert entries["qops/sdsc_load"]["traces"] == [SDSC]
    assert entries["vqops/fig10_ctc"]["traces"] == [CTC]
    # a trace a variant switches to counts too (varq/table4's CTC-SP2 variant)
    assert entries["varq/table4"]["traces"] == [SDSC, CTC]


def test_a_missing_trace_is_marked_and_the_note_says_where_to_put_it(capsys, monkeypatch):
    def only_sdsc(name, scenario_dir=None):
        if name != SDSC:
            raise TraceNotFoundError(f"trace {name!r} not found")
        return ROOT / name

    monkeypatch.setattr("market.inputs.traces.resolve_trace", only_sdsc)
    entries = {e["name"]: e for e in listing(capsys, "qops")}
    assert set(entries) == {"qops/ctc_load", "qops/ctc_mixed", "qops/sdsc_load", "qops/sdsc_mixed"}
    assert entries["qops/ctc_load"]["missing"] == [CTC]
    assert entries["qops/sdsc_load"]["missing"] == []
    assert main(["scenarios", "qops"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"{CTC} (missing)" in out and f"{SDSC} (found)" in out
    assert f"1 trace(s) not found: {CTC}. Download them from the Parallel Workloads Archive" in out
    assert "GRIDMARKET_TRACES" in out


def test_a_scenario_without_a_description_shows_its_first_comment(tmp_path, monkeypatch, capsys):
    mine = tmp_path / "scenarios" / "mine"
    mine.mkdir(parents=True)
    (mine / "small.yaml").write_text("#\n# A small market of my own\nname: small\n")
    (mine / "broken.yaml").write_text("name: [\n")
    monkeypatch.chdir(tmp_path)
    entries = {e["name"]: e for e in listing(capsys, "mine")}
    assert entries["mine/small"]["description"] == "A small market of my own"
    assert entries["mine/broken"]["description"].startswith("(cannot be read:")
    assert main(["scenarios", "nowhere"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gridmarket: error: scenarios: no scenario in folder 'nowhere'")


def test_run_variant_runs_only_the_variants_named(capsys):
    argv = ["run", "profit/default", "--format", "json", "--set", "clients.0.workload.jobs=20"]
    assert main([*argv, "--variant", "SJF", "--variant", "LJF"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["variant"] for r in records] == ["LJF", "SJF"]  # in the file's order
    assert [r["scheduler"] for r in records] == ["ljf", "sjf"]
    assert main([*argv, "--variant", "EASY"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "--variant: profit/default has no variant 'EASY' (its variants: 'LJF', 'SJF'," in err
    assert main(["run", "market/competition", "--variant", "x"]) == 2
    assert "(it has no variants)" in capsys.readouterr().err


def test_a_run_in_a_pipe_shows_no_progress():
    argv = ["run", "profit/default", "--variant", "LJF", "--format", "csv"]
    proc = subprocess.run(
        [sys.executable, "-m", "market.cli.main", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and proc.stdout.startswith("variant,seed,")


class _Model:
    """What the progress reads of a running model."""

    time = 12.5
    arrivals = 1234


def test_progress_on_a_terminal_names_the_run_and_its_state():
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    with RunProgress(2, enabled=True, delay=0.0, console=console) as progress:
        progress.running("LJF")
        progress.watch(_Model())
        time.sleep(0.5)
        progress.running("SJF")
        time.sleep(0.5)
    shown = buffer.getvalue()
    assert "LJF" in shown and "t = 12.5 h, 1,234 jobs submitted" in shown
    assert "SJF" in shown and "1/2" in shown and "reading its workload" in shown


def test_progress_stays_quiet_when_disabled_or_short():
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True)
    with RunProgress(1, enabled=False, delay=0.0, console=console) as progress:
        progress.running("LJF")
        time.sleep(0.3)
    with RunProgress(1, enabled=True, delay=5.0, console=console) as progress:
        progress.running("LJF")  # ends long before the display would appear
    assert buffer.getvalue() == ""


@pytest.mark.parametrize("folder", ["profit", "profit/"])
def test_the_folder_filter_takes_a_trailing_slash(folder):
    names = [e.name for e in scenarios_cli.list_scenarios(folder)]
    assert names and all(n.startswith("profit/") for n in names)
