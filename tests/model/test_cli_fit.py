"""``gridmarket run`` fits the terminal (market/cli/tables.py): at 100 and 80 columns the
profit paper's default run prints no line wider than the terminal and no cut number, the
variants stay apart, and what was left out is named; batch sites get a table of their own with
QBETS's accuracy; ``--columns`` picks columns and rejects unknown names in one line."""

from __future__ import annotations

import re

import pytest
import yaml

from market.cli.main import main
from tests.conftest import DEFAULT_SCENARIO, synthetic_swf
from tests.tables import line_widths, parse_tables

NUMBER = re.compile(r"^-?[\d,]+(\.\d+)?$|^-$|^$")


def run(capsys, monkeypatch, width: int, *argv: str) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["run", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("width", [100, 80])
def test_the_default_run_fits_without_cutting_a_number(capsys, monkeypatch, width):
    out = run(capsys, monkeypatch, width, str(DEFAULT_SCENARIO))
    assert max(line_widths(out)) <= width
    ((title, headers, rows, caption),) = parse_tables(out)
    assert title == "profit-default (seed 1) · provider sp"
    assert headers[0] == "variant" and len(headers) >= 8
    for row in rows:
        assert all(NUMBER.match(cell) for cell in row[1:]), row  # no "8,01…"
    assert len({row[0] for row in rows}) == len(rows) == 8  # the variants stay apart
    assert caption.startswith(f"not shown to fit {width} columns: scheduler, admission")
    for header in ("revenue", "rent", "profit", "profit/h"):
        assert header in headers


def test_a_narrow_terminal_shortens_the_labels_not_the_numbers(capsys, monkeypatch):
    out = run(capsys, monkeypatch, 60, str(DEFAULT_SCENARIO), "--set", "clients.0.workload.jobs=30")
    assert max(line_widths(out)) <= 60
    _, _, rows, _ = parse_tables(out)[0]
    labels = [row[0] for row in rows]
    assert len(set(labels)) == 8 and any("…" in label for label in labels)
    assert all(NUMBER.match(cell) for row in rows for cell in row[1:])


def test_a_pipe_without_columns_gets_every_column(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["run", str(DEFAULT_SCENARIO), "--set", "clients.0.workload.jobs=30"]) == 0
    ((_, headers, _, caption),) = parse_tables(capsys.readouterr().out)
    assert headers[:3] == ["variant", "scheduler", "admission"] and caption == ""


def test_unknown_columns_are_a_one_line_error_before_the_run(capsys):
    code = main(["run", str(DEFAULT_SCENARIO), "--columns", "variant,proft"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--columns: unknown column 'proft'" in err


def site_file(tmp_path) -> str:
    trace = synthetic_swf(tmp_path / "s.swf", n=300, procs=16, max_gap=900)
    spec = {
        "name": "sites", "service_providers": [], "clients": [],
        "batch_sites": [{"name": "a", "trace": str(trace)}],
        "variants": {"A": {}, "B": {"batch_sites.0.name": "b"}},
    }  # fmt: skip
    path = tmp_path / "sites.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return str(path)


def test_batch_sites_get_a_table_of_their_own_with_qbets_accuracy(capsys, monkeypatch, tmp_path):
    out = run(capsys, monkeypatch, 100, site_file(tmp_path))
    ((title, headers, rows, _),) = parse_tables(out)  # no provider table: no provider
    assert title == "sites: batch sites (seed 1) · scheduler easy · admission best-effort"
    assert headers[:2] == ["variant", "site"] and "user" not in headers  # no VARQ user here
    assert {"util %", "wait h", "correct %", "tightness"} <= set(headers)
    assert [row[:2] for row in rows] == [["A", "a"], ["B", "b"]]
    correct = headers.index("correct %")
    assert all(0 < float(row[correct]) <= 100 for row in rows)
    assert "profit" not in headers and "acc. %" not in headers  # a site has no such figures


def test_json_has_the_site_rows_after_the_providers(capsys, tmp_path):
    import json

    assert main(["run", site_file(tmp_path), "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [(r["table"], r["site"]) for r in records] == [("sites", "a"), ("sites", "b")]
    assert all(r["qbets_correct_pct"] > 0 and "profit" not in r for r in records)
