"""``gridmarket reproduce PAPER``: the verdict table of a paper's claims
(:mod:`market.experiments.reproduce`), resumable in ``--out``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from market.cli.compile import hint as compile_hint
from market.cli.output_paths import check_writable
from market.cli.sweep import _sigterm_interrupts
from market.cli.usage import UsageError, workers_in_range


def add_reproduce(commands) -> None:
    """``gridmarket reproduce PAPER [--quick] [--workers N] [--out DIR] [--markdown FILE]
    [--replications N] [--stored]``."""
    from market.experiments.claims import PAPERS

    reproduce = commands.add_parser(
        "reproduce", help="run the sweeps behind a paper's claims and print a verdict table"
    )
    reproduce.add_argument("paper", choices=PAPERS, help="the paper")
    reproduce.add_argument("--quick", action="store_true", help="the reduced size (minutes)")
    reproduce.add_argument(
        "--workers", type=int, metavar="N", help="processes (default: every core; 1: no pool)"
    )
    reproduce.add_argument(
        "--out", metavar="DIR", help="results directory, resumed (results/reproduce/PAPER)"
    )
    reproduce.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")
    reproduce.add_argument(
        "--replications",
        type=int,
        metavar="N",
        help="at most N seeds a point (a reduced size, said in the table's title and stamp)",
    )
    reproduce.add_argument(
        "--stored", action="store_true", help="run nothing: judge the runs already in --out"
    )


def reproduce_command(args: argparse.Namespace, out=None) -> int:
    """``gridmarket reproduce``: the verdict table of a paper's claims."""
    from market.cli.version import version
    from market.experiments import reproduce
    from market.experiments.batch import SweepInterrupted, make_executor
    from market.experiments.claims import paper
    from market.inputs.scenario_files import shown

    out = sys.stdout if out is None else out
    workers_in_range(args.workers)
    if args.replications is not None and args.replications < 1:
        raise UsageError("--replications: must be >= 1")
    check_writable("--markdown", args.markdown)  # before the runs, not after them
    if not args.stored and (note := compile_hint()):
        print(note, file=sys.stderr)
    size = "quick" if args.quick else "full"
    target = Path(args.out) if args.out else Path("results") / "reproduce" / args.paper
    if args.stored and not _is_dir(target):
        raise UsageError(f"--stored: no results directory {shown(target)}")
    executor = None if args.stored else make_executor(args.workers, None)
    try:
        with _sigterm_interrupts():
            report = reproduce.reproduce(
                paper(args.paper),
                size,
                target,
                executor,
                stored=args.stored,
                replications=args.replications,
            )
    except SweepInterrupted:
        print(
            f"gridmarket: interrupted: finished runs are saved in {target}; the same command "
            "runs the rest",
            file=sys.stderr,
        )
        return 130
    reproduce.print_table(report, out)
    print(
        f"{report.runs} runs in {target} ({report.ran} run now, {report.seconds:.0f} s)",
        file=out,
    )
    if args.markdown:
        command = f"gridmarket reproduce {args.paper}" + (" --quick" if args.quick else "")
        if args.replications is not None:
            command += f" --replications {args.replications}"
        if args.stored:
            command += f" --stored --out {target.as_posix()}"
        command += f" --markdown {args.markdown}"
        text = reproduce.markdown(report, command, version())
        try:
            Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
            Path(args.markdown).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--markdown: cannot write {args.markdown} ({exc.strerror})") from None
    return 1 if report.failed else 0


def _is_dir(path: Path) -> bool:
    """Whether ``path`` is a directory (False for a name the system refuses, e.g. too long)."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False
