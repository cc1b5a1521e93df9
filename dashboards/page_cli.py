"""The command line of a dashboard page served on its own (``python -m dashboards.varq``,
``dashboards.market_view``, ``dashboards.vqops``, ``dashboards.libra``): a scenario argument,
``--host`` and ``--port``, the page's own options, one-line errors (exit 2) and the address."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from market.inputs.scenario import ScenarioError


def page_parser(prog: str, doc: str | None, default: Path, port: int) -> argparse.ArgumentParser:
    """A parser with the page's scenario (``default`` if none is given), ``--host`` and
    ``--port``; the page adds its own options."""
    parser = argparse.ArgumentParser(
        prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("scenario", nargs="?", default=str(default))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=port)
    return parser


def serve_page(
    parser: argparse.ArgumentParser,
    argv: list[str] | None,
    build: Callable[[argparse.Namespace], Any],
    positive: tuple[str, ...] = (),
) -> int:
    """Parse ``argv``, check the port and the options named in ``positive`` (> 0), build the
    Dash app with ``build(args)`` and serve it; a bad argument or scenario is one line on
    stderr and exit status 2."""
    args = parser.parse_args(argv)
    try:
        if not 1 <= args.port <= 65535:
            raise ScenarioError(f"--port: must be from 1 to 65535, got {args.port}")
        for name in positive:
            value = getattr(args, name)
            if not value > 0:
                raise ScenarioError(f"--{name}: must be a positive number, got {value:g}")
        app = build(args)
    except (ScenarioError, ValueError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    page = parser.prog.rsplit(".", 1)[-1]
    print(f"gridmarket {page} view: http://{args.host}:{args.port}/", flush=True)
    app.run(host=args.host, port=args.port, debug=False)
    return 0
