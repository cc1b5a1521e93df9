"""The headline claims of the five papers, one declarative list per paper (:mod:`.claim` says
what a claim holds). ``gridmarket reproduce PAPER`` runs and judges them; the paper tests
(``tests/model/test_paper_claims.py``) and the docs' results pages read the same lists. The claim
types are imported on first use, so that the command line's parser needs none of them."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from market.experiments.claims.claim import Paper

__all__ = ["PAPERS", "SIZES", "Claim", "Ours", "Paper", "Results", "Size", "Sweep", "paper"]

#: The papers, by the key ``gridmarket reproduce`` takes.
PAPERS = ("profit", "qops", "vqops", "libra", "varq")


def paper(key: str) -> Paper:
    """The claims of paper ``key`` (one of :data:`PAPERS`)."""
    if key not in PAPERS:
        raise KeyError(f"unknown paper {key!r} (one of {', '.join(PAPERS)})")
    return importlib.import_module(f"market.experiments.claims.{key}").PAPER


def __getattr__(name: str) -> Any:
    if name in __all__:  # the claim types (market.experiments.claims.claim)
        # (lazy module: the claim types import on first use)
        return getattr(importlib.import_module("market.experiments.claims.claim"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
