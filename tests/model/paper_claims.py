"""What the paper tests share: each claim of a paper's list (market/experiments/claims/) is one
test, judged on the quick size of its sweeps (run once per module, in this process, through the
same code as ``gridmarket reproduce PAPER --quick``). A claim the verdict table explains at the
quick size (its ``gap``) is a strict xfail with that reason, so that it fails the day it holds;
a claim whose trace is missing is skipped."""

from __future__ import annotations

import pytest

from market.experiments.batch import InProcess
from market.experiments.claims import Paper
from market.experiments.reproduce import NOT_RUN, Row, reproduce


def claim_params(paper: Paper) -> list:
    """One ``pytest.param`` per claim, a strict xfail where its gap is expected when quick."""
    params = []
    for claim in paper.claims:
        marks = ()
        if "quick" in claim.gap_at:
            marks = (pytest.mark.xfail(strict=True, reason=claim.gap),)
        params.append(pytest.param(claim.id, marks=marks, id=claim.id))
    return params


def quick_rows(paper: Paper, tmp_path_factory) -> dict[str, Row]:
    """The verdict rows of ``paper`` at the quick size, by claim id."""
    out = tmp_path_factory.mktemp(f"reproduce-{paper.key}")
    report = reproduce(paper, "quick", out, InProcess(), progress=False)
    return {row.claim.id: row for row in report.rows}


def check(rows: dict[str, Row], claim_id: str) -> None:
    """The claim holds (skipped when it could not be run here)."""
    row = rows[claim_id]
    if row.verdict == NOT_RUN:
        pytest.skip(row.reason)
    assert row.verdict == "holds", f"{row.verdict}: {row.ours}"
