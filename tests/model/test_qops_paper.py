"""The QoPS paper (Islam, Balaji, Sadayappan & Panda, OSU-CISRC-4/03-TR21): every claim of
``market/experiments/claims/qops.py`` at its quick size (``gridmarket reproduce qops --quick``
gives the same verdicts). See tests/model/paper_claims.py for how a claim becomes a test."""

from __future__ import annotations

import pytest

from market.experiments.claims import paper
from tests.model.paper_claims import check, claim_params, quick_rows

PAPER = paper("qops")


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    return quick_rows(PAPER, tmp_path_factory)


@pytest.mark.parametrize("claim", claim_params(PAPER))
def test_claim(rows, claim):
    check(rows, claim)
