"""The figures of a sweep report: one metric against one swept parameter, one line per policy.

Each policy keeps its colour and marker (:mod:`market.experiments.style`); axis titles are the
sweep's ``labels`` and each metric's label in the metric registry (:mod:`market.results.metrics`);
the x axis is logarithmic where the points are geometric (:func:`geometric`); where a policy's
error bars span more than :data:`SWAMP` times the others' together, the y axis is cut to the
others' and the subtitle says so (:func:`robust_range`); small multiples share one legend, each
panel titled by the other parameters' values. Policies at one x are dodged
(:mod:`market.experiments.dodge`); error bars are drawn only at points with two runs or more
and the subtitle says where there are none (:func:`interval_note`).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pandas as pd

from market.experiments.dodge import dodge
from market.experiments.style import policy_styles
from market.results.metrics import label as metric_label

#: The error bars a report can draw, by ``--error``.
ERRORS = {"ci95": "95 % CI", "sd": "sd"}
#: A policy whose error bars span more than this many times the others' span is clipped.
SWAMP = 5.0


def short_names(parameters: list[str]) -> dict[str, str]:
    """The last part of each dotted path, or the whole path where two last parts clash."""
    last = {p: p.rsplit(".", 1)[-1] for p in parameters}
    clash = {v for v in last.values() if list(last.values()).count(v) > 1}
    return {p: (p if last[p] in clash else last[p]) for p in parameters}


def geometric(values) -> bool:
    """Whether the (numeric) ``values`` call for a log axis: at least 3 distinct, all > 0,
    spanning a factor of 4 or more, and their gaps more even in log than in linear terms
    (the coefficient of variation of the gaps, compared)."""
    x = np.unique(np.asarray([v for v in values if v is not None], dtype=float))
    x = x[np.isfinite(x)]
    if len(x) < 3 or x[0] <= 0 or x[-1] / x[0] < 4:
        return False

    def unevenness(gaps: np.ndarray) -> float:
        return float(np.std(gaps) / np.mean(gaps))

    return unevenness(np.diff(np.log(x))) < unevenness(np.diff(x))


def robust_range(data: pd.DataFrame, error: str) -> tuple[list[float] | None, list[str]]:
    """A y range that leaves out the policies whose ``mean +- error`` spans more than
    :data:`SWAMP` times the union of the others' spans, and a note for each one left out
    (None and no notes when none swamps the rest)."""
    err = data[error].fillna(0.0).abs() if error in data else 0.0
    spans = (
        data.assign(lo=data["mean"] - err, hi=data["mean"] + err)
        .groupby("policy", sort=False)
        .agg(lo=("lo", "min"), hi=("hi", "max"))
        .dropna()
    )
    if len(spans) < 2:
        return None, []
    swamping = []
    for policy, row in spans.iterrows():
        others = spans.drop(index=policy)
        width = others["hi"].max() - others["lo"].min()
        if width > 0 and (row["hi"] - row["lo"]) > SWAMP * width:
            swamping.append(policy)
    kept = spans.drop(index=swamping)
    if not swamping or kept.empty:
        return None, []
    lo, hi = kept["lo"].min(), kept["hi"].max()
    pad = 0.08 * (hi - lo)
    notes = [
        f"{p} clipped (reaches {_num(spans.loc[p, 'lo'])} to {_num(spans.loc[p, 'hi'])})"
        for p in swamping
    ]
    return [lo - pad, hi + pad], notes


def _num(value: float) -> str:
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


def fmt(value) -> str:
    if isinstance(value, float) and not math.isnan(value):
        return f"{value:g}"
    return str(value)


def interval_note(name: str, n, error: str) -> tuple[str, bool]:
    """The subtitle of a figure whose points have ``n`` runs each, and whether it has error bars:
    an interval needs two runs at least."""
    counts = [int(v) for v in n if v == v]
    lo, hi = (min(counts), max(counts)) if counts else (0, 0)
    runs = f"{hi} run{'s' if hi != 1 else ''}" if lo == hi else f"{lo}-{hi} runs"
    if hi < 2:
        return f"{name}: mean of {runs} per point (no {ERRORS[error]}: it needs 2 runs)", False
    where = "; none where a point has 1 run" if lo < 2 else ""
    return f"{name}: mean ± {ERRORS[error]} of {runs} per point{where}", True


def figure_title(metric: str, x: str, manifest: dict, short: str) -> str:
    """A figure's title: the metric's label against the parameter's axis title."""
    label = metric_label(metric)
    x_title = (manifest.get("labels") or {}).get(x) or short or x
    return f"{label} vs {x_title}" if short else f"{label} by policy"


