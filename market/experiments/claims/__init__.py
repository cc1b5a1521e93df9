"""The headline claims of the five papers, one declarative list per paper (:mod:`.claim` says
what a claim holds). ``gridmarket reproduce PAPER`` runs and judges them; the paper tests
(``tests/model/test_*_paper.py``) and the docs' results pages read the same lists."""

from __future__ import annotations

import importlib

from market.experiments.claims.claim import SIZES, Claim, Ours, Paper, Results, Size, Sweep

__all__ = ["PAPERS", "SIZES", "Claim", "Ours", "Paper", "Results", "Size", "Sweep", "paper"]

#: The papers, by the key ``gridmarket reproduce`` takes.
PAPERS = ("profit", "qops", "vqops", "libra", "varq")


def paper(key: str) -> Paper:
    """The claims of paper ``key`` (one of :data:`PAPERS`)."""
    if key not in PAPERS:
        raise KeyError(f"unknown paper {key!r} (one of {', '.join(PAPERS)})")
    return importlib.import_module(f"market.experiments.claims.{key}").PAPER
