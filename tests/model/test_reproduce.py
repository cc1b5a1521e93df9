"""``gridmarket reproduce`` (market/experiments/reproduce.py) on a small paper of its own: the
verdict rows, a missing trace reported as "not run" (never a crash), resuming, the Markdown
stamp, and the command line's one-line errors. The five papers' lists are checked by
tests/model/test_paper_claims.py."""

from __future__ import annotations

import pytest

from market.cli.main import main
from market.experiments.batch import InProcess
from market.experiments.claims import PAPERS, Claim, Ours, Paper, Size, Sweep, paper
from market.experiments.claims.claim import verdict
from market.experiments.reproduce import NOT_RUN, markdown, plan, reproduce

JOBS = "clients.0.workload.jobs"
TINY = Sweep(
    "tiny",
    "profit/default",
    {"load": "clients.0.workload.mean_interarrival"},
    full=Size({JOBS: 30}, {"load": [0.15, 1.0]}, 2),
    quick=Size({JOBS: 20}, {"load": [1.0]}, 1),
    variants=("FirstProfit", "FirstPrice"),
)
MISSING = Sweep(
    "missing",
    "qops/sdsc_load",
    {},
    full=Size({"clients.0.workload.trace": "NO-SUCH-TRACE.swf"}),
    quick=Size({"clients.0.workload.trace": "NO-SUCH-TRACE.swf"}),
    variants=("QoPS",),
)


def more_accepted(r) -> Ours:
    accepted = r.means("tiny", "accepted_pct", ("FirstProfit", "FirstPrice"), load=1.0)
    return Ours(verdict(accepted["FirstPrice"] > accepted["FirstProfit"]), str(accepted))


def never(r) -> Ours:
    return Ours("fails", "ours")


TOY = Paper(
    "toy",
    "A toy paper",
    (TINY, MISSING),
    (
        Claim("blind-accepts-more", "§1", "it accepts more", "more", ("tiny",), more_accepted),
        Claim(
            "never",
            "§2",
            "it never holds",
            "n/a",
            ("tiny",),
            never,
            gap="because",
            gap_at=("quick",),
        ),
        Claim("needs-trace", "§3", "on a trace", "n/a", ("missing",), never),
    ),
)


def test_verdicts_reasons_and_a_missing_trace(tmp_path):
    report = reproduce(TOY, "quick", tmp_path, InProcess(), progress=False)
    rows = {row.claim.id: row for row in report.rows}
    assert rows["blind-accepts-more"].verdict == "holds" and rows["blind-accepts-more"].reason == ""
    assert (rows["never"].verdict, rows["never"].reason) == ("fails", "because")
    missing = rows["needs-trace"]
    assert missing.verdict == NOT_RUN
    assert (
        "needs NO-SUCH-TRACE.swf" in missing.reason
        and "Parallel Workloads Archive" in missing.reason
    )
    assert report.runs == 2 and report.ran == 2  # the missing trace's sweep is not run
    assert (tmp_path / "tiny-quick" / "manifest.json").is_file()


def test_a_second_call_resumes_and_runs_nothing(tmp_path):
    first = reproduce(TOY, "quick", tmp_path, InProcess(), progress=False)
    again = reproduce(TOY, "quick", tmp_path, InProcess(), progress=False)
    assert again.ran == 0 and again.runs == first.runs
    assert [r.verdict for r in again.rows] == [r.verdict for r in first.rows]


def test_stored_judges_the_runs_there_and_runs_nothing(tmp_path):
    made = reproduce(TOY, "quick", tmp_path, InProcess(), progress=False)
    stored = reproduce(TOY, "quick", tmp_path, None, progress=False, stored=True)
    assert stored.ran == 0 and stored.runs == 2
    for a, b in zip(made.rows[:2], stored.rows[:2], strict=True):
        assert (a.verdict, a.ours, a.reason) == (b.verdict, b.ours, b.reason)
    # judged without its trace: no results there, so "not run", never a crash
    assert stored.rows[2].verdict == NOT_RUN and "no results in" in stored.rows[2].reason
    # the full size's runs are not there: its claims say how many are missing
    full = reproduce(TOY, "full", tmp_path, None, progress=False, stored=True)
    assert full.rows[0].verdict == NOT_RUN
    assert not (tmp_path / "tiny-full").exists()


