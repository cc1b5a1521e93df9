"""``gridmarket report --markdown``: the tables of a hand-made summary, the block's place in a
page, and the command line that writes it."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pandas as pd

from market.cli.main import main
from market.experiments.report_markdown import (
    block_of,
    blocks,
    command_of,
    markdown_block,
    metric_table,
    number,
    strip_stamps,
    write_markdown,
)
from tests.conftest import ROOT

P = "clients.0.workload.mean_interarrival"


def summary() -> pd.DataFrame:
    """The long table of two policies at two loads, with means worked out by hand."""
    rows = [
        (0.5, "FirstProfit", "profit_rate", 2, 143.06, 1.0),
        (1.0, "FirstProfit", "profit_rate", 2, 38.94, 1.0),
        (0.5, "LJF", "profit_rate", 2, 1234.5, 1.0),
        (1.0, "LJF", "profit_rate", 2, float("nan"), 1.0),
    ]
    return pd.DataFrame(rows, columns=[P, "policy", "metric", "n", "mean", "sd"])


def test_numbers_keep_three_significant_figures():
    assert [number(v) for v in (1234.5, 143.06, 38.94, 0.314, -2.5)] == [
        "1,234", "143", "38.9", "0.31", "-2.50"
    ]  # fmt: skip
    assert number(float("nan")) == "-" and number(None) == "-"


def test_metric_table_has_a_column_per_point_and_a_row_per_policy():
    table = metric_table(summary(), "profit_rate", [P], {P: "load"})
    assert table.splitlines() == [
        "| policy | 0.5 | 1 |",
        "| --- | ---: | ---: |",
        "| FirstProfit | 143 | 38.9 |",
        "| LJF | 1,234 | - |",
    ]


def test_block_is_stamped_and_replaced_in_place(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nprose before\n", encoding="utf-8")
    figure = (tmp_path / "figs" / "profit_rate-vs-load.html", None)
    args = ("res/a", "gridmarket report res/a --markdown page.md", summary(), ["profit_rate"],
            [P], {P: "load"}, [("profit rate vs load", *figure)], page)  # fmt: skip
    first = markdown_block(*args, today=date(2026, 1, 2), version="9.9")
    assert "(gridmarket 9.9, 2026-01-02); means of 2 runs per point." in first
    assert "[profit rate vs load](figs/profit_rate-vs-load.html)" in first
    assert '<iframe src="figs/profit_rate-vs-load.html" title="profit rate vs load"' in first
    write_markdown(page, "res/a", first)
    page.write_text(page.read_text() + "\nprose after\n", encoding="utf-8")
    write_markdown(page, "res/b", first.replace("res/a", "res/b"))
    assert blocks(page.read_text()) == ["res/a", "res/b"]
    again = markdown_block(*args, today=date(2026, 3, 4), version="9.9")
    write_markdown(page, "res/a", again.replace("| 143 |", "| 144 |"))
    text = page.read_text()
    assert text.startswith("# Title\n\nprose before\n") and "prose after" in text
    assert "| 144 |" in block_of(text, "res/a") and "| 143 |" in block_of(text, "res/b")
    assert "2026-03-04" in block_of(text, "res/a") and "2026-01-02" in block_of(text, "res/b")
    assert command_of(block_of(text, "res/a")) == "gridmarket report res/a --markdown page.md"
    # only the stamp changes from run to run; a changed number does not pass for the same page
    assert strip_stamps(first) == strip_stamps(markdown_block(*args, today=date(2027, 1, 1)))
    assert strip_stamps(first) != strip_stamps(first.replace("| 143 |", "| 144 |"))


def test_command_line_writes_the_tables_and_links(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    results = ROOT / "docs" / "results" / "data" / "profit-fig3"
    Path("data").symlink_to(results)
    argv = ["report", "data", "--out", "figs", "--metrics", "accepted_pct",
            "--markdown", "site/page.md"]  # fmt: skip
    assert main(argv) == 0
    text = Path("site/page.md").read_text()
    assert command_of(text) == "gridmarket report " + " ".join(argv[1:])
    assert "[jobs accepted (%) vs mean inter-arrival time (h)](../figs/accepted_pct-vs-" in text
    assert Path("figs/accepted_pct-vs-mean_interarrival.html").exists()
    rows = [line for line in text.splitlines() if line.startswith("| FirstProfit, accept all |")]
    assert rows == ["| FirstProfit, accept all | 100 | 100 | 100 | 100 |"]  # accepts every job
    assert "site/page.md" in capsys.readouterr().out


def test_a_page_that_is_not_text_is_refused_in_one_line_and_the_figures_kept(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    Path("data").symlink_to(ROOT / "docs" / "results" / "data" / "profit-fig3")
    Path("page.md").write_bytes(b"\xf8\x00binary")
    argv = ["report", "data", "--out", "figs", "--metrics", "accepted_pct", "--markdown"]
    assert main([*argv, "page.md"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "gridmarket: error: --markdown: page.md is not UTF-8 text (byte 0), so not a page to "
        "write into\n"
    )
    assert Path("page.md").read_bytes() == b"\xf8\x00binary"  # left as it was
    assert Path("figs/accepted_pct-vs-mean_interarrival.html").exists()
