"""Risk across replications: the distribution of a money outcome at each point of a sweep.

A provider renting uncertain capacity cares about the bad tail, not only the mean (issue 18
item 5; the profit paper's Figure 7 shows means only). For each group of replications (a point
of the sweep and a policy) :func:`risk_table` gives, for profit and, when the results have it,
the clients' surplus:

- ``mean`` and ``ci95``, the half-width of the 95 % confidence interval of the mean (Student's
  t with n - 1 degrees of freedom; NaN for one replication);
- ``q05``: the 5 % quantile, linearly interpolated between order statistics (numpy's default,
  Hyndman & Fan type 7): with 10 runs, 0.45 of the way from the worst to the second worst;
- ``cvar05``: the conditional value at risk at 5 %, the mean of the worst 5 % of the
  distribution (expected shortfall, lower tail), each run weighing 1/n and the run straddling
  the 5 % boundary counted in part (Acerbi & Tasche 2002). With fewer than 20 runs the tail is
  less than one run, and CVaR is the worst run; it is never above ``q05``;
- ``p_loss``: the share of runs with a value below 0 (a run that breaks even is no loss).

The level is a parameter (``alpha``); the names keep ``05`` for the default only.
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
