"""Risk across replications: the distribution of a money outcome at each point of a sweep.

A provider renting uncertain capacity cares about the bad tail, not only the mean (the profit
paper's Figure 7 shows means only). Per point and policy, :func:`risk_table` gives for profit
(and the clients' surplus, where present): ``mean`` and ``ci95`` (Student's t), ``q05`` (the
5 % quantile, linear between order statistics), ``cvar05`` (the mean of the worst 5 %, the run
on the boundary counted in part, Acerbi & Tasche 2002; the worst run below 20 runs) and
``p_loss`` (the share of runs below 0). The level is a parameter (``alpha``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

#: The money columns whose distribution is reported, when the results have them.
OUTCOMES = ("profit", "surplus")
ALPHA = 0.05


def cvar(values: Sequence[float], alpha: float = ALPHA) -> float:
    """The mean of the worst ``alpha`` share of ``values`` (NaN for none)."""
    x = np.sort(np.asarray(values, dtype=float))
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        return math.nan
    tail = alpha * n  # runs in the tail, possibly fractional
    whole = math.floor(tail)
    total = math.fsum(x[:whole]) + (tail - whole) * (x[whole] if whole < n else 0.0)
    return total / tail


def describe(values: Sequence[float], alpha: float = ALPHA) -> dict[str, float]:
    """n, mean, ci95, the ``alpha`` quantile, CVaR at ``alpha`` and P(loss) of ``values``."""
    from scipy import stats

    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        return dict.fromkeys(("n", "mean", "ci95", "q05", "cvar05", "p_loss"), math.nan) | {"n": 0}
    sd = float(np.std(x, ddof=1)) if n > 1 else math.nan
    ci = float(stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)) if n > 1 else math.nan
    return {
        "n": n,
        "mean": float(np.mean(x)),
        "ci95": ci,
        "q05": float(np.quantile(x, alpha)),
        "cvar05": cvar(x, alpha),
        "p_loss": float(np.mean(x < 0)),
    }


def outcomes(frame: pd.DataFrame) -> list[str]:
    """The money columns of :data:`OUTCOMES` that ``frame`` has with some value (surplus only
    where the market records it)."""
    return [c for c in OUTCOMES if c in frame and frame[c].notna().any()]


def risk_table(frame: pd.DataFrame, by: list[str], alpha: float = ALPHA) -> pd.DataFrame:
    """One row per group of ``by`` and outcome: the statistics of :func:`describe`."""
    rows = []
    for outcome in outcomes(frame):
        for key, group in frame.groupby(by, sort=False, dropna=False):
            key = key if isinstance(key, tuple) else (key,)
            rows.append(
                {**dict(zip(by, key, strict=True)), "outcome": outcome}
                | describe(group[outcome], alpha)
            )
    columns = [*by, "outcome", "n", "mean", "ci95", "q05", "cvar05", "p_loss"]
    return pd.DataFrame(rows, columns=columns)
