"""`make bench` writes its figures into the benchmarks page between its markers, and leaves the
rest of the page (written by hand) as it is."""

from __future__ import annotations

from tests.benchmarks.compare import END, START, write_page


def block(text: str) -> str:
    return f"{START}\n{text}\n{END}\n"


def test_a_new_page_gets_a_title_and_the_block(tmp_path):
    page = tmp_path / "docs" / "benchmarks.md"
    write_page(page, block("| a | 1 |"))
    assert page.read_text() == f"# Benchmarks\n\n{START}\n| a | 1 |\n{END}\n"


def test_the_block_is_replaced_and_the_page_around_it_kept(tmp_path):
    page = tmp_path / "benchmarks.md"
    page.write_text(f"# B\n\nintro\n\n{START}\nold\n{END}\n\n## Sweeps\n\nby hand\n")
    write_page(page, block("new"))
    assert page.read_text() == f"# B\n\nintro\n\n{START}\nnew\n{END}\n\n## Sweeps\n\nby hand\n"
    write_page(page, block("newer"))  # again: still one block
    assert page.read_text().count(START) == 1 and "newer" in page.read_text()


def test_a_page_without_the_block_gets_it_at_the_end(tmp_path):
    page = tmp_path / "benchmarks.md"
    page.write_text("# B\n\nby hand\n")
    write_page(page, block("x"))
    assert page.read_text() == f"# B\n\nby hand\n\n{START}\nx\n{END}\n"
