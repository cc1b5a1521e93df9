"""The run table fits the scenario kind: a QoPS run shows its QoS metrics and no money; a profit
run shows money and hides realised % where it means nothing."""

from __future__ import annotations

import pytest

from market.cli.main import main
from tests.conftest import DEFAULT_SCENARIO, ROOT, require_trace, synthetic_swf
from tests.tables import parse_tables

QOS_HEADERS = ["unadm. %", "unadm. work %", "missed", "fulfilled %", "sld. fulfilled", "BSLD"]
MONEY_HEADERS = ["revenue", "rent", "profit", "profit/h", "real. %"]


def table(capsys, *argv) -> tuple[list[str], dict[str, list[str]]]:
    """The headers and the rows (by variant) of the table ``gridmarket run`` prints."""
    assert main(["run", *argv]) == 0
    out = capsys.readouterr().out
    _, headers, rows, _ = parse_tables(out)[0]
    return headers, {row[0]: row for row in rows}


def _check_qops_table(headers, rows):
    for header in QOS_HEADERS:
        assert header in headers
    for header in [*MONEY_HEADERS, "acc. %"]:
        assert header not in headers  # a free pool without payments: no money moves
    missed = headers.index("missed")
    assert rows["QoPS"][missed] == "0"  # QoPS's guarantees hold
    assert int(rows["EASY (all)"][missed]) > 0  # accepting every job misses deadlines


def test_a_qops_run_on_a_trace_subset_shows_qos_metrics(capsys, monkeypatch):
    trace = require_trace()
    monkeypatch.setenv("GRIDMARKET_TRACES", str(trace.parent))
    headers, rows = table(
        capsys, str(ROOT / "scenarios/qops/sdsc_load.yaml"),
        "--set", "clients.0.workload.first_jobs=200",
        "--set", "clients.0.workload.load_factor=1.4",
    )  # fmt: skip
    _check_qops_table(headers, rows)


def test_a_qops_run_on_a_synthetic_trace_shows_qos_metrics(capsys, tmp_path):
    trace = synthetic_swf(tmp_path / "t.swf", n=150, procs=16, max_gap=300)
    headers, rows = table(
        capsys, str(ROOT / "scenarios/qops/sdsc_load.yaml"),
        "--set", f"clients.0.workload.trace={trace}", "--set", "resource_providers.0.capacity=16",
        "--set", "clients.0.workload.first_jobs=150",
    )  # fmt: skip
    _check_qops_table(headers, rows)


def test_a_profit_run_shows_money_and_no_realised_pct_for_accept_all(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    headers, rows = table(capsys, str(DEFAULT_SCENARIO), "--set", "clients.0.workload.jobs=40")
    assert headers[:3] == ["variant", "scheduler", "admission"]  # one provider: in the title
    for header in [*MONEY_HEADERS, "acc. %"]:
        assert header in headers
    assert not set(QOS_HEADERS) & set(headers)  # no deadlines; money moves: no BSLD either
    realised = headers.index("real. %")
    assert rows["FirstProfit, accept all"][realised] == "-"
    assert float(rows["FirstProfit"][realised]) > 0


def test_columns_picks_the_columns_in_its_order(capsys):
    picked = "profit,variant,provider,unadmitted_pct,bounded_slowdown_10s"
    assert main(["run", str(DEFAULT_SCENARIO), "--set", "clients.0.workload.jobs=40",
                 "--columns", picked]) == 0  # fmt: skip
    _, headers, rows, _ = parse_tables(capsys.readouterr().out)[0]
    assert headers == ["profit", "variant", "provider", "unadm. %", "BSLD"]
    assert all(float(row[4]) >= 1 for row in rows)  # a bounded slowdown is >= 1


@pytest.mark.parametrize("fmt", ["csv"])
def test_scripts_still_get_every_metric(capsys, fmt):
    assert main(["run", str(DEFAULT_SCENARIO), "--set", "clients.0.workload.jobs=20",
                 "--format", fmt]) == 0  # fmt: skip
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert "realised_pct" in header and "unadmitted_pct" in header
