"""The nearest valid name to a misspelt one, for the one-line errors on bad input: an unknown
field, column, metric, variant, scenario or choice is answered with ``did you mean 'x'?`` when
one valid name is close (:mod:`difflib`'s ratio of at least 0.6, case ignored), and with
nothing when none is (a guess far off misleads more than it helps)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6  # difflib's similarity ratio a suggestion needs


def nearest(word: str, choices: Iterable[object]) -> str | None:
    """The choice closest to ``word`` (case ignored), or None if none is close."""
    by_lower: dict[str, str] = {}
    for choice in map(str, choices):
        by_lower.setdefault(choice.lower(), choice)
    close = difflib.get_close_matches(str(word).lower(), list(by_lower), n=1, cutoff=CUTOFF)
    return by_lower[close[0]] if close else None


def did_you_mean(word: str, choices: Iterable[object]) -> str:
    """``", did you mean 'x'?"`` for the choice nearest ``word``, or ``""`` if none is near."""
    near = nearest(word, choices)
    return f", did you mean {near!r}?" if near is not None and near != word else ""
