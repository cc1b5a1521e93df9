"""Calibration of the profit paper's workload against the paper's own statements (Popovici &
Wilkes SC'05, §4-5 and Table 1).

Table 1 fixes the workload's means but not its size distribution, the share of steep-decay
jobs, the spread of decay rates, nor FirstReward's alpha and discount rate.
:func:`calibrate` scores each parameter set of a calibration sweep
(``scenarios/profit/calibration.yaml``) against :data:`STATEMENTS`, each a measurable check
with a tolerance read from the paper's wording (the bands are in the table; the reading of each
is in the profit guide). The default load is Table 1's 0.15 h; FirstReward variants are
recognised by their labels (``FirstReward a=ALPHA d=RATE``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from market.inputs.workloads.synthetic import ProfitWorkload

DEFAULT_INTERARRIVAL = 0.15  # hours, Table 1
INTERARRIVAL = "clients.0.workload.mean_interarrival"
WORKLOAD = "clients.0.workload."
PROFIT_AWARE = ("FirstProfit", "FirstOpportunity", "FirstOpportunityRate")
COST_OBLIVIOUS = ("SJF", "FirstPrice")  # with FirstReward: processors per job (LJF is fixed at 1)
PROFILE_SEEDS = range(1, 21)  # job streams drawn for the workload-only statements
REFERENCE_REWARD = "a=0.3 d=0.01"  # FirstReward's alpha and discount rate before calibration


@dataclass(frozen=True)
class Statement:
    """One quantitative statement of the paper, checked as ``low <= value <= high``."""

    key: str
    where: str
    claim: str
    low: float
    high: float

    def holds(self, value: float) -> bool:
        return bool(self.low <= value <= self.high)

    def miss(self, value: float) -> float:
        """How far ``value`` lies outside the band, relative to its width (0 inside)."""
        if math.isnan(value):
            return math.inf
        width = (self.high - self.low) if math.isfinite(self.high - self.low) else 1.0
        return max(self.low - value, value - self.high, 0.0) / width


STATEMENTS = (
    Statement("max_acceptance", "§5.1", "FirstProfit accepts at most ~70 %", 60, 80),
    Statement("profitable_load", "Table 1", "0.15 h offers ~2x the pool's work", 1.5, 2.5),
    Statement("first_price_break_even", "§5.4", "FirstPrice loses above ~8/h", 7, 10),
    Statement("first_reward_break_even", "§5.4", "FirstReward loses above ~8/h", 7, 10),
    Statement("first_reward_close", "§5.1", "FirstReward close to FirstProfit", 0.75, 1.25),
    Statement("first_price_close", "§5.1", "FirstPrice close to FirstProfit", 0.75, 1.25),
    Statement("higher_variation", "§5.1", "they vary more than FirstProfit", 1.0, math.inf),
    Statement("half_processors", "§5.1", "FP, FO ~half the processors", 0.35, 0.65),
    Statement("profit_aware_ahead", "§5.1", "profit-aware earn the most", 1.0, math.inf),
)


def workload_profile(
    workload: ProfitWorkload, price: float, capacity: int, seeds: Iterable[int] = PROFILE_SEEDS
) -> dict[str, float]:
    """What the workload offers an idle pool, averaged over job streams drawn with ``seeds``.

    ``profitable_pct``: jobs whose best standalone profit (started at arrival on their most
    profitable shape, value at completion minus ``price`` x processor-hours) is positive.
    ``profitable_load``: those jobs' processor-hours on that shape per hour of arrivals (first to
    last), over ``capacity``: the Table 1 caption's "potentially-profitable load".
    ``profitable_load_min``: the same on one processor (the fewest processor-hours).
    """
    shares, loads, minimal = [], [], []
    for seed in seeds:
        jobs = workload.generate(np.random.default_rng(seed))
        if len(jobs) < 2:
            return {"profitable_pct": math.nan, "profitable_load": math.nan}
        span = jobs[-1].arrival - jobs[0].arrival
        count, hours, hours_min = 0, 0.0, 0.0
        for job in jobs:
            best = max(
                (job.utility(job.arrival + job.runtime(n)) - price * n * job.runtime(n), -n, n)
                for n in job.shapes
            )
            if best[0] > 0:
                count += 1
                hours += best[2] * job.runtime(best[2])
                hours_min += job.shapes[0] * job.runtime(job.shapes[0])
        shares.append(100.0 * count / len(jobs))
        loads.append(hours / span / capacity)
        minimal.append(hours_min / span / capacity)
    return {
        "profitable_pct": float(np.mean(shares)),
        "profitable_load": float(np.mean(loads)),
        "profitable_load_min": float(np.mean(minimal)),
    }


def _by_variant(frame: pd.DataFrame) -> pd.DataFrame:
    """Per variant: mean and sd of the profit rate, means of the rest (one point's rows)."""
    grouped = frame.groupby("variant", sort=False)
    out = grouped[["profit_rate", "profit", "mean_processors", "accepted_pct", "revenue"]].mean()
    out["profit_rate_sd"] = grouped["profit_rate"].std(ddof=1)
    out["rented_hours"] = grouped["rent"].mean() / frame["price"].iloc[0]
    return out


def _score_set(default: pd.DataFrame, light: pd.DataFrame | None, reward: str, profile) -> dict:
    """The statements' values for one workload point with FirstReward variant ``reward``."""
    d = default.rename(index={reward: "FirstReward"})
    rate = d["profit_rate"]
    procs = d["mean_processors"]
    oblivious = procs[[*COST_OBLIVIOUS, "FirstReward"]].mean()
    half = [procs[name] / oblivious for name in ("FirstProfit", "FirstOpportunity")]
    baselines = ("LJF", "SJF", "FirstPrice", "FirstReward")
    break_even = d["revenue"] / d["rented_hours"]  # for the rent-blind: profit 0 at this price
    return {
        "max_acceptance": (
            light.loc["FirstProfit", "accepted_pct"] if light is not None else math.nan
        ),
        "profitable_load": profile["profitable_load"],
        "first_price_break_even": break_even["FirstPrice"],
        "first_reward_break_even": break_even["FirstReward"],
        "first_reward_close": rate["FirstReward"] / rate["FirstProfit"],
        "first_price_close": rate["FirstPrice"] / rate["FirstProfit"],
        "higher_variation": (
            min(d.loc["FirstReward", "profit_rate_sd"], d.loc["FirstPrice", "profit_rate_sd"])
            / d.loc["FirstProfit", "profit_rate_sd"]
        ),
        "half_processors": max(half, key=lambda r: abs(r - 0.5)),
        "profit_aware_ahead": min(rate[list(PROFIT_AWARE)]) / max(rate[list(baselines)]),
        "top_baseline": rate[list(baselines)].idxmax(),
        "last_profit_aware": rate[list(PROFIT_AWARE)].idxmin(),
    }


def _value_at(scenario, path: str):
    data = scenario.model_dump(mode="python")
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def score(frame: pd.DataFrame, scenario, reference_reward: str = REFERENCE_REWARD) -> pd.DataFrame:
    """One row per parameter set of a calibration sweep's results ``frame`` (as from
    :func:`market.experiments.batch.load_results`): the workload point's swept values, the
    FirstReward
    variant, each statement's value and whether it holds, the count that hold (``holds``), how
    many choices differ from ``scenario`` and FirstReward ``reference_reward`` (``changes``) and
    the summed relative miss of the statements that fail (``miss``). Best first: most statements
    held, then fewest changes (a choice is changed only if that makes more statements hold), then
    least miss. ``scenario`` is the sweep's base scenario (also for the workload-only
    statements)."""
    params = [p for p in frame.attrs.get("parameters", []) if p in frame.columns]
    keys = [p for p in params if p != INTERARRIVAL]
    price = frame.get("resource_providers.0.price", scenario.resource_providers[0].price)
    frame = frame.assign(price=price)
    light_ia = frame[INTERARRIVAL].max() if INTERARRIVAL in frame else None
    rewards = [v for v in dict.fromkeys(frame["variant"]) if v.startswith("FirstReward")]
    rows = []
    groups = frame.groupby(keys, sort=False) if keys else [((), frame)]
    for point, rows_at in groups:
        point = point if isinstance(point, tuple) else (point,)
        at = dict(zip(keys, point, strict=True))
        default = rows_at
        if INTERARRIVAL in rows_at:
            default = rows_at[np.isclose(rows_at[INTERARRIVAL], DEFAULT_INTERARRIVAL)]
        light = None
        if light_ia is not None and light_ia > DEFAULT_INTERARRIVAL:
            light = _by_variant(rows_at[np.isclose(rows_at[INTERARRIVAL], light_ia)])
        spec = scenario.with_overrides({**at, INTERARRIVAL: DEFAULT_INTERARRIVAL})
        rp = spec.resource_providers[0]
        profile = workload_profile(spec.clients[0].workload, rp.price, rp.capacity)
        summary = _by_variant(default)
        for reward in rewards:
            values = _score_set(summary, light, reward, profile)
            row = {k.removeprefix(WORKLOAD): v for k, v in at.items()}
            row["first_reward"] = reward.removeprefix("FirstReward").strip() or "default"
            row["profitable_pct"] = profile["profitable_pct"]
            row.update(values)
            checks = {s.key: s.holds(values[s.key]) for s in STATEMENTS}
            row["holds"] = sum(checks.values())
            changed = sum(not np.isclose(v, _value_at(scenario, k)) for k, v in at.items())
            row["changes"] = changed + (row["first_reward"] not in (reference_reward, "default"))
            row["miss"] = sum(s.miss(values[s.key]) for s in STATEMENTS)
            row["fails"] = " ".join(k for k, ok in checks.items() if not ok)
            rows.append(row)
    table = pd.DataFrame(rows)
    order = table.sort_values(
        ["holds", "changes", "miss"], ascending=[False, True, True], kind="stable"
    )
    return order.reset_index(drop=True)


def calibrate(results) -> pd.DataFrame:
    """Score the calibration sweep saved in ``results`` (see :func:`score`)."""
    from market.experiments.batch import BatchError, load_manifest, load_results
    from market.inputs.scenario import validate

    manifest = load_manifest(results)
    scenario = validate(manifest["scenario"], f"{results}/manifest.json").model_copy(
        update={"variants": {}, "sweep": None}
    )
    frame = load_results(results)
    missing = {"profit_rate", "mean_processors", "accepted_pct", "revenue", "rent"} - set(frame)
    if missing:
        raise BatchError(f"{results}: the sweep did not keep {', '.join(sorted(missing))}")
    for name in (*PROFIT_AWARE, *COST_OBLIVIOUS, "LJF"):
        if name not in set(frame["variant"]):
            raise BatchError(f"{results}: no variant {name!r} (see profit/calibration.yaml)")
    if not any(v.startswith("FirstReward") for v in frame["variant"]):
        raise BatchError(f"{results}: no FirstReward variant")
    return score(frame, scenario)


def markdown(table: pd.DataFrame, top: int | None = None) -> str:
    """``table`` (from :func:`score`) as a Markdown table, numbers rounded."""
    shown = table.head(top) if top else table
    cols = [c for c in shown.columns if c != "miss"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in shown.iterrows():
        cells = [f"{row[c]:.3g}" if isinstance(row[c], float) else str(row[c]) for c in cols]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(results, top: int = 10) -> str:
    """What ``gridmarket calibrate RESULTS`` prints: the statements with their bands, then the
    ``top`` parameter sets, best first."""
    lines = [
        f"{s.key} ({s.where}): {s.claim}; holds in [{s.low:g}, {s.high:g}]" for s in STATEMENTS
    ]
    table = calibrate(results)
    lines += ["", f"{len(table)} parameter sets; the {min(top, len(table))} best:", ""]
    return "\n".join(lines) + "\n" + markdown(table, top) + "\n"
