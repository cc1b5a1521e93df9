"""The command line's one-line usage errors: what a bad argument raises, and the range check
every numeric option shares. A value argparse quotes back is cut to its first
:data:`SHOWN` characters (a 5,000-digit ``--seed`` is named, not repeated)."""

from __future__ import annotations

import argparse
import re

SHOWN = 40  # characters of a bad value quoted back

_QUOTED = re.compile(rf"'([^']{{{SHOWN}}})([^']+)'")


def _cut(match: re.Match) -> str:
    return f"'{match[1]}...' ({len(match[1]) + len(match[2]):,} characters)"


class UsageError(Exception):
    """A bad command line; the message is one line."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not usage + error
        raise UsageError(f"{self.prog}: {_QUOTED.sub(_cut, message)}")


def in_range(option: str, value: int | None, low: int, high: int) -> None:
    """A one-line :class:`UsageError` unless ``low <= value <= high`` (or no value)."""
    if value is not None and not low <= value <= high:
        raise UsageError(f"{option}: {value} is out of range (from {low} to {high})")
