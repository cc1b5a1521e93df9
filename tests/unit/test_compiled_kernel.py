"""The compiled profile kernel (market/core/compiled.py) is the Python one, faster: the same
starts and the same steps (values and types) after random reservations, a hand-worked
reservation and release, and the same job outcomes in whole runs of every scheduler that plans on
a profile (MRT's backtracking releases too); and it is only used when built from the current
source and not switched off."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from market.core import compiled, profile_kernel
from market.core.capacity import EPS
from tests.conftest import synthetic_swf


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A cache with the kernel of the current source built in it (skips without a compiler)."""
    path = tmp_path_factory.mktemp("kernel-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRIDMARKET_CACHE", str(path))
        try:
            compiled.build()
        except compiled.CompileError as exc:  # pragma: no cover - every CI machine compiles
            pytest.skip(f"no compiled kernel here: {exc}")
    return path


@pytest.fixture(scope="module")
def built(cache):
    """The compiled kernel module, from the cache built above."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRIDMARKET_CACHE", str(cache))
        patch.delenv("GRIDMARKET_COMPILED", raising=False)
        module = compiled.kernel()
    assert compiled.is_compiled(module)
    return module


def steps(kernel, times, free):
    s = kernel.Steps.__new__(kernel.Steps)
    s._times, s._free, s.rising = list(times), list(free), True
    return s


def state(s):
    return [(t, type(t)) for t in s._times], [(f, type(f)) for f in s._free], s.rising


# -- the same answers, step for step ------------------------------------------------------------
@st.composite
def profiles_and_operations(draw):
    """Steps with times near each other (some within EPS of a sum, some whole numbers) and a
    list of reservations ("place": reserve_earliest) and changes ("apply") to make on them."""
    capacity = draw(st.integers(1, 6))
    k = draw(st.integers(1, 8))
    gaps = draw(st.lists(st.sampled_from([0.25, 0.5, 1, 1.0, 1 / 3, EPS / 2, 2.0]), min_size=k))
    times = [draw(st.sampled_from([0, 0.0, 0.5]))]
    for gap in gaps[: k - 1]:
        times.append(times[-1] + gap)
    free = draw(st.lists(st.integers(0, capacity), min_size=len(times), max_size=len(times)))
    ops = []
    for _ in range(draw(st.integers(1, 25))):
        n = draw(st.integers(0, capacity + 1))
        duration = draw(st.sampled_from([0, 0.25, 1, 1.0, 1 / 3, 2.5, 1 - EPS / 3]))
        after = draw(st.sampled_from([-1.0, 0, 0.25, 1, 1.5, 2.0, 10.0]))
        latest = draw(st.sampled_from([math.inf, -math.inf, 3.0, 2]))
        ops.append((n, duration, after, latest))
    return times, free, ops


@settings(max_examples=300, deadline=None)
@given(case=profiles_and_operations())
def test_reservations_give_the_same_starts_and_steps_compiled_or_not(built, case):
    times, free, ops = case
    python, fast = steps(profile_kernel, times, free), steps(built, times, free)
    for n, duration, after, latest in ops:
        a = python.reserve_earliest(n, duration, after, latest)
        b = fast.reserve_earliest(n, duration, after, latest)
        assert (a, type(a)) == (b, type(b))
        assert state(python) == state(fast)


def test_a_hand_worked_reservation_and_its_release(built):
    # 4 processors: 0 free on [0, 1), 4 on [1, 3), 0 on [3, 6), 4 from 6 on. Two processors for
    # 2 h fit first at 1 (ending at 3, the breakpoint); for 2.5 h only at 6.
    for kernel in (profile_kernel, built):
        s = steps(kernel, [0.0, 1.0, 3.0, 6.0], [0, 4, 0, 4])
        assert s.reserve_earliest(2, 2.0, 0.0) == 1.0
        assert s._times == [0.0, 1.0, 3.0, 6.0] and s._free == [0, 2, 0, 4]
        assert s.reserve_earliest(2, 2.5, 0.0) == 6.0
        assert s._times == [0.0, 1.0, 3.0, 6.0, 8.5] and s._free == [0, 2, 0, 2, 4]
        assert s.reserve_earliest(5, 1.0, 0.0) == math.inf  # more than ever free
        s._apply(3, 4, 6.0, 8.5, 2)  # the second one given back: the steps merge again
        assert s._times == [0.0, 1.0, 3.0, 6.0] and s._free == [0, 2, 0, 4]
        assert s.rising is False


# -- the same outcomes in whole runs --------------------------------------------------------------
def outcomes_in(env: dict[str, str], trace) -> dict:
    """The per-job outcomes of :func:`scenarios` on ``trace``, run in a new process with
    ``env``, and whether it ran the compiled kernel."""
    script = (
        "import json, sys\n"
        "from market import GridMarket\n"
        "from market.core import capacity, compiled\n"
        "from tests.unit.test_compiled_kernel import scenarios\n"
        "out = {'compiled': compiled.is_compiled(capacity._kernel), 'jobs': {}}\n"
        "for name, scenario in scenarios(sys.argv[1]):\n"
        "    model = GridMarket(scenario, seed=3)\n"
        "    model.run()\n"
        "    out['jobs'][name] = [\n"
        "        repr((job, r.decision.accepted, r.decision.reason,\n"
        "              r.processors, r.start, r.end))\n"
        "        for sp in model.service_providers.values()\n"
        "        for job, r in sorted(sp.records.items())\n"
        "    ]\n"
        "json.dump(out, sys.stdout)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(trace)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def scenarios(trace: str):
    """Overloaded runs (load 1.4, tight deadlines) of a 16-processor trace under conservative
    backfilling with every admission that plans on a profile, and FCFS."""
    from market.inputs.scenario import validate

    workload = {
        "kind": "swf",
        "trace": trace,
        "deadlines": "stringency",
        "stringency": 0.2,
        "load_factor": 1.4,
    }
    for scheduler, admission in [
        ("conservative", "accept_all"),
        ("conservative", "qops"),
        ("conservative", "msb"),
        ("conservative", "mrt"),
        ("fcfs", "accept_all"),
    ]:
        yield (
            f"{scheduler}+{admission}",
            validate(
                {
                    "name": "kernel",
                    "resource_providers": [{"name": "pool", "capacity": 16, "price": 0.0}],
                    "service_providers": [
                        {"name": "site", "scheduler": scheduler, "admission": admission}
                    ],
                    "clients": [{"name": "users", "workload": workload}],
                }
            ),
        )


def test_runs_give_every_job_the_same_outcome_compiled_or_not(cache, tmp_path):
    trace = synthetic_swf(tmp_path / "jobs.swf", n=300)
    fast = outcomes_in({"GRIDMARKET_CACHE": str(cache), "GRIDMARKET_COMPILED": "1"}, trace)
    python = outcomes_in({"GRIDMARKET_CACHE": str(cache), "GRIDMARKET_COMPILED": "0"}, trace)
    assert fast["compiled"] and not python["compiled"]
    assert fast["jobs"] == python["jobs"]
    jobs = fast["jobs"]["conservative+msb"]
    assert len(jobs) > 300  # (the load by duplication)
    assert any("deadline-miss" in job for job in jobs)  # (MSB refused some: it was tested)


# -- when it is used ---------------------------------------------------------------------------
def test_it_is_off_when_switched_off(cache, monkeypatch):
    monkeypatch.setenv("GRIDMARKET_CACHE", str(cache))
    monkeypatch.setenv("GRIDMARKET_COMPILED", "0")
    assert compiled.kernel() is profile_kernel
    assert compiled.status(compiled.kernel()).endswith("(GRIDMARKET_COMPILED=0)")


def test_an_edited_source_runs_in_python_until_compiled_again(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("GRIDMARKET_CACHE", str(cache))
    monkeypatch.delenv("GRIDMARKET_COMPILED", raising=False)
    assert compiled.is_compiled(compiled.kernel())  # (the source as it is: built)
    edited = tmp_path / "profile_kernel.py"
    edited.write_text(compiled.SOURCE.read_text() + "\n# an edit\n")
    monkeypatch.setattr(compiled, "SOURCE", edited)
    assert compiled.kernel() is profile_kernel
    assert "run `gridmarket compile`" in compiled.status(profile_kernel)


def test_a_build_that_does_not_load_is_passed_over(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIDMARKET_CACHE", str(tmp_path))
    monkeypatch.delenv("GRIDMARKET_COMPILED", raising=False)
    compiled.built_path().parent.mkdir(parents=True)
    compiled.built_path().write_bytes(b"not a shared object")
    assert compiled.kernel() is profile_kernel
    assert "does not load" in compiled.status(profile_kernel)


def test_compiling_without_cython_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    from market.cli.main import main

    monkeypatch.setenv("GRIDMARKET_CACHE", str(tmp_path))
    monkeypatch.setitem(sys.modules, "Cython.Build", None)
    assert main(["compile"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "gridmarket: error: compiling needs Cython and setuptools (Cython is missing): "
        "pip install 'gridmarket[compiled]'"
    )


def test_a_failing_compiler_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    from market.cli.main import main

    monkeypatch.setenv("GRIDMARKET_CACHE", str(tmp_path))
    monkeypatch.setenv("CC", "false")
    assert main(["compile"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert (
        err == "gridmarket: error: compiling profile_kernel.py failed: false exited with status 1"
    )
    assert not compiled.built_path().exists()


def test_an_unwritable_cache_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    from market.cli.main import main

    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setenv("GRIDMARKET_CACHE", str(blocked / "cache"))  # (under a file: no folder)
    assert main(["compile"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("gridmarket: error: cannot write profile_kernel_")
    assert err.endswith("(set GRIDMARKET_CACHE to a folder you can write)")


def test_the_command_compiles_once_and_says_which_kernel_runs(cache, monkeypatch, capsys):
    from market.cli.main import main

    monkeypatch.setenv("GRIDMARKET_CACHE", str(cache))
    monkeypatch.delenv("GRIDMARKET_COMPILED", raising=False)
    assert main(["compile", "--quiet"]) == 0  # built already: nothing to do, nothing said
    assert capsys.readouterr().out == ""
    assert main(["compile", "--status"]) == 0
    assert capsys.readouterr().out == f"profile kernel: compiled ({compiled.built_path()})\n"


def test_long_commands_suggest_compiling_when_the_loop_runs_in_python(monkeypatch, capsys):
    from market.cli import compile as compile_cli
    from market.cli.main import main
    from market.core import capacity

    monkeypatch.delenv("GRIDMARKET_COMPILED", raising=False)
    monkeypatch.setattr(capacity, "_kernel", profile_kernel)  # (as where it was never built)
    note = compile_cli.hint()
    assert note is not None and "`gridmarket compile` builds it" in note
    assert main(["sweep", "profit/default", "--scheduler", "nowhere"]) == 2  # (stops there)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == note and err[1].startswith("gridmarket: error: --scheduler: ")
    monkeypatch.setenv("GRIDMARKET_COMPILED", "0")  # chosen: nothing to suggest
    assert compile_cli.hint() is None
    monkeypatch.setattr(capacity, "_kernel", compiled.kernel())
    monkeypatch.delenv("GRIDMARKET_COMPILED")
    if compiled.is_compiled(capacity._kernel):  # (compiled: nothing to suggest either)
        assert compile_cli.hint() is None
