"""Reports: the papers' figures from a sweep's results.

``gridmarket report RESULTS [--out DIR] [--error ci95|sd] [--metrics a,b]`` reads a results
directory (:func:`market.experiments.results_store.load_results`) and writes, into ``DIR`` (default
``RESULTS/report``):

- one figure per (metric, swept parameter), ``<metric>-vs-<parameter>.html``: the mean over
  replications of the metric against the parameter, one line per policy (variant; and per
  service provider when a scenario has several), with error bars of the 95 % confidence interval
  of the mean (Student's t, ``ci95``, the default) or the standard deviation (``sd``);
- ``index.html``: every figure on one page;
- ``summary.csv``: the numbers behind the figures, n, mean, sd and ci95 of every metric per point
  and policy (so the standard deviation of the profit rate, the paper's Figure 3f, is there too);
- ``risk.csv`` (and a table in ``index.html``): per point and policy, the distribution of the
  profit (and of the clients' surplus, where the results have it) across replications: mean and
  95 % CI, 5 % quantile, CVaR at 5 %, probability of a loss
  (:mod:`market.experiments.replication_risk`);
- ``<metric>-vs-<parameter>.png`` as well when a static renderer (kaleido) is installed and
  works; otherwise the report says that PNG was skipped. kaleido is not a dependency.

**Several parameters.** With ``mode: cross``, the figure of parameter ``p`` has one panel per
combination of the other parameters' values (small multiples, titled ``other=value``), so every
line is one policy with everything else fixed. With ``mode: zip`` the parameters move together,
so each figure has one panel, with the others' values following along. A sweep with no parameters
gives one figure per metric with the policies side by side (``<metric>-by-variant.html``).
Numeric parameters get a numeric x axis (log where the points are geometric); others are
categories in the sweep's order. Colours, markers, axis titles and clipped panels: see
:mod:`market.experiments.report_figures`.

The HTML files share one ``plotly.min.js`` copied beside them, so the report works offline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from market.experiments.replication_risk import outcomes, risk_table
from market.experiments.report_figures import figure, short_names
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

    @property
    def files(self) -> list[Path]:
        extra = [p for p in (self.index, self.summary, self.risk) if p is not None]
        return [*self.figures, *self.images, *extra]


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
) -> Report:
    """Write the figures, ``index.html`` and ``summary.csv`` of the sweep in ``results``."""
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
    figures = []
    for metric in metrics:
        data = table[table["metric"] == metric]
        if not parameters:
            fig = figure(data, "variant", None, metric, error, subtitle, policies, manifest, "")
            figures.append((f"{_slug(metric)}-by-variant", fig))
            continue
        for p in parameters:
            others = [q for q in parameters if q != p] if manifest.get("mode") != "zip" else []
            fig = figure(data, p, others, metric, error, subtitle, policies, manifest, shorts[p])
            figures.append((f"{_slug(metric)}-vs-{_slug(shorts[p])}", fig))

    for stem, fig in figures:
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
    if png:
        report.png_note = _write_pngs(figures, out, report.images)
    else:
        report.png_note = "PNG skipped: not asked for"
    return report


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
