"""``make bench-suite``'s table: the pytest benchmarks' figures, read from pytest-benchmark's JSON
(``--benchmark-json``, timed in CPU seconds), written into the benchmarks page between its
``make bench-suite`` markers (the rest of the page left as it is), so no figure there is typed
by hand. A benchmark's ``extra_info`` (jobs per second, steps per second...) is shown beside its
times, and its goal, where the project set one, from :data:`GOALS`.

    python tests/benchmarks/suite_table.py BENCH.json [--markdown docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from tests.benchmarks.compare import write_page  # noqa: E402

START, END = "<!-- make bench-suite: start -->", "<!-- make bench-suite: end -->"

#: The goals the project set, by benchmark (test function) name: what a user needs, not a bound
#: any benchmark asserts.
GOALS = {
    "test_default_run_first_profit": "<= 0.3 s",
    "test_default_run_first_opportunity": "<= 2 s",
    "test_one_3000_job_sdsc_run": "<= 2 s",
    "test_qops_on_5000_sdsc_jobs_at_load_1_6_through_the_model": "<= 5 s",
    "test_dvqops_on_10000_sdsc_jobs_at_high_load": "<= 10 ms a decision",
    "test_easy_replay_of_sdsc_sp2_through_the_model": ">= 20,000 jobs/s, <= 1 GiB",
    "test_trace_qbets_on_sdsc_sp2": "<= 10 s",
    "test_one_table4_run": "<= 60 s",
    "test_sweep_on_local_workers": ">= 1.8x one worker",
    "test_steps_hint_off_positive_opportunity_trajectory": ">= 2,000 steps/s",
}


def _seconds(x: float) -> str:
    if x < 1e-3:
        return f"{x * 1e6:.3g} us"
    return f"{x * 1e3:.3g} ms" if x < 0.1 else f"{x:.3g} s"


def _extra(info: dict) -> str:
    return ", ".join(
        f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in sorted(info.items())
    )


def rows(data: dict) -> list[tuple[str, str, str, str, str, str]]:
    """``(benchmark, rounds, min, median, extra figures, goal)`` per benchmark, by file."""
    out = []
    for bench in sorted(data["benchmarks"], key=lambda b: b["fullname"]):
        stats = bench["stats"]
        name = bench["fullname"].split("::", 1)[-1]
        where = Path(bench["fullname"].split("::", 1)[0]).name
        goal = GOALS.get(bench["name"].split("[", 1)[0], "")
        out.append(
            (
                f"`{where}` {name}",
                str(stats["rounds"]),
                _seconds(stats["min"]),
                _seconds(stats["median"]),
                _extra(bench.get("extra_info") or {}),
                goal,
            )
        )
    return out


def markdown(data: dict, command: str) -> str:
    """The figures as a Markdown block between :data:`START` and :data:`END`."""
    info = data.get("commit_info") or {}
    commit = f"{str(info.get('id', ''))[:7]} {info.get('time', '')}".strip()
    lines = [
        START,
        "## The pytest benchmarks",
        "",
        "Written by `make bench-suite` (`tests/benchmarks/suite_table.py` reading "
        "pytest-benchmark's JSON): edit the benchmarks, not this block.",
        "",
        f"- command: `{command}`",
        f"- commit: {commit or 'unknown'}; machine: {platform.machine()}, {os.cpu_count()} "
        f"cores, Python {platform.python_version()}",
        "- CPU seconds (`--benchmark-timer time.process_time`) per round: the load of other "
        "work changes them little; no benchmark fails on them",
        "",
        "| benchmark | rounds | min | median | other figures | goal |",
        "|---|---|---|---|---|---|",
        *("| " + " | ".join(row) + " |" for row in rows(data)),
        END,
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="pytest-benchmark's --benchmark-json output")
    parser.add_argument("--markdown", metavar="PAGE", help="write the table there too")
    parser.add_argument("--command", default="make bench-suite", help="what produced the JSON")
    args = parser.parse_args(argv)
    data = json.loads(Path(args.json).read_text(encoding="utf-8"))
    block = markdown(data, args.command)
    print(block)
    if args.markdown:
        write_page(Path(args.markdown), block, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
