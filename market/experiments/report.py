"""Reports: the papers' figures from a sweep's results (``gridmarket report RESULTS``).

Into ``--out`` (default ``RESULTS/report``): one figure per metric and swept parameter
(``<metric>-vs-<parameter>.html``; the mean over replications, one line per policy, dodged
error bars of the 95 % CI or the sd where a point has two runs or more; with ``mode: cross`` a
panel per combination of the other parameters; none for a metric without any value),
``index.html`` with every figure then the risk table (:mod:`market.experiments.report_index`),
``summary.csv`` (n, mean, sd, ci95 per point,
policy and metric), ``risk.csv`` (:mod:`market.experiments.replication_risk`), PNG where kaleido
works, and with ``--markdown PAGE.md`` the tables in a page
(:mod:`market.experiments.report_markdown`). The HTML files share one ``plotly.min.js`` beside
them, so a report works offline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from market.core.suggest import did_you_mean
from market.experiments.replication_risk import outcomes, risk_table
from market.experiments.report_figures import (
    ERRORS,
    figure,
    figure_title,
    interval_note,
    short_names,
)
from market.experiments.report_index import RISK_NOTE, write_index
from market.experiments.results_store import load_manifest, load_results, metric_columns
from market.inputs.scenario_files import shown

__all__ = ["ERRORS", "RISK_NOTE", "Report", "ReportError", "make_report", "risk_of", "summarize"]


class ReportError(ValueError):
    """A report that cannot be made; the message is one line."""


@dataclass
class Report:
    """What :func:`make_report` wrote."""

    out: Path
    figures: list[Path] = field(default_factory=list)  # HTML, one per (metric, parameter)
    images: list[Path] = field(default_factory=list)  # PNG, when a renderer works
    index: Path | None = None
    summary: Path | None = None
    risk: Path | None = None  # risk.csv, when the results have profit
    risk_table: pd.DataFrame | None = None
    png_note: str | None = None  # why PNG was skipped
    markdown: Path | None = None  # the page that got the tables (--markdown)
    empty: list[str] = field(default_factory=list)  # metrics without any value: no figure

    @property
    def files(self) -> list[Path]:
        extra = [p for p in (self.index, self.summary, self.risk) if p is not None]
        return [*self.figures, *self.images, *extra, *([self.markdown] if self.markdown else [])]


def summarize(frame: pd.DataFrame, metrics: list[str], by: list[str]) -> pd.DataFrame:
    """n, mean, sd and the half-width of the 95 % confidence interval of the mean (Student's t)
    of each metric per group of ``by``, in long form (one row per group and metric)."""
    from scipy import stats

    long = frame.melt(id_vars=by, value_vars=metrics, var_name="metric", value_name="value")
    groups = long.groupby([*by, "metric"], sort=False, dropna=False)["value"]
    table = groups.agg(n="count", mean="mean", sd="std").reset_index()
    n = table["n"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(n > 1, stats.t.ppf(0.975, np.maximum(n - 1, 1)), np.nan)
        table["ci95"] = t * table["sd"].to_numpy() / np.sqrt(n)
    return table


def make_report(
    results: str | Path,
    out: str | Path | None = None,
    *,
    error: str = "ci95",
    metrics: list[str] | None = None,
    png: bool = True,
    markdown: str | Path | None = None,
    command: str = "",
    draw: bool = True,
) -> Report:
    """Write the figures, ``index.html`` and ``summary.csv`` of the sweep in ``results``; with
    ``markdown``, the tables and figure links into that page, stamped with ``command``
    (``draw=False``: the tables and links only, no figure drawn, for checking a page)."""
    if error not in ERRORS:
        raise ReportError(f"--error: must be one of {', '.join(ERRORS)}")
    results = Path(results)
    frame = load_results(results)
    manifest = load_manifest(results)
    parameters = [p for p in manifest.get("parameters", []) if p in frame.columns]
    available = metric_columns(frame)
    if metrics is None:
        metrics = available
    else:
        for name in metrics:
            if name not in available:
                have = ", ".join(available)
                near = did_you_mean(name, available)
                raise ReportError(f"--metrics: {name!r} is not in the results{near} (have: {have})")
    if not metrics:
        raise ReportError(f"{results}: the results have no metric columns")
    out = Path(out) if out is not None else results / "report"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"--out: cannot create {shown(out)} ({exc.strerror})") from None

    several = frame["provider"].nunique() > 1
    frame = frame.assign(
        policy=frame["variant"] + (" · " + frame["provider"] if several else ""),
    )
    by = [*parameters, "policy", "variant", "provider"]
    table = summarize(frame, metrics, by)
    report = Report(out)
    report.summary = out / "summary.csv"
    table.drop(columns="policy").to_csv(report.summary, index=False)

    name = manifest.get("name") or results.name
    report.empty = [m for m in metrics if not table.loc[table["metric"] == m, "mean"].notna().any()]
    subtitle, _ = interval_note(name, table.loc[table["mean"].notna(), "n"], error)
    shorts = short_names(parameters)
    policies = list(dict.fromkeys(frame["policy"]))
    specs = []  # (stem, metric, x, others, short): one figure each
    for metric in [m for m in metrics if m not in report.empty]:
        if not parameters:
            specs.append((f"{_slug(metric)}-by-variant", metric, "variant", None, ""))
            continue
        for p in parameters:
            others = [q for q in parameters if q != p] if manifest.get("mode") != "zip" else []
            specs.append((f"{_slug(metric)}-vs-{_slug(shorts[p])}", metric, p, others, shorts[p]))
    figures = []
    for stem, metric, x, others, short in specs if draw else []:
        data = table[table["metric"] == metric]
        fig = figure(data, x, others, metric, error, name, policies, manifest, short)
        figures.append((stem, figure_title(metric, x, manifest, short), fig))
        path = out / f"{stem}.html"
        fig.write_html(path, include_plotlyjs="directory", full_html=True)
        report.figures.append(path)
    risk = risk_of(frame, parameters)
    if risk is not None:
        report.risk_table = risk
        report.risk = out / "risk.csv"
        risk.to_csv(report.risk, index=False)
    report.index = out / "index.html"
    labels = manifest.get("labels") or {}
    names = {p: labels.get(p) or shorts[p] for p in parameters}
    write_index(report.index, figures, f"{name}: sweep report", subtitle, risk, report.empty,
                names)  # fmt: skip
    if png and draw:
        report.png_note = _write_pngs([(s, f) for s, _, f in figures], out, report.images)
    else:
        report.png_note = "PNG skipped: not asked for"
    if markdown is not None:
        report.markdown = _write_markdown(report, results, Path(markdown), command, table, metrics,
                                          parameters, names, specs, manifest)  # fmt: skip
    return report


def _write_markdown(report, results, page, command, table, metrics, parameters, names, specs,
                    manifest):  # fmt: skip
    from market.experiments.report_markdown import markdown_block, write_markdown

    pngs = {p.stem: p for p in report.images}
    links = [(figure_title(metric, x, manifest, short), report.out / f"{stem}.html",
              pngs.get(stem)) for stem, metric, x, _, short in specs]  # fmt: skip
    block = markdown_block(results, command, table, metrics, parameters, names, links, page,
                           version=_version())  # fmt: skip
    try:
        return write_markdown(page, results, block)
    except OSError as exc:
        raise ReportError(f"--markdown: cannot write {page} ({exc.strerror})") from None
    except UnicodeDecodeError as exc:  # (the figures are written: only the page is refused)
        raise ReportError(
            f"--markdown: {page} is not UTF-8 text (byte {exc.start}), so not a page to write into"
        ) from None


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("gridmarket")
    except metadata.PackageNotFoundError:
        return "unknown"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text).strip("_") or "x"


def risk_of(frame: pd.DataFrame, parameters: list[str]) -> pd.DataFrame | None:
    """The risk table (:func:`market.experiments.replication_risk.risk_table`) per point, variant
    and provider of a
    results frame; None when it has no money outcome."""
    if not outcomes(frame):
        return None
    return risk_table(frame, [*parameters, "variant", "provider"])


def _write_pngs(figures, out: Path, written: list[Path]) -> str | None:
    """PNG of each figure through kaleido; the reason when that is not possible."""
    try:
        import kaleido  # noqa: F401
    except ImportError:
        return "PNG skipped: no static image renderer (pip install 'gridmarket[png]' for PNG)"
    for stem, fig in figures:
        path = out / f"{stem}.png"
        try:
            fig.write_image(path, width=1000)
        except Exception as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return f"PNG skipped: the static renderer failed ({reason})"
        written.append(path)
    return None
