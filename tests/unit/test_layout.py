"""Fitting a table to a terminal (market/cli/layout.py): labels shortened where they are alike,
never cut to the same text; columns left out in the documented order; numbers never cut."""

from __future__ import annotations

import pytest

from market.cli.layout import Column, abbreviate, fit, table_width

VQOPS = ["qops", "vqops(oc_factor=0.2)", "vqops(oc_factor=0.5)", "dvqops(rollback=8)"]
PROFIT = ["FirstProfit", "FirstProfit, accept all", "FirstOpportunity", "FirstOpportunityRate"]


@pytest.mark.parametrize("width", [12, 14, 16, 18])
@pytest.mark.parametrize("labels", [VQOPS, PROFIT], ids=["vqops", "profit"])
def test_shortened_labels_stay_apart_and_fit(labels, width):
    short = abbreviate(labels, width)
    assert len(set(short.values())) == len(labels)
    assert all(len(s) <= width for s in short.values())
    assert all(s == v for v, s in short.items() if len(v) <= width)  # short ones untouched


def test_the_common_part_is_shortened_not_the_one_that_differs():
    short = abbreviate(VQOPS, 14)
    assert short["vqops(oc_factor=0.2)"] == "vqops(oc_…0.2)"
    assert short["vqops(oc_factor=0.5)"] == "vqops(oc_…0.5)"
    assert (
        abbreviate(["EDF", "EDF (no admission control)"], 16)["EDF (no admission control)"]
        == "EDF (no admissi…"
    )  # the end goes: what tells it from EDF is at the start


def column(name, cells, **kw) -> Column:
    return Column(name, name, tuple(cells), **kw)


def table(n_metrics: int = 6) -> list[Column]:
    rows = ["LJF", "FirstOpportunityRate", "FirstProfit, accept all"]
    return [
        column("variant", rows, label=True),
        column("provider", ["sp"] * 3, label=True),
        column("scheduler", ["ljf", "first_opportunity_rate", "first_profit"], label=True,
               optional=True),
        *(column(f"m{i}", ["-1,947.6", "8,513.2", "100.0"], priority=1 + i % 3)
          for i in range(n_metrics)),
    ]  # fmt: skip


def test_one_value_labels_move_to_the_title_and_optional_labels_go_first():
    kept, title, dropped = fit(table(), 90)
    assert title == ["provider sp"]
    assert [c.name for c in kept][:1] == ["variant"] and dropped == ["scheduler"]
    assert table_width(kept) <= 90


@pytest.mark.parametrize("width", [100, 80, 60, 40])
def test_a_fitted_table_fits_and_keeps_its_numbers_whole(width):
    kept, _, dropped = fit(table(10), width)
    assert table_width(kept) <= width
    for c in kept:
        if not c.label:
            assert c.cells == ("-1,947.6", "8,513.2", "100.0")
    variants = next(c for c in kept if c.name == "variant").cells
    assert len(set(variants)) == 3
    priority = {c.name: c.priority for c in table(10)}
    gone = [priority[name] for name in dropped if name.startswith("m")]
    if gone:  # the least important go first
        assert max(c.priority for c in kept if not c.label) <= min(gone)


def test_chosen_columns_keep_their_labels_in_the_table():
    kept, title, _ = fit(table(2), None, chosen=True)
    assert title == [] and [c.name for c in kept][:3] == ["variant", "provider", "scheduler"]
