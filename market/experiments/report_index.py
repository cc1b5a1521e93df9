"""A report's ``index.html``: the figures first, then the risk table across replications.

The page opens with the sweep's title, what the figures show and a list of them by title; a
metric without any value gets no figure, only a line naming it. The risk table follows the
figures, styled: one block of rows per point (its values named once, a rule between points),
each policy with its colour (:mod:`market.experiments.style`), numbers right-aligned with
thousands separators, ``mean ± CI`` in one cell (``-``: one run has no interval), P(loss) in
% and highlighted where a run lost money, the header kept on screen while scrolling.
"""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from market.experiments.style import policy_styles

RISK_NOTE = (
    "Per point and policy, the distribution across replications: mean with the half-width of "
    "its 95 % confidence interval (none for a single run), the 5 % quantile (q05), the mean of "
    "the worst 5 % (CVaR 5 %; with fewer than 20 runs, the worst run) and the share of runs "
    "that lost money (P(loss))."
)
STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222} .fig{margin-bottom:2.5em}
h2{margin-top:2em} .note{color:#555;max-width:60em}
table.risk{border-collapse:collapse;font-size:0.9em;font-variant-numeric:tabular-nums}
table.risk th{position:sticky;top:0;background:#f3f3f3;text-align:left;padding:4px 10px;
  border-bottom:2px solid #999}
table.risk td{padding:3px 10px;border-bottom:1px solid #eee}
table.risk td.num{text-align:right;white-space:nowrap}
table.risk tr.first td{border-top:1px solid #999}
table.risk td.point{font-weight:600;vertical-align:top;background:#fafafa}
table.risk td.loss{background:#fde0dc}
.swatch{display:inline-block;width:0.8em;height:0.8em;margin-right:0.4em;border-radius:2px}
"""


def write_index(path: Path, figures, title: str, subtitle: str, risk=None, empty=(),
                names=None) -> None:  # fmt: skip
    """``index.html`` with ``figures`` (``(stem, title, figure)``), a line naming the ``empty``
    metrics, then the ``risk`` table (its point columns headed by ``names``)."""
    parts = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        '<script src="plotly.min.js"></script>',
        f"<style>{STYLE}</style>",
        "</head><body>",
        f"<h1>{html.escape(title)}</h1><p class='note'>{html.escape(subtitle)}</p>",
    ]
    if empty:
        parts.append(f"<p class='note'>No figure for {html.escape(', '.join(empty))}: "
                     "no run has a value.</p>")  # fmt: skip
    parts.append("<ul>")
    for stem, name, _ in figures:
        parts.append(f'<li><a href="#{stem}">{html.escape(name)}</a> '
                     f'(<a href="{stem}.html">own page</a>)</li>')  # fmt: skip
    if risk is not None:
        parts.append('<li><a href="#risk">Risk across replications (table)</a></li>')
    parts.append("</ul>")
    for stem, _, fig in figures:
        body = fig.to_html(full_html=False, include_plotlyjs=False)
        parts.append(f'<div class="fig" id="{stem}">{body}</div>')
    if risk is not None:
        parts.append('<div id="risk"><h2>Risk across replications</h2>')
        parts.append(f"<p class='note'>{html.escape(RISK_NOTE)}</p>")
        parts.append(risk_html(risk, names or {}))
        parts.append("</div>")
    parts.append("</body></html>")
    path.write_text("\n".join(parts), encoding="utf-8")


def _money(value) -> str:
    return "-" if pd.isna(value) else f"{value:,.1f}"


def risk_html(risk: pd.DataFrame, names: dict[str, str]) -> str:
    """The risk table as styled HTML (see the module docstring); ``names`` heads the point
    columns (the swept parameters), in order."""
    points = [c for c in names if c in risk]
    if points:
        risk = risk.sort_values(points, kind="stable").reset_index(drop=True)
    several = "provider" in risk and risk["provider"].nunique() > 1
    policy = risk["variant"].astype(str) + (" · " + risk["provider"] if several else "")
    styles = policy_styles(policy)
    outcomes = risk["outcome"].nunique() > 1
    heads = [*(names[c] for c in points), "policy", *(["outcome"] if outcomes else []), "runs",
             "mean ± 95 % CI", "q05", "CVaR 5 %", "P(loss)"]  # fmt: skip
    rows = ["<table class='risk'><thead><tr>"]
    rows += [f"<th>{html.escape(h)}</th>" for h in heads]
    rows.append("</tr></thead><tbody>")
    previous = None
    for i, row in enumerate(risk.itertuples(index=False)):
        record = dict(zip(risk.columns, row, strict=True))
        point = tuple(record[c] for c in points)
        first = point != previous
        previous = point
        cells = []
        for c in points:
            text = _value(record[c]) if first else ""
            cells.append(f"<td class='point'>{html.escape(text)}</td>")
        name = policy.iloc[i]
        colour = styles[name][0]
        cells.append(f"<td><span class='swatch' style='background:{colour}'></span>"
                     f"{html.escape(str(name))}</td>")  # fmt: skip
        if outcomes:
            cells.append(f"<td>{html.escape(str(record['outcome']))}</td>")
        ci = record["ci95"]
        mean = _money(record["mean"]) + ("" if pd.isna(ci) else f" ± {_money(ci)}")
        loss = record["p_loss"]
        loss_text = "-" if pd.isna(loss) else f"{100 * loss:.0f} %"
        lost = " loss" if loss and loss > 0 else ""
        cells += [f"<td class='num'>{int(record['n'])}</td>", f"<td class='num'>{mean}</td>",
                  f"<td class='num'>{_money(record['q05'])}</td>",
                  f"<td class='num'>{_money(record['cvar05'])}</td>",
                  f"<td class='num{lost}'>{loss_text}</td>"]  # fmt: skip
        rows.append(f"<tr class='{'first' if first else ''}'>{''.join(cells)}</tr>")
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _value(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
