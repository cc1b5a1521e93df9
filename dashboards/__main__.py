"""``python -m dashboards [--host 127.0.0.1] [--port 8050] [SCENARIO]``: serve the dashboard."""

from __future__ import annotations

import argparse
import sys

from market.scenario import ScenarioError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dashboards", description="Watch and steer market runs in a browser."
    )
    parser.add_argument("scenario", nargs="?", help="the scenario new tabs start with")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8050, help="port (8050)")
    args = parser.parse_args(argv)
    from dashboards.app import serve

    try:
        serve(args.host, args.port, args.scenario)
    except ScenarioError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
