"""The five papers' headline claims (market/experiments/claims/), each one test judged on the
quick size of its sweeps: the same code and verdicts as ``gridmarket reproduce PAPER --quick``
(``pytest tests/model/test_paper_claims.py -k libra`` for one paper). A paper's sweeps run once,
in this process, when its first claim is tested. A claim the verdict table explains at the quick
size (its ``gap``) is a strict xfail with that reason, so that it fails the day it holds; a claim
whose trace is missing is skipped."""

from __future__ import annotations

import pytest

from market.experiments.batch import InProcess
from market.experiments.claims import PAPERS, paper
from market.experiments.reproduce import NOT_RUN, Row, reproduce


def claim_params() -> list:
    """One ``pytest.param`` (paper, claim) per claim, a strict xfail where its gap is expected
    at the quick size."""
    params = []
    for key in PAPERS:
        for claim in paper(key).claims:
            marks = ()
            if "quick" in claim.gap_at:
                marks = (pytest.mark.xfail(strict=True, reason=claim.gap),)
            params.append(pytest.param(key, claim.id, marks=marks, id=f"{key}-{claim.id}"))
    return params


@pytest.fixture(scope="module")
def quick_rows(tmp_path_factory):
    """The verdict rows of a paper at the quick size, by claim id (each paper run once)."""
    made: dict[str, dict[str, Row]] = {}

    def rows(key: str) -> dict[str, Row]:
        if key not in made:
            out = tmp_path_factory.mktemp(f"reproduce-{key}")
            report = reproduce(paper(key), "quick", out, InProcess(), progress=False)
            made[key] = {row.claim.id: row for row in report.rows}
        return made[key]

    return rows


@pytest.mark.parametrize(("key", "claim_id"), claim_params())
def test_claim(quick_rows, key, claim_id):
    row = quick_rows(key)[claim_id]
    if row.verdict == NOT_RUN:
        pytest.skip(row.reason)
    assert row.verdict == "holds", f"{row.verdict}: {row.ours}"
