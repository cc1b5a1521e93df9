"""The command line's one-line usage errors: what a bad argument raises, and the range check
every numeric option shares. A value argparse quotes back is cut to its first
:data:`SHOWN` characters (a 5,000-digit ``--seed`` is named, not repeated); a subcommand's error
names the subcommand (``gridmarket: error: run: argument --seed: ...``); any word of an error
longer than 200 characters (a path, a key, a label given whole) is cut the same way."""

from __future__ import annotations

import argparse
import os
import re

from market.core.suggest import nearest

SHOWN = 40  # characters of a bad value quoted back
SHOWN_WORD = 100  # characters of a long word of an error message shown
WORKERS_PER_CORE = 4  # the most --workers per core

_QUOTED = re.compile(rf"'([^']{{{SHOWN}}})([^']+)'")


def _cut(match: re.Match) -> str:
    return f"'{match[1]}...' ({len(match[1]) + len(match[2]):,} characters)"


class UsageError(Exception):
    """A bad command line; the message is one line."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not usage + error
        raise UsageError(_named(self.prog, _QUOTED.sub(_cut, _suggest(message))))


def parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """``parser.parse_args(argv)``, but an argument no command takes is named with the command
    it was given to (``run: unrecognized arguments: --bogus``), not with the program."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        named = (vars(args).get(dest) for dest in ("command", "trace_command"))
        command = " ".join(name for name in named if name)
        shown = " ".join(word if len(word) <= SHOWN else f"{word[:SHOWN]}..." for word in extra)
        raise UsageError(_named(f"gridmarket {command}", f"unrecognized arguments: {shown}"))
    return args


_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


def _suggest(message: str) -> str:
    """An invalid choice's message, ending with the nearest valid one when one is near."""
    match = _CHOICE.search(message)
    if match is None:
        return message
    choices = re.findall(r"'([^']*)'", match[2])
    near = nearest(match[1], choices)
    return f"{message}; did you mean {near!r}?" if near else message


def _named(prog: str, message: str) -> str:
    """``message`` led by the subcommand it is about (``run: ...``, ``trace qbets: ...``), once:
    the ``gridmarket: error:`` printed before it already names the program."""
    command = prog.partition(" ")[2]
    return f"{command}: {message}" if command else message


_LONG_WORD = re.compile(rf"[^\s:,;()'\"]{{{2 * SHOWN_WORD + 1},}}")  # (punctuation kept)


def shortened(message: str) -> str:
    """``message`` with every word longer than twice :data:`SHOWN_WORD` characters (a name or a
    value given whole: a 5,000-character path, key or label) cut to its start and its length."""
    return _LONG_WORD.sub(lambda m: f"{m[0][:SHOWN_WORD]}... ({len(m[0]):,} characters)", message)


def in_range(option: str, value: int | None, low: int, high: int) -> None:
    """A one-line :class:`UsageError` unless ``low <= value <= high`` (or no value)."""
    if value is not None and not low <= value <= high:
        raise UsageError(f"{option}: {value} is out of range (from {low} to {high})")


def workers_in_range(workers: int | None) -> None:
    """``--workers`` from 1 to :data:`WORKERS_PER_CORE` times the cores this process may use (a
    typo of 1000 would start a process per run, each holding a run's memory, on a few cores)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # (macOS and Windows have no affinity)
        cores = os.cpu_count()
    in_range("--workers", workers, 1, WORKERS_PER_CORE * max(1, cores or 1))