def figure(data, x, others, metric, error, name, policies, manifest, short):
    """The figure of ``metric`` (long-form rows of :func:`market.experiments.report.summarize`)
    against ``x`` (a swept path, or ``variant`` for a sweep without parameters), a panel per
    combination of ``others``; ``name`` (the sweep's) opens the subtitle."""
    import plotly.express as px

    data = data[data["mean"].notna()].copy()
    subtitle, bars = interval_note(name, data["n"], error)
    data[error] = data[error].where(data["n"] >= 2)
    missing = [p for p in policies if p not in set(data["policy"])]
    policies = [p for p in policies if p not in missing]
    if missing:
        subtitle += f"<br>no value for {', '.join(missing)}"
    labels = manifest.get("labels") or {}
    facet = None
    if others:
        shorts = short_names([x, *others])
        data["panel"] = [
            ", ".join(f"{shorts[q]}={fmt(v)}" for q, v in zip(others, values, strict=True))
            for values in data[others].itertuples(index=False, name=None)
        ]
        facet = "panel"
    orders = {"policy": policies}
    numeric = pd.api.types.is_numeric_dtype(data[x]) and not pd.api.types.is_bool_dtype(data[x])
    log = numeric and geometric(data[x])
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
    label = metric_label(metric)
    x_title = labels.get(x) or short or x
    styles = policy_styles(policies)
    common = {
        "x": x,
        "y": "mean",
        "error_y": error if bars else None,
        "color": "policy",
        "symbol": "policy",
        "color_discrete_map": {p: c for p, (c, _) in styles.items()},
        "symbol_map": {p: m for p, (_, m) in styles.items()},
        "category_orders": orders,
        "hover_data": {"n": True, "sd": ":.4g", "ci95": ":.4g", "mean": ":.4g"},
        "labels": {"mean": label, x: x_title, "policy": "policy"},
        "log_x": log,
    }
    height = 520
    if facet:
        panels = data[facet].nunique()
        common.update(facet_col=facet, facet_col_wrap=min(3, panels), facet_row_spacing=0.08)
        height = 220 + 300 * math.ceil(panels / 3)
    draw = px.scatter if x == "variant" else partial(px.line, markers=True)
    fig = draw(data, **common)
    fig.update_traces(marker={"size": 8})
    points = sorted(set(data[x].dropna())) if numeric else []
    if log or 1 < len(points) <= 12:  # ticks at the sweep's points (not 5 6 7 8 9 0.1 ...)
        fig.update_xaxes(tickvals=points, ticktext=[fmt(float(v)) for v in points])
    dodge(fig, data, x, policies, log, numeric, facet)
    y_range, notes = robust_range(data, error)
    if y_range is not None:
        fig.update_yaxes(range=y_range)
        clipped = {note.split(" clipped", 1)[0] for note in notes}
        fig.for_each_trace(  # their error bars would cross every panel from top to bottom
            lambda t: t.update(error_y={"visible": False}) if t.name in clipped else None
        )
        notes = [f"{note}, error bars not drawn" for note in notes]
    title = figure_title(metric, x, manifest, short)
    sub = subtitle + (f"<br>y axis cut to the other policies: {'; '.join(notes)}" if notes else "")
    fig.update_layout(
        title={"text": f"{title}<br><sup>{sub}</sup>"},
        template="plotly_white",
        legend_title_text="policy",
        hovermode="closest",
        height=height + 20 * (bool(notes) + bool(missing)),
        margin={"t": (110 if facet else 80) + 20 * (bool(notes) + bool(missing))},
    )
    fig.for_each_annotation(lambda a: a.update(text=a.text.removeprefix("panel=")))
    return fig
