"""Reports: the papers' figures from a sweep's results.

``gridmarket report RESULTS [--out DIR] [--error ci95|sd] [--metrics a,b]`` reads a results
directory (:func:`market.results_store.load_results`) and writes, into ``DIR`` (default
``RESULTS/report``):

- one figure per (metric, swept parameter), ``<metric>-vs-<parameter>.html``: the mean over
  replications of the metric against the parameter, one line per policy (variant; and per
  service provider when a scenario has several), with error bars of the 95 % confidence interval
  of the mean (Student's t, ``ci95``, the default) or the standard deviation (``sd``);
- ``index.html``: every figure on one page;
- ``summary.csv``: the numbers behind the figures, n, mean, sd and ci95 of every metric per point
  and policy (so the standard deviation of the profit rate, the paper's Figure 3f, is there too);
- ``<metric>-vs-<parameter>.png`` as well when a static renderer (kaleido) is installed and
  works; otherwise the report says that PNG was skipped. kaleido is not a dependency.

**Several parameters.** With ``mode: cross``, the figure of parameter ``p`` has one panel per
combination of the other parameters' values (small multiples, titled ``other=value``), so every
line is one policy with everything else fixed. With ``mode: zip`` the parameters move together,
so each figure has one panel, with the others' values following along. A sweep with no parameters
gives one figure per metric with the policies side by side (``<metric>-by-variant.html``).
Numeric parameters get a numeric x axis; others are categories in the sweep's order.

The HTML files share one ``plotly.min.js`` copied beside them, so the report works offline.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from market.results_store import load_manifest, load_results, metric_columns

LABELS = {
    "offered": "jobs offered",
    "accepted": "jobs accepted",
    "accepted_pct": "jobs accepted (%)",
    "completed": "jobs completed",
    "revenue": "revenue",
    "rent": "rent",
    "profit": "profit",
    "profit_rate": "profit rate (per hour)",
    "utilization": "utilization (%)",
    "mean_processors": "processors per job",
    "predicted_profit": "predicted profit",
    "realised_pct": "predicted profit realised (%)",
    "end_time": "run length (hours)",
}

ERRORS = {"ci95": "95 % CI", "sd": "sd"}


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
    png_note: str | None = None  # why PNG was skipped

    @property
    def files(self) -> list[Path]:
        extra = [p for p in (self.index, self.summary) if p is not None]
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
    shorts = _short_names(parameters)
    policies = list(dict.fromkeys(frame["policy"]))
    figures = []
    for metric in metrics:
        data = table[table["metric"] == metric]
        if not parameters:
            fig = _figure(data, "variant", None, metric, error, subtitle, policies, manifest, "")
            figures.append((f"{_slug(metric)}-by-variant", fig))
            continue
        for p in parameters:
            others = [q for q in parameters if q != p] if manifest.get("mode") != "zip" else []
            fig = _figure(data, p, others, metric, error, subtitle, policies, manifest, shorts[p])
            figures.append((f"{_slug(metric)}-vs-{_slug(shorts[p])}", fig))

    for stem, fig in figures:
        path = out / f"{stem}.html"
        fig.write_html(path, include_plotlyjs="directory", full_html=True)
        report.figures.append(path)
    report.index = out / "index.html"
    _write_index(report.index, figures, f"{name}: sweep report", subtitle)
    if png:
        report.png_note = _write_pngs(figures, out, report.images)
    else:
        report.png_note = "PNG skipped: not asked for"
    return report


def _short_names(parameters: list[str]) -> dict[str, str]:
    """The last part of each dotted path, or the whole path where two last parts clash."""
    last = {p: p.rsplit(".", 1)[-1] for p in parameters}
    clash = {v for v in last.values() if list(last.values()).count(v) > 1}
    return {p: (p if last[p] in clash else last[p]) for p in parameters}


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text).strip("_") or "x"


def _figure(data, x, others, metric, error, subtitle, policies, manifest, short):
    import plotly.express as px

    data = data.copy()
    facet = None
    if others:
        shorts = _short_names([x, *others])
        data["panel"] = [
            ", ".join(f"{shorts[q]}={_fmt(v)}" for q, v in zip(others, values, strict=True))
            for values in data[others].itertuples(index=False, name=None)
        ]
        facet = "panel"
    orders = {"policy": policies}
    numeric = pd.api.types.is_numeric_dtype(data[x]) and not pd.api.types.is_bool_dtype(data[x])
    if numeric:
        data = data.sort_values(x, kind="stable")
    elif x == "variant":
        orders[x] = manifest.get("variants") or list(dict.fromkeys(data[x]))
    else:
        stored = manifest.get("parameter_values", {}).get(x)
        orders[x] = [str(v) for v in stored] if stored else list(dict.fromkeys(data[x]))
        data[x] = data[x].astype(str)
    if facet:
        orders[facet] = list(dict.fromkeys(data.sort_values(others, kind="stable")[facet]))
    label = LABELS.get(metric, metric)
    common = {
        "x": x,
        "y": "mean",
        "error_y": error,
        "color": "policy",
        "category_orders": orders,
        "hover_data": {"n": True, "sd": ":.4g", "ci95": ":.4g", "mean": ":.4g"},
        "labels": {"mean": label, x: x, "policy": "policy"},
    }
    height = 520
    if facet:
        panels = data[facet].nunique()
        common.update(facet_col=facet, facet_col_wrap=min(3, panels), facet_row_spacing=0.08)
        height = 220 + 300 * math.ceil(panels / 3)
    draw = px.scatter if x == "variant" else partial(px.line, markers=True)
    fig = draw(data, **common)
    title = f"{label} vs {short}" if short else f"{label} by policy"
    fig.update_layout(
        title={"text": f"{title}<br><sup>{subtitle}</sup>"},
        template="plotly_white",
        legend_title_text="policy",
        hovermode="closest",
        height=height,
        margin={"t": 110 if facet else 80},
    )
    fig.for_each_annotation(lambda a: a.update(text=a.text.removeprefix("panel=")))
    return fig


def _fmt(value) -> str:
    if isinstance(value, float) and not math.isnan(value):
        return f"{value:g}"
    return str(value)


def _write_index(path: Path, figures, title: str, subtitle: str) -> None:
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
    parts.append("</ul>")
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
