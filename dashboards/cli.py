"""``gridmarket dashboard``: the dashboard's command, registered with the CLI as a plugin (the
``gridmarket.commands`` entry point in pyproject.toml), so that the market never imports the
dashboards. ``python -m dashboards`` runs the same command."""

from __future__ import annotations

import argparse
import socket

from market.cli.main import UsageError, in_range

NAME = "dashboard"
HELP = "watch and steer market runs in a browser"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    parser.add_argument(
        "scenario", nargs="?", help="the scenario new tabs start with (profit/default.yaml)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8050, help="port (8050)")


def check_address(host: str, port: int) -> None:
    """A one-line :class:`UsageError` unless this machine can serve on ``host:port``: the
    address resolves and a socket binds to it (the web server would print the resolver's or the
    system's bare message and exit 1)."""
    where = f"dashboard: cannot serve on {host}:{port}"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError, ValueError) as exc:  # (ValueError: a NUL byte)
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise UsageError(f"{where} (--host: not an address: {reason})") from None
    family, kind, proto, _, address = infos[0]
    try:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as exc:
        raise UsageError(f"{where} ({exc.strerror or exc})") from None


def run(args: argparse.Namespace) -> int:
    """Serve the dashboard until interrupted; a bad port or address is a one-line error."""
    in_range("--port", args.port, 1, 65535)
    check_address(args.host, args.port)
    from dashboards.app import serve  # (Dash is slow to import: only when serving)

    try:
        serve(args.host, args.port, args.scenario)
    except OSError as exc:  # the port is taken, the host is not this machine's...
        reason = exc.strerror or str(exc)
        raise UsageError(f"dashboard: cannot serve on {args.host}:{args.port} ({reason})") from None
    return 0
