"""``gridmarket compile``: build the capacity profile's inner loops with Cython for the current
source if they are not yet built (:mod:`market.core.compiled`), and say which a run uses."""

from __future__ import annotations

import argparse


def add_parser(commands) -> None:
    """The ``compile`` command on the CLI's subcommands."""
    command = commands.add_parser(
        "compile", help="compile the capacity profile's inner loops (needs Cython and a C compiler)"
    )
    what = command.add_mutually_exclusive_group()
    what.add_argument("--status", action="store_true", help="only say which a run uses")
    what.add_argument("--force", action="store_true", help="compile even if already built")
    command.add_argument(
        "--quiet", action="store_true", help="print nothing unless something is compiled"
    )


def run(args: argparse.Namespace) -> int:
    """Compile unless built (or ``--status``), then print which kernel a run uses."""
    from market.core import compiled

    built = compiled.built_path().is_file()
    if not args.status and (args.force or not built):
        print(f"compiled {compiled.build()}")
    elif args.quiet:
        return 0
    print(compiled.status(compiled.kernel()))
    return 0


def hint() -> str | None:
    """The line a long command prints first when the profile's inner loop runs in Python only
    because it was not compiled (not when ``GRIDMARKET_COMPILED=0`` chose it), else None."""
    from market.core import capacity, compiled

    if compiled.is_compiled(capacity._kernel) or not compiled.enabled():
        return None
    return (
        "gridmarket: note: the capacity profile's inner loop runs in Python; `gridmarket "
        "compile` builds it, and conservative and QoPS-family runs go faster"
    )
