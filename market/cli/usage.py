"""The command line's one-line usage errors: what a bad argument raises, and the range check
every numeric option shares."""

from __future__ import annotations

import argparse


class UsageError(Exception):
    """A bad command line; the message is one line."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not usage + error
        raise UsageError(f"{self.prog}: {message}")


def in_range(option: str, value: int | None, low: int, high: int) -> None:
    """A one-line :class:`UsageError` unless ``low <= value <= high`` (or no value)."""
    if value is not None and not low <= value <= high:
        raise UsageError(f"{option}: {value} is out of range (from {low} to {high})")
