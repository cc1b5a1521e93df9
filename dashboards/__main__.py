"""``python -m dashboards [--host 127.0.0.1] [--port 8050] [SCENARIO]``: serve the dashboard
(the same command as ``gridmarket dashboard``)."""

from __future__ import annotations

import sys

from market.cli import main

if __name__ == "__main__":
    sys.exit(main(["dashboard", *sys.argv[1:]]))
