"""Every results page's tables are what their command makes from the stored results: each block
of ``gridmarket report RESULTS --markdown PAGE`` is made again (without drawing the figures) into
a copy of the page, and the page must equal it but for the stamp line (date and paths)."""

from __future__ import annotations

import shlex
import shutil

import pytest

from market.cli.main import _parser
from market.experiments.report import make_report
from market.experiments.report_markdown import block_of, blocks, command_of, strip_stamps
from tests.conftest import ROOT

PAGES = sorted((ROOT / "docs" / "results").glob("*.md"))
BLOCKS = [(page, key) for page in PAGES for key in blocks(page.read_text(encoding="utf-8"))]


def test_every_paper_has_a_generated_results_page():
    names = {page.stem for page, _ in BLOCKS}
    assert names == {"profit", "qops", "vqops", "libra", "varq", "market"}
    for page, key in BLOCKS:
        assert (ROOT / key / "manifest.json").exists(), f"{page.name}: no stored results {key}"


@pytest.mark.parametrize(
    ("page", "key"), BLOCKS, ids=[f"{p.stem}:{k.rsplit('/', 1)[-1]}" for p, k in BLOCKS]
)
def test_results_block_matches_its_command(page, key, tmp_path, monkeypatch):
    text = page.read_text(encoding="utf-8")
    command = command_of(block_of(text, key))
    assert command is not None, f"{page.name}: the block of {key} has no stamp"
    args = _parser().parse_args(shlex.split(command)[1:])
    assert args.markdown == page.relative_to(ROOT).as_posix()
    # the same layout under tmp_path, so that the figure links come out the same
    copy = tmp_path / args.markdown
    copy.parent.mkdir(parents=True)
    shutil.copy(page, copy)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs" / "results" / "data").symlink_to(ROOT / "docs" / "results" / "data")
    metrics = args.metrics.split(",") if args.metrics else None
    make_report(args.results, args.out, error=args.error, metrics=metrics, png=False,
                markdown=args.markdown, command=command, draw=False)  # fmt: skip
    made = copy.read_text(encoding="utf-8")
    assert strip_stamps(made) == strip_stamps(text), (
        f"{page.name}: the tables of {key} differ from what `{command}` makes now; "
        "run `make docs-results` (or that command) and commit the page"
    )
