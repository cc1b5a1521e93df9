"""Readable reports (market/experiments/report.py, report_figures.py, dodge.py, report_index.py)
on hand-made results: two policies at the same x are drawn apart with their true x in the hover,
a metric without any value gets no figure, one replication draws no interval and says so, and
index.html shows the figures before a styled risk table."""

from __future__ import annotations

import base64
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from market.cli.main import main
from market.experiments.dodge import REACH, SPREAD, offsets
from market.experiments.report import make_report, summarize
from market.experiments.report_figures import figure

LOAD = "clients.0.workload.mean_interarrival"
#: profit of run r at point x: A makes 10 + 2r (+ 10 x), B loses at x = 3 in run 0.
POINTS = [1.0, 2.0, 3.0]


def write_results(root, replications: int, points=POINTS) -> None:
    """A results directory as a sweep leaves it: manifest and one part."""
    rows = []
    for x in points:
        for variant in ("A", "B"):
            for r in range(replications):
                lost = 20 * (r == 0 and x == 3)
                profit = 10.0 + 2 * r + 10 * x if variant == "A" else 5.0 * x - lost
                rows.append({"run_id": f"{x}-{variant}-{r}", "variant": variant,
                             "replication": r, "seed": r, "provider": "sp",
                             "scheduler": "firstprofit", "admission": "positive", LOAD: x,
                             "profit": profit, "realised_pct": math.nan})  # fmt: skip
    (root / "runs").mkdir(parents=True)
    pd.DataFrame(rows).to_parquet(root / "runs" / "part-000001.parquet")
    manifest = {"name": "toy", "parameters": [LOAD], "variants": ["A", "B"],
                "labels": {LOAD: "mean inter-arrival time (h)"}}  # fmt: skip
    (root / "manifest.json").write_text(json.dumps(manifest))


