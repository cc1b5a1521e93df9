"""The installed version of gridmarket, as ``gridmarket --version`` prints it (looked up then:
reading the installed package's metadata costs a command that never prints it)."""

from __future__ import annotations

import argparse
import sys


def version() -> str:
    """The installed version of gridmarket (``unknown`` when running from an uninstalled
    source tree)."""
    from importlib import metadata

    try:
        return metadata.version("gridmarket")
    except metadata.PackageNotFoundError:
        return "unknown"


class VersionAction(argparse.Action):
    """``--version``: argparse's own ``version`` action, the version looked up when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show program's version number and exit"):  # fmt: skip
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(f"gridmarket {version()}\n")  # (as argparse's own prints it)
        parser.exit()
