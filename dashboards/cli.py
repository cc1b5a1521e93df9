"""``gridmarket dashboard``: the dashboard's command, registered with the CLI as a plugin (the
``gridmarket.commands`` entry point in pyproject.toml), so that the market never imports the
dashboards. ``python -m dashboards`` runs the same command. One server serves every page (the
live run, the competing market, VQoPS/DVQoPS, Libra, VARQ); ``--scenario`` starts the live page
and every page that can show it, and ``--set`` overrides fields of that scenario.
"""

from __future__ import annotations

import argparse
import socket

from market.cli.usage import UsageError, in_range

NAME = "dashboard"
HELP = "watch and steer market runs in a browser (every view on one server)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    parser.add_argument(
        "scenario_arg", nargs="?", metavar="SCENARIO", help="the same as --scenario"
    )
    parser.add_argument(
        "--scenario",
        help="the scenario new tabs start with, on every page that can show it "
        "(default: profit/default.yaml; each view page has its own)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a field of that scenario, as for gridmarket run (repeatable)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8050, help="port (8050)")


def run(args: argparse.Namespace) -> int:
    """Serve the dashboard until interrupted; a bad port, address, scenario or override is a
    one-line error."""
    from market.inputs.scenario import ScenarioError, load, parse_overrides
    from market.inputs.scenario_files import shipped_dir

    in_range("--port", args.port, 1, 65535)
    if args.scenario and args.scenario_arg and args.scenario != args.scenario_arg:
        raise UsageError("give the scenario once: as SCENARIO or as --scenario")
    scenario = args.scenario or args.scenario_arg
    overrides = {}
    for item in args.set:
        try:
            overrides.update(parse_overrides([item]))
        except ScenarioError:
            raise
        except (ValueError, RecursionError) as exc:  # (a number of thousands of digits...)
            reason = (str(exc) or type(exc).__name__).splitlines()[0].split(":")[0][:100]
            key = item.partition("=")[0].strip()
            raise UsageError(f"--set: {key}: cannot read the value ({reason})") from None
    start = load(scenario or (shipped_dir() or "scenarios") / "profit" / "default.yaml")
    if overrides:
        start.with_overrides(overrides)  # a bad one is a one-line error, before serving
    try:
        socket.getaddrinfo(args.host, args.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise UsageError(f"--host: cannot serve on {args.host!r} ({reason})") from None
    from dashboards.app import serve  # (Dash is slow to import: only when serving)

    try:
        serve(args.host, args.port, scenario, overrides)
    except OSError as exc:  # the port is taken, the host is not this machine's...
        reason = exc.strerror or str(exc)
        raise UsageError(f"dashboard: cannot serve on {args.host}:{args.port} ({reason})") from None
    return 0
