"""The installed version of gridmarket, as ``gridmarket --version`` prints it."""

from __future__ import annotations

from importlib import metadata


def version() -> str:
    """The installed version of gridmarket (``unknown`` when running from an uninstalled
    source tree)."""
    try:
        return metadata.version("gridmarket")
    except metadata.PackageNotFoundError:
        return "unknown"
