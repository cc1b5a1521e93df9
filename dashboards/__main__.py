"""``python -m dashboards [--host 127.0.0.1] [--port 8050] [SCENARIO]``: serve the dashboard
(the same command as ``gridmarket dashboard``)."""

from __future__ import annotations

import sys

from market.cli import main as cli_main


def main(argv: list[str] | None = None) -> int:
    """``gridmarket dashboard`` with these arguments."""
    return cli_main.main(["dashboard", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