def test_fewer_replications_is_a_reduced_size_and_said(tmp_path):
    assert len(plan(TINY, "full", replications=1).runs) == 2 * 2
    assert len(plan(TINY, "full", replications=5).runs) == 2 * 2 * 2  # never more than the size
    report = reproduce(TOY, "full", tmp_path, InProcess(), progress=False, replications=1)
    assert report.runs == 4
    text = markdown(report, "gridmarket reproduce toy --replications 1 --markdown x.md", "9.9")
    assert "full size reduced to 1 replications a point (the full size's: 2)" in text
    # the first replication's runs are the full size's: a full run resumes them
    full = reproduce(TOY, "full", tmp_path, InProcess(), progress=False)
    assert (full.runs, full.ran) == (8, 4)


def test_stored_on_the_command_line_writes_the_stamped_page(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("market.experiments.claims.paper", lambda key: TOY)
    assert main(["reproduce", "profit", "--quick", "--workers", "1", "--out", "r"]) == 0
    assert (
        main(["reproduce", "profit", "--quick", "--stored", "--out", "r", "--markdown", "p.md"])
        == 0
    )
    stamp = (tmp_path / "p.md").read_text(encoding="utf-8").splitlines()[3]
    assert "`gridmarket reproduce profit --quick --stored --out r --markdown p.md`" in stamp
    assert "(0 run now" in capsys.readouterr().out
    assert main(["reproduce", "profit", "--stored", "--out", "nowhere"]) == 2


def test_sizes_differ_and_live_side_by_side():
    assert len(plan(TINY, "quick").runs) == 2
    assert len(plan(TINY, "full").runs) == 2 * 2 * 2
    with pytest.raises(ValueError):
        plan(TINY, "huge")


def test_markdown_is_stamped_with_the_command_and_version(tmp_path):
    report = reproduce(TOY, "quick", tmp_path, InProcess(), progress=False)
    text = markdown(report, "gridmarket reproduce toy --quick --markdown x.md", "9.9")
    assert "Generated by `gridmarket reproduce toy --quick --markdown x.md` (gridmarket 9.9" in text
    assert "quick size" in text and "| claim | where | paper | ours | verdict | why not |" in text
    assert text.count("\n| **") == 3  # one row per claim


def test_every_paper_declares_sweeps_for_its_claims():
    for key in PAPERS:
        p = paper(key)
        assert p.claims and p.sweeps
        for claim in p.claims:
            assert claim.quote and claim.where and claim.paper
            assert not claim.gap_at or claim.gap  # an expected gap is explained
        for sweep in p.sweeps:
            for size in ("quick", "full"):
                assert plan(sweep, size).runs  # every sweep expands at both sizes


@pytest.mark.parametrize(
    "argv",
    [
        ["reproduce", "nope"],
        ["reproduce", "profit", "--workers", "0"],
        ["reproduce", "profit", "--workers", "100000"],  # (not a process per run)
        ["reproduce", "profit", "--replications", "0"],
    ],
)
def test_bad_command_lines_are_one_line_errors(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("gridmarket: error:") and err.count("\n") == 1


def test_a_markdown_page_that_cannot_be_written_stops_before_any_run(capsys, tmp_path):
    (tmp_path / "file").write_text("")
    page = tmp_path / "file" / "page.md"
    argv = ["reproduce", "profit", "--quick", "--out", str(tmp_path / "out"), "--markdown"]
    assert main([*argv, str(page)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and not (tmp_path / "out").exists()  # nothing run
    assert err.startswith(f"gridmarket: error: --markdown: cannot write {page} (")
    assert err.endswith(" is not a directory)\n") and err.count("\n") == 1
