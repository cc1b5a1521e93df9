"""Dodging: the points and error bars of several policies at one x drawn side by side.

On a numeric axis each policy is moved by its own offset (:func:`offsets`), the same in every
panel: its place among the figure's policies, the offsets together spanning :data:`SPREAD` of
the smallest gap between two x values but at most :data:`REACH` of the x range (in log10 x on a
log axis, where the move is a factor), so that a point stays by its tick.
The hover text keeps the true x. On a categorical axis Plotly groups the points itself
(``scattermode="group"``). Nothing moves where no x has two policies.
"""

from __future__ import annotations

import numpy as np

#: The share of the smallest gap between two x values that the offsets span together.
SPREAD = 0.3
#: The share of the x range (smallest to largest x) that the offsets span together at most.
REACH = 0.06


def crowded(data, x: str, facet: str | None = None) -> bool:
    """Whether some x (in some panel) has the means of two policies or more."""
    keys = [x, facet] if facet else [x]
    drawn = data[data["mean"].notna()]
    counts = drawn.groupby(keys, sort=False)["policy"].nunique()
    return bool(counts.gt(1).any())


def offsets(policies: list[str], xs, log: bool = False) -> dict[str, float]:
    """Each policy's offset: added to x on a linear axis, to log10 x on a log axis."""
    values = np.unique(np.asarray(xs, dtype=float))
    values = values[np.isfinite(values) & ((values > 0) if log else True)]
    if len(policies) < 2 or not len(values):
        return dict.fromkeys(policies, 0.0)
    if log:
        values = np.log10(values)
    gaps = np.diff(values)
    single = 1.0 if log else (abs(float(values[0])) or 1.0)  # one point: a decade, its size
    gap = float(gaps.min()) if len(gaps) else single
    width = SPREAD * gap
    if len(gaps):
        width = min(width, REACH * float(values[-1] - values[0]))
    step = width / (len(policies) - 1)
    middle = (len(policies) - 1) / 2
    return {p: (i - middle) * step for i, p in enumerate(policies)}


def dodge(fig, data, x: str, policies: list[str], log: bool, numeric: bool, facet=None):
    """Move the traces of ``fig`` (one per policy and panel, named by policy) apart where some x
    of ``data`` has several policies; returns the offsets used (empty when none moved)."""
    if not crowded(data, x, facet):
        return {}
    present = [p for p in policies if p in set(data.loc[data["mean"].notna(), "policy"])]
    if not numeric:
        fig.update_layout(scattermode="group", scattergap=1 - SPREAD)
        fig.for_each_trace(lambda t: t.update(offsetgroup=t.name, alignmentgroup="policies"))
        return dict.fromkeys(present, 0.0)
    moves = offsets(present, data[x], log)
    for trace in fig.data:
        if trace.name not in moves or trace.x is None:
            continue
        true_x = np.asarray(trace.x, dtype=float)
        move = moves[trace.name]
        shifted = true_x * 10.0**move if log else true_x + move
        extra = true_x.reshape(-1, 1)
        if trace.customdata is None:
            custom, column = extra, 0
        else:
            custom = np.asarray(trace.customdata, dtype=object)
            custom = custom.reshape(len(true_x), -1)
            column = custom.shape[1]
            custom = np.hstack([custom, extra.astype(object)])
        template = (trace.hovertemplate or "").replace("%{x}", f"%{{customdata[{column}]}}")
        trace.update(x=shifted, customdata=custom, hovertemplate=template)
    return moves