def decoded(value):
    """``value`` with Plotly's typed arrays (``{"dtype", "bdata"[, "shape"]}``) as lists."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = value.get("shape")
        if shape:
            array = array.reshape([int(n) for n in str(shape).split(",")])
        return array.tolist()
    if isinstance(value, dict):
        return {k: decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decoded(v) for v in value]
    return value


def plotted(path) -> tuple[list, dict]:
    """The traces and layout of the figure in an HTML file of the report."""
    html = path.read_text()
    match = re.search(r'Plotly.newPlot\(\s*"[^"]+",\s*(\[.*?\]),\s*(\{.*?\})\s*,\s*\{', html, re.S)
    return decoded(json.loads(match.group(1))), json.loads(match.group(2))


def test_two_policies_at_one_x_are_dodged_with_their_own_intervals(tmp_path):
    write_results(tmp_path / "res", replications=3)
    report = make_report(tmp_path / "res", tmp_path / "out", png=False)
    (path,) = report.figures
    assert path.name == "profit-vs-mean_interarrival.html"
    traces, layout = plotted(path)
    by_name = {t["name"]: t for t in traces}
    half = REACH * 2.0 / 2  # 1 apart, 1 to 3: REACH of the range (under SPREAD of a gap)
    assert by_name["A"]["x"] == pytest.approx([x - half for x in POINTS])
    assert by_name["B"]["x"] == pytest.approx([x + half for x in POINTS])
    for trace in traces:  # the hover shows the true x, from the last customdata column
        assert [row[-1] for row in trace["customdata"]] == pytest.approx(POINTS)
        assert "%{x}" not in trace["hovertemplate"]
    assert layout["xaxis"]["tickvals"] == POINTS
    # A at x = 1: profits 20, 22, 24: mean 22, sd 2, CI half-width t(0.975, 2) * 2 / sqrt 3
    assert by_name["A"]["y"][0] == pytest.approx(22.0)
    ci = stats.t.ppf(0.975, 2) * 2 / math.sqrt(3)
    assert by_name["A"]["error_y"]["array"][0] == pytest.approx(ci)
    assert "mean ± 95 % CI of 3 runs per point" in layout["title"]["text"]


def test_a_metric_without_any_value_gets_no_figure(tmp_path, capsys):
    write_results(tmp_path / "res", replications=2)
    report = make_report(tmp_path / "res", tmp_path / "out", png=False)
    assert report.empty == ["realised_pct"]
    assert [p.name for p in report.figures] == ["profit-vs-mean_interarrival.html"]
    assert not list((tmp_path / "out").glob("realised_pct*"))
    assert "No figure for realised_pct: no run has a value" in report.index.read_text()
    assert main(["report", str(tmp_path / "res"), "--out", str(tmp_path / "cli")]) == 0
    assert "no figure for realised_pct: no run has a value" in capsys.readouterr().out


def test_one_replication_draws_no_interval_and_says_so(tmp_path):
    write_results(tmp_path / "res", replications=1)
    report = make_report(tmp_path / "res", tmp_path / "out", png=False)
    traces, layout = plotted(report.figures[0])
    assert all("error_y" not in t or not t["error_y"].get("array") for t in traces)
    assert "mean of 1 run per point (no 95 % CI: it needs 2 runs)" in layout["title"]["text"]
    index = report.index.read_text()
    assert "± 95 % CI of 1" not in index and "no 95 % CI: it needs 2 runs" in index
    risk = index[index.index('id="risk"') :]
    assert "±" not in risk.split("</thead>", 1)[1]  # no interval in the table either


def test_a_point_with_one_run_among_others_has_no_bar_there():
    frame = pd.DataFrame({"x": [1.0, 1.0, 2.0, 2.0, 2.0], "policy": ["A"] * 5,
                          "variant": ["A"] * 5, "provider": ["sp"] * 5,
                          "profit": [1.0, 3.0, 5.0, 6.0, 7.0]})  # fmt: skip
    frame = frame[frame.index != 1]  # x = 1 keeps one run
    data = summarize(frame, ["profit"], ["x", "policy", "variant", "provider"])
    fig = figure(data, "x", [], "profit", "ci95", "toy", ["A"], {}, "x")
    (trace,) = fig.data
    assert math.isnan(trace.error_y.array[0]) and trace.error_y.array[1] > 0
    assert "of 1-3 runs per point; none where a point has 1 run" in fig.layout.title.text
    assert list(trace.x) == [1.0, 2.0]  # one policy: nothing moves


def test_log_axes_dodge_by_a_factor_and_categories_group():
    moves = offsets(["A", "B", "C"], [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4], log=True)
    step = SPREAD * math.log10(2) / 2  # under REACH of the range: 6 doublings
    assert moves == pytest.approx({"A": -step, "B": 0.0, "C": step})
    moves = offsets(["A", "B"], [0.1, 0.3, 1.0], log=True)
    assert moves == pytest.approx({"A": -REACH / 2, "B": REACH / 2})  # a decade: REACH of it
    frame = pd.DataFrame({"mode": ["x", "y"] * 4, "policy": ["A"] * 4 + ["B"] * 4,
                          "variant": ["A"] * 4 + ["B"] * 4, "provider": ["sp"] * 8,
                          "profit": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]})  # fmt: skip
    data = summarize(frame, ["profit"], ["mode", "policy", "variant", "provider"])
    fig = figure(data, "mode", [], "profit", "ci95", "toy", ["A", "B"], {}, "mode")
    assert fig.layout.scattermode == "group"
    assert {t.offsetgroup for t in fig.data} == {"A", "B"}


def test_index_shows_the_figures_first_then_a_styled_risk_table(tmp_path):
    write_results(tmp_path / "res", replications=3)
    index = make_report(tmp_path / "res", tmp_path / "out", png=False).index.read_text()
    first_figure, table = index.index('class="fig"'), index.index('id="risk"')
    assert first_figure < table
    assert "<style>" in index and "table class='risk'" in index
    rows = re.findall(r"<tr class='(first|)'>(.*?)</tr>", index[table:], re.S)
    assert len(rows) == 3 * 2  # three points, two policies
    assert [kind for kind, _ in rows] == ["first", "", "first", "", "first", ""]
    points = [re.search(r"<td class='point'>(.*?)</td>", cells)[1] for _, cells in rows]
    assert points == ["1", "", "2", "", "3", ""]  # each point named once
    loss = [("class='num loss'" in cells) for _, cells in rows]
    assert loss == [False, False, False, False, False, True]  # B loses in run 0 at x = 3 only
    assert "<th>mean inter-arrival time (h)</th>" in index
