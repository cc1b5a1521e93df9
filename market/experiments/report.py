"""Reports: the papers' figures from a sweep's results (``gridmarket report RESULTS``).

Into ``--out`` (default ``RESULTS/report``): one figure per metric and swept parameter
(``<metric>-vs-<parameter>.html``; the mean over replications, one line per policy, error bars
of the 95 % CI or the sd; with ``mode: cross`` a panel per combination of the other
parameters), ``index.html`` with every figure, ``summary.csv`` (n, mean, sd, ci95 per point,
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

from market.experiments.replication_risk import outcomes, risk_table
from market.experiments.report_figures import figure, figure_title, short_names
from market.experiments.results_store import load_manifest, load_results, metric_columns

__all__ = ["Report", "ReportError", "make_report", "risk_of", "summarize"]

ERRORS = {"ci95": "95 % CI", "sd": "sd"}
RISK_NOTE = (
    "Per point and policy, the distribution across replications: mean with the half-width of "
    "its 95 % confidence interval, the 5 % quantile (q05), the mean of the worst 5 % (cvar05; "
    "with fewer than 20 runs, the worst run) and the share of runs that lost money (p_loss)."
)


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
                raise ReportError(f"--metrics: {name!r} is not in the results (have: {have})")
    if not metrics:
        raise ReportError(f"{results}: the results have no metric columns")
    out = Path(out) if out is not None else results / "report"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"--out: cannot create {out} ({exc.strerror})") from None

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
    counts = table["n"]
    n_text = f"{counts.max()}" if counts.min() == counts.max() else f"{counts.min()}-{counts.max()}"
    subtitle = f"{name}: mean ± {ERRORS[error]} of {n_text} runs per point"
    shorts = short_names(parameters)
    policies = list(dict.fromkeys(frame["policy"]))
    specs = []  # (stem, metric, x, others, short): one figure each
    for metric in metrics:
        if not parameters:
            specs.append((f"{_slug(metric)}-by-variant", metric, "variant", None, ""))
            continue
        for p in parameters:
            others = [q for q in parameters if q != p] if manifest.get("mode") != "zip" else []
            specs.append((f"{_slug(metric)}-vs-{_slug(shorts[p])}", metric, p, others, shorts[p]))
    figures = []
    for stem, metric, x, others, short in specs if draw else []:
        data = table[table["metric"] == metric]
        fig = figure(data, x, others, metric, error, subtitle, policies, manifest, short)
        figures.append((stem, fig))
        path = out / f"{stem}.html"
        fig.write_html(path, include_plotlyjs="directory", full_html=True)
        report.figures.append(path)
    risk = risk_of(frame, parameters)
    if risk is not None:
        report.risk_table = risk
        report.risk = out / "risk.csv"
        risk.to_csv(report.risk, index=False)
    report.index = out / "index.html"
    _write_index(report.index, figures, f"{name}: sweep report", subtitle, risk)
    if png and draw:
        report.png_note = _write_pngs(figures, out, report.images)
    else:
        report.png_note = "PNG skipped: not asked for"
    if markdown is not None:
        labels = manifest.get("labels") or {}
        names = {p: labels.get(p) or shorts[p] for p in parameters}
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


def _write_index(path: Path, figures, title: str, subtitle: str, risk=None) -> None:
    import html

    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        '<script src="plotly.min.js"></script>',
        "<style>body{font-family:sans-serif;margin:2em} .fig{margin-bottom:3em}</style>",
        "</head><body>",
        f"<h1>{html.escape(title)}</h1><p>{html.escape(subtitle)}</p><ul>",
    ]
    for stem, _ in figures:
        parts.append(f'<li><a href="#{stem}">{html.escape(stem)}</a> '
                     f'(<a href="{stem}.html">page</a>)</li>')  # fmt: skip
    if risk is not None:
        parts.append('<li><a href="#risk">risk across replications</a></li>')
    parts.append("</ul>")
    if risk is not None:
        parts.append('<div id="risk"><h2>Risk across replications</h2>')
        parts.append(f"<p>{html.escape(RISK_NOTE)}</p>")
        shown = risk.copy()
        for column in ("mean", "ci95", "q05", "cvar05"):
            shown[column] = shown[column].map(lambda v: f"{v:,.1f}")
        shown["p_loss"] = shown["p_loss"].map(lambda v: f"{100 * v:.0f} %")
        parts.append(shown.to_html(index=False, border=0, classes="risk", na_rep="-"))
        parts.append("</div>")
    for stem, fig in figures:
        body = fig.to_html(full_html=False, include_plotlyjs=False)
        parts.append(f'<div class="fig" id="{stem}">{body}</div>')
    parts.append("</body></html>")
    path.write_text("\n".join(parts), encoding="utf-8")


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
