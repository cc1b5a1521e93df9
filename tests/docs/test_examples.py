"""The example scripts run as their docstrings say. examples/learn_admission.py needs the [rl]
extra (torch), which CI never installs: without it the script says what to install, in one
line; with the learner replaced by a stand-in its evaluation prints the table the docstring
describes, each agent on the same held-out seeds, PositiveOpportunity as the reference, and a
bad argument is one line; where the extra is installed, a short real training runs too."""

from __future__ import annotations

import runpy
import subprocess
import sys
import types

import pytest

from envs.baselines import AcceptAllAgent
from tests.conftest import ROOT

SCRIPT = ROOT / "examples" / "learn_admission.py"
RL_MODULES = ("torch", "sb3_contrib", "stable_baselines3", "stable_baselines3.common",
              "stable_baselines3.common.vec_env")  # fmt: skip


def test_without_the_rl_extra_it_says_what_to_install():
    blocked = "import sys; sys.modules['torch'] = None; import runpy; "
    run = f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')"
    proc = subprocess.run(
        [sys.executable, "-c", blocked + run], cwd=ROOT, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr == "learn_admission: needs the [rl] extra: pip install -e '.[rl]'\n"


def stand_in_main(monkeypatch):
    """The script's ``main`` with stand-ins for the [rl] extra's modules (the learner itself is
    replaced where a test trains)."""
    for name in RL_MODULES:
        module = types.ModuleType(name)
        module.MaskablePPO = module.DummyVecEnv = module.VecNormalize = object
        module.set_num_threads = lambda threads: None
        monkeypatch.setitem(sys.modules, name, module)
    return runpy.run_path(str(SCRIPT), run_name="example")["main"]


def test_the_evaluation_table_compares_every_agent_on_the_held_out_seeds(monkeypatch, capsys):
    main = stand_in_main(monkeypatch)
    monkeypatch.setitem(main.__globals__, "train", lambda args: (None, None))
    monkeypatch.setitem(main.__globals__, "Learned", lambda model, norm: AcceptAllAgent())
    assert main(["--timesteps", "0", "--eval-seeds", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("trained 0 steps in ") and lines[0].endswith("held-out seeds 1..2")
    header = [cell.strip() for cell in lines[1].strip("|").split("|")]
    assert header == ["agent", "mean profit", "sd", "admitted %", "minus PO, paired: mean ± se",
                      "seeds above PO"]  # fmt: skip
    rows = {row.split("|")[1].strip(): row.split("|")[2:-1] for row in lines[3:]}
    assert list(rows) == ["MaskablePPO (learned)", "FirstProfit + PositiveOpportunity",
                          "accept all", "random"]  # fmt: skip
    reference = rows["FirstProfit + PositiveOpportunity"]
    assert reference[3].strip() == "+0.0 ± 0.0" and reference[4].strip() == "0/2"
    assert rows["MaskablePPO (learned)"] == rows["accept all"]  # the stand-in accepts all
    assert float(rows["accept all"][0].replace(",", "")) < 0  # as §3.4 found
    assert rows["accept all"][2].strip() == "100.0"


def test_with_the_rl_extra_it_trains_and_evaluates_the_learned_policy(capsys):
    # Only where the [rl] extra is installed (never in CI): a short training of the real
    # MaskablePPO, then its evaluation beside the heuristics on the same held-out seeds.
    pytest.importorskip("sb3_contrib")
    example = runpy.run_path(str(SCRIPT), run_name="example")
    assert example["main"](["--timesteps", "512", "--envs", "2", "--eval-seeds", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("trained 512 steps in ")
    learned = next(row for row in lines if row.startswith("| MaskablePPO (learned)"))
    admitted = float(learned.split("|")[4])
    assert 0.0 <= admitted <= 100.0


def test_a_bad_argument_is_one_line(monkeypatch, capsys):
    main = stand_in_main(monkeypatch)  # (arguments are read before anything trains)
    for bad, message in (
        (["--eval-seeds", "1"], "argument --eval-seeds: 1 is below 2"),
        (["--envs", "x"], "argument --envs: 'x' is not an integer"),
        (["--timesteps", "-5"], "argument --timesteps: -5 is below 0"),
    ):
        with pytest.raises(SystemExit) as stop:
            main(bad)
        assert stop.value.code == 2
        assert capsys.readouterr().err.splitlines()[-1].endswith(message)
