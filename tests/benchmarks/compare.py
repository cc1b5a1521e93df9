"""``make bench``: gridmarket's EASY replay beside the minimal reference loop
(tests/benchmarks/easy_loop.py), AccaSim and CQSim where they are installed, start-up and memory,
each figure with its target beside it, as a ratio. Prints the table; ``--markdown PAGE`` also
writes it into the benchmarks page (docs/benchmarks.md, between its ``make bench`` markers; the
rest of the page is left as it is), so no figure there is typed by hand.

Every figure is measured in a process of its own (CPU seconds and peak RSS from ``wait4``; this
driver imports nothing of the market, whose memory a forked child's peak would count), the
probes alternating round by round, and the median of the rounds kept: CPU time, not wall time,
so the machine's other load changes the figures little, and nothing fails on them. Instruction
counts (``--callgrind``) are the A/B measure between commits on a noisy machine, and give the
ratios to the loop on the whole trace in a measure every machine gives alike.

    python tests/benchmarks/compare.py [--rounds 5] [--external-rounds 3] [--callgrind]
        [--synthetic] [--accasim PYTHON] [--cqsim CHECKOUT] [--markdown docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
from tests.benchmarks import synthetic_trace  # noqa: E402
from tests.benchmarks.bench_rows import rows  # noqa: E402
from tests.benchmarks.replay_script import SDSC, scenario_data  # noqa: E402

PY = sys.executable
STARTUP_ROUNDS = 3  # times --rounds, for the start-up probes (see run_all)
#: ``import mesa`` as ``gridmarket run`` does it, writing no Parquet (market/cli/startup.py)
MESA_AS_THE_CLI_IMPORTS_IT = (
    "from market.cli.threads import one_blas_thread; one_blas_thread(); "
    "from market.cli.memory import collector_off; collector_off(); "
    "from market.cli.startup import defer_unused_mesa, pandas_without_arrow; "
    "pandas_without_arrow(); defer_unused_mesa(); import mesa"
)


def measure(argv: list[str], env: dict, cwd: Path | None = None, keep=True):
    """``(CPU seconds, peak RSS KiB, stdout)`` of one process run to its end."""
    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE if keep else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    out = proc.stdout.read().decode() if keep else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))}: exit status {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss, out


def gridmarket() -> list[str]:
    """The ``gridmarket`` console script beside this Python, else its entry point by hand."""
    script = Path(PY).with_name("gridmarket")
    if script.exists():
        return [str(script)]
    return [PY, "-c", "import sys; from market.cli.main import main; sys.exit(main())"]


def probes(args, work: Path, env: dict) -> dict[str, tuple[list[str], bool]]:
    """Name -> (argv, keep stdout) of every process measured."""
    find = f"from market.inputs.traces import resolve_trace as r; print(r({SDSC!r}))"
    sdsc = subprocess.run([PY, "-c", find], env=env, capture_output=True, text=True, check=True)
    sdsc = sdsc.stdout.strip()
    sdsc_yaml = work / "sdsc-easy.yaml"
    sdsc_yaml.write_text(json.dumps(scenario_data(None, sdsc, 128)))
    gm, loop = gridmarket(), [PY, str(HERE / "easy_loop.py")]
    found = {
        "loop": ([*loop, sdsc], True),
        "gm_run": ([*gm, "run", str(sdsc_yaml)], False),
        "gm_inside": ([PY, str(HERE / "replay_script.py"), "time", "all", sdsc, "128"], True),
        "mesa_events": ([PY, str(HERE / "mesa_events.py"), sdsc], True),
        "mesa": ([PY, "-c", "import mesa"], False),
        "mesa_cli": ([PY, "-c", MESA_AS_THE_CLI_IMPORTS_IT], False),
        "market": ([PY, "-c", "from market import GridMarket"], False),
        "version": ([*gm, "--version"], False),
        "help": ([*gm, "--help"], False),
    }
    if args.synthetic:
        big = Path(tempfile.gettempdir()) / "gridmarket-bench" / "synthetic-300k.swf.gz"
        if not big.exists():
            big.parent.mkdir(parents=True, exist_ok=True)
            synthetic_trace.write(str(big))
        big_yaml = work / "synthetic.yaml"
        data = scenario_data(None, str(big), synthetic_trace.PROCESSORS)
        big_yaml.write_text(json.dumps(data))
        found["gm_run_300k"] = ([*gm, "run", str(big_yaml)], False)
        found["loop_300k"] = ([*loop, str(big)], True)
    if args.accasim:
        script = HERE / "external" / "accasim_easy.py"
        found["accasim"] = ([args.accasim, str(script), sdsc, "128"], False)
    if args.cqsim:
        script = HERE / "external" / "cqsim_easy.sh"
        found["cqsim"] = (["sh", str(script), args.cqsim, sdsc, args.cqsim_python], False)
    return found


def instructions(argv: list[str], env: dict) -> int:
    """The instructions ``argv``'s process runs (callgrind's ``Ir`` total)."""
    with tempfile.NamedTemporaryFile(suffix=".cg") as out:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}", *argv],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return int(re.findall(r"Collected\s*:\s*(\d+)", done.stderr)[-1])


def callgrind(env: dict, table: dict, jobs: int = 8000) -> dict[str, int]:
    """Instructions of replay_script.py ``build`` and ``run`` on the first ``jobs`` jobs (the A/B
    figure) and on the whole trace (``build_all``, ``run_all``), and of the loop's and the
    ``gridmarket run`` processes on the whole trace: a machine runs the same instructions
    whatever its speed, so their ratios are the same on every machine, where CPU seconds' are
    not."""
    script = [PY, str(HERE / "replay_script.py")]
    counts = {mode: instructions([*script, mode, str(jobs)], env) for mode in ("build", "run")}
    for mode in ("build", "run"):
        counts[f"{mode}_all"] = instructions([*script, mode, "all"], env)
    for name in ("loop", "gm_run"):
        counts[name] = instructions(table[name][0], env)
    return counts


def compile_bytecode(args) -> None:
    """Compile the Python of every simulator measured to bytecode first, as installing a package
    does: a process then reads it instead of compiling its sources again, whatever the machine's
    ``PYTHONDONTWRITEBYTECODE`` (the first run would otherwise write it, and with that set no
    run does). AccaSim, installed from the package index, has it already."""
    trees = [(PY, [str(ROOT / name) for name in ("market", "agents", "tests")])]
    if args.cqsim:
        trees.append((args.cqsim_python, [str(Path(args.cqsim) / "src")]))
    for python, folders in trees:
        subprocess.run([python, "-m", "compileall", "-q", *folders], stdout=subprocess.DEVNULL)


def run_all(args) -> dict:
    compile_bytecode(args)
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    env.setdefault("GRIDMARKET_TRACES", str(ROOT.parent / "shared" / "traces"))
    samples: dict[str, list] = {}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        table = probes(args, Path(folder), env)
        slow = {"accasim", "cqsim", "gm_run_300k", "loop_300k"}  # --external-rounds of these
        # Start-up figures are differences of a few tenths between two-second imports: three
        # times the rounds (a couple of seconds each) to steady their medians.
        startup = {"mesa", "mesa_cli", "market", "version", "help"}
        for round_ in range(max(STARTUP_ROUNDS * args.rounds, args.external_rounds)):
            for name, (argv, keep) in table.items():
                rounds = args.external_rounds if name in slow else args.rounds
                rounds = STARTUP_ROUNDS * rounds if name in startup else rounds
                if round_ < rounds:
                    print(f"round {round_ + 1}: {name}", file=sys.stderr, flush=True)
                    samples.setdefault(name, []).append(measure(argv, env, keep=keep))
        counts = None
        if args.callgrind:  # (here: the probes' scenario files are in the folder)
            try:
                counts = callgrind(env, table)
            except (OSError, subprocess.CalledProcessError, IndexError) as exc:  # keep the rest
                print(f"callgrind: {exc}", file=sys.stderr)
    figures = {
        "load": (load_before, os.getloadavg()),
        "rounds": args.rounds,
        "external_rounds": args.external_rounds,
    }
    for name, runs in samples.items():
        figures[name] = {
            "cpu": statistics.median(r[0] for r in runs),
            "cpus": [r[0] for r in runs],  # (by round: those of one round ran side by side)
            "rss": statistics.median(r[1] for r in runs),
            "out": runs[-1][2],
            "outs": [r[2] for r in runs],
        }
    pythons = {"AccaSim": args.accasim, "CQSim": args.cqsim and args.cqsim_python}  # (those run)
    figures["interpreters"] = {tool: python_version(py) for tool, py in pythons.items() if py}
    if counts is not None:
        figures["callgrind"] = counts
    return figures


START, END = "<!-- make bench: start -->", "<!-- make bench: end -->"


def python_version(python: str) -> str:
    """The version of the Python at ``python`` (a path or a command), or why it is unknown."""
    try:
        done = subprocess.run(
            [python, "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"unknown ({type(exc).__name__})"
    return done.stdout.strip()


def head_commit() -> str:
    """The commit checked out, as ``hash subject``."""
    return subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--format=%h %s"], capture_output=True, text=True
    ).stdout.strip()


def markdown(f: dict, table: list, command: str) -> str:
    """The figures as a Markdown block between :data:`START` and :data:`END`: stamped with the
    command and commit that measured them (saved with them), and, for figures loaded from a
    file, the command that remade the table."""
    made = [] if "command" not in f or f["command"] == command else [f"- table: `{command}`"]
    others = "".join(f", {tool} on Python {v}" for tool, v in f.get("interpreters", {}).items())
    lines = [
        START,
        "## The EASY replay against the reference loop, AccaSim and CQSim",
        "",
        "Written by `make bench` (`tests/benchmarks/compare.py`): edit the script, not this block.",
        "",
        f"- command: `{f.get('command', command)}`",
        f"- commit: {f.get('commit') or head_commit()}",
        *made,
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}{others}; load average {f['load'][0][0]:.1f} before, "
        f"{f['load'][1][0]:.1f} after",
        f"- CPU seconds (user + system) and peak RSS of whole processes, medians of "
        f"{f['rounds']} alternating rounds ({f['external_rounds']} for AccaSim, CQSim and the "
        f"300,000-job trace, {STARTUP_ROUNDS * f['rounds']} for the start-up figures); the "
        "reference loop is tests/benchmarks/easy_loop.py, the same schedule in plain Python; "
        "every simulator's Python compiled to bytecode first, as an installed package's is",
        "",
        "| measure | gridmarket | reference | ratio | target |",
        "|---|---|---|---|---|",
        *("| " + " | ".join(row) + " |" for row in table),
        END,
    ]
    return "\n".join(lines) + "\n"


def write_page(path: Path, block: str, start: str = START, end: str = END) -> None:
    """Put ``block`` in the page at ``path``: in place of the previous block between ``start``
    and ``end``, else at the end (a new page gets a title), leaving the rest of the page as it
    is."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + block.rstrip("\n") + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--external-rounds", type=int, default=3, help="rounds of AccaSim, CQSim and 300k jobs"
    )
    parser.add_argument("--synthetic", action="store_true", help="the 300,000-job trace too")
    parser.add_argument("--callgrind", action="store_true", help="instruction counts too")
    parser.add_argument("--accasim", metavar="PYTHON", help="a Python with accasim installed")
    parser.add_argument("--cqsim", metavar="CHECKOUT", help="a checkout of CQSim")
    parser.add_argument("--cqsim-python", default="python3", metavar="PYTHON")
    parser.add_argument("--markdown", metavar="PAGE", help="write the table there too")
    parser.add_argument("--save", metavar="JSON", help="keep the figures measured in a file")
    parser.add_argument("--load", metavar="JSON", help="the table of figures saved, unmeasured")
    args = parser.parse_args(argv)
    started = time.time()
    command = "python tests/benchmarks/compare.py " + " ".join(argv or sys.argv[1:])
    if args.load:
        figures = json.loads(Path(args.load).read_text(encoding="utf-8"))
    else:
        figures = {**run_all(args), "command": command, "commit": head_commit()}
    if args.save:
        Path(args.save).write_text(json.dumps(figures), encoding="utf-8")
    table = rows(figures)
    width = [max(len(r[i]) for r in table) for i in range(5)]
    for row in [("measure", "gridmarket", "reference", "ratio", "target"), *table]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, width, strict=True)))
    print(f"({time.time() - started:.0f} s)", file=sys.stderr)
    if args.markdown:
        write_page(Path(args.markdown), markdown(figures, table, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
