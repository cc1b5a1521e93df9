"""No figure in a claim's reason is typed by hand: a gap (``market/experiments/claims/PAPER.py``)
is a template whose figures its ``figures`` function computes from the runs the verdict table is
made from. Its literal text may hold digits only in references (§5.4, Fig. 3e, Table 1,
Figures 15-16), names (claim ids, sweep names, SDSC-SP2, a trace's version, a scenario field's
path) and the paper's own figures as the claim's row quotes them; every gap renders on the
stored full-size runs and on the quick size's points of them."""

from __future__ import annotations

import re
import string

import numpy as np
import pytest

from market.experiments import claims
from market.experiments.batch import load_results
from market.experiments.claims import PAPERS, Claim, Paper, Results
from tests.conftest import ROOT

STORED = ROOT / "docs" / "results" / "data" / "reproduce"
#: Tokens with digits that are no measurement: references, trace names and versions, scenario
#: field paths (clients.0.workload.load_factor).
ALLOWED = (
    r"§\d+(?:\.\d+)*",
    r"\b(?:Fig\.|Figures?|Tables?) \d+[a-z]?(?:-\d+[a-z]?)?",
    r"\b[A-Z]+-SP2\b",
    r"\bversion \d+(?:\.\d+)*",
    r"\b[a-z_]+\.\d+\.[\w.]+",
)
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def literal(template: str) -> tuple[str, list[str]]:
    """The text of ``template`` outside its ``{fields}`` (their format specs hold digits too),
    and the fields' names."""
    parts = list(string.Formatter().parse(template))
    return " ".join(text for text, *_ in parts), [name for _, name, *_ in parts if name]


def typed_figures(claim: Claim, paper: Paper) -> list[str]:
    """The numbers in ``claim``'s gap outside its fields that are neither allowed tokens, nor
    names of the paper's claims and sweeps, nor figures of the claim's quote or paper column."""
    text, _ = literal(claim.gap)
    names = sorted({c.id for c in paper.claims} | {s.name for s in paper.sweeps}, key=len)
    for name in reversed(names):  # the longest first: sdsc-10x-80-high before sdsc-10x-80
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", text)
    for pattern in ALLOWED:
        text = re.sub(pattern, " ", text)
    quoted = set(NUMBER.findall(claim.quote + " " + claim.paper))
    return [n for n in NUMBER.findall(text) if n not in quoted]


def stored(paper: Paper) -> Results:
    frames = {s.name: load_results(STORED / paper.key / f"{s.name}-full") for s in paper.sweeps}
    return Results(frames, {s.name: s for s in paper.sweeps})


def quick_points(paper: Paper, full: Results) -> Results:
    """``full`` cut to the quick size's values of every swept axis (a quick run's shape)."""
    cut = stored(paper)
    for sweep in paper.sweeps:
        frame = full.frames[sweep.name]
        for alias, values in sweep.quick.axes.items():
            column = frame[alias]
            if isinstance(values[0], str):
                frame = frame[column.isin(values)]
            else:
                near = np.isclose(column.to_numpy(float)[:, None], np.asarray(values, float))
                frame = frame[near.any(axis=1)]
        cut.frames[sweep.name] = frame
    return cut


@pytest.mark.parametrize("key", PAPERS)
def test_no_figure_in_a_gap_is_typed_by_hand(key):
    paper = claims.paper(key)
    typed = {c.id: found for c in paper.claims if (found := typed_figures(c, paper))}
    assert not typed, f"{key}: figures typed in gaps (make them fields of `figures`): {typed}"


@pytest.mark.parametrize("key", PAPERS)
def test_every_gap_renders_from_the_stored_runs_at_both_sizes(key):
    paper = claims.paper(key)
    full = stored(paper)
    for results in (full, quick_points(paper, full)):
        for claim in paper.claims:
            _, fields = literal(claim.gap)
            assert not fields or claim.figures, f"{claim.id}: fields {fields} but no figures"
            reason = claim.reason(results)
            assert "{" not in reason and "}" not in reason, (claim.id, reason)
            assert "nan" not in reason.split(), (claim.id, reason)


def test_the_check_catches_a_typed_figure_and_keeps_references_and_names():
    paper = claims.paper("qops")
    base = paper.claims[0]

    def check(gap: str) -> list[str]:
        return typed_figures(Claim(base.id, "", "", "", (), base.ours, gap=gap), paper)

    assert check("QoPS makes 87.2 % at load {top:g} (Figure 3, §5.2, CTC-SP2)") == ["87.2"]
    assert check("as in qops-admits-most-ctc and Figures 15-16, Fig. 3e, Table 1") == []
    assert check("{n:,} jobs, 1,500 of them") == ["1,500"]
    assert check("`--set clients.0.workload.load_factor={top:g}` at s = 0.2") == ["0.2"]


def test_a_gap_with_fields_needs_its_figures():
    sweep = claims.paper("libra").sweeps[0]
    claim = claims.paper("libra").claims[0]

    def make(gap, figures):
        one = Claim("c", "", "", "", (sweep.name,), claim.ours, gap=gap, figures=figures)
        return Paper("p", "P", (sweep,), (one,))

    with pytest.raises(ValueError, match="gap fields go together"):
        make("{x:.1f} points", None)
    with pytest.raises(ValueError, match="gap fields go together"):
        make("no fields", lambda r: {"x": 1.0})
    assert make("{x:.1f} points", lambda r: {"x": 2.25}).claims[0].reason(None) == "2.2 points"
