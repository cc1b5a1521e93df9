"""How the profit paper's claims (:mod:`.profit`) are measured on the sweeps' results.

Bands are the calibration's (:mod:`market.experiments.calibration`); "at the default load" is
Table 1's 0.15 h mean inter-arrival time.
FirstPrice and FirstReward ignore rent, so their schedule is the same at every price and their
break-even price is revenue / processor-hours rented, measured at the default price.
"""

from __future__ import annotations

import math
from itertools import combinations

from agents.policies.profit import FirstReward
from market.experiments.calibration import STATEMENTS, workload_profile
from market.experiments.claims.claim import (
    Ours,
    Results,
    by_value,
    listing,
    monotone,
    num,
    verdict,
)
from market.inputs.scenario import load

FP, FO, FOR = "FirstProfit", "FirstOpportunity", "FirstOpportunityRate"
AWARE = (FP, FO, FOR)
OBLIVIOUS = ("LJF", "SJF", "FirstPrice", "FirstReward")
DEFAULT, LIGHT, HEAVY = 0.15, 1.0, 0.05  # mean inter-arrival times (h)
PRICE = 3.0  # Table 1
RISK = "FirstProfit (5%)"  # risk-aware: plans that hold with probability 0.95 (§6)
FR_NO_COST = "FirstReward (alpha 1)"
NO_COST_ALPHA = 1.0  # FR_NO_COST's alpha: no opportunity cost
FIG7 = "profit/fig7_uncertainty"
FIRST_REWARD_ALPHA = FirstReward().alpha  # ours (the paper gives none): the default scenarios'


def band(key: str) -> tuple[float, float]:
    """The tolerance :mod:`market.experiments.calibration` gives statement ``key``."""
    statement = next(s for s in STATEMENTS if s.key == key)
    return statement.low, statement.high


def rates(r: Results, names, load: float = DEFAULT, metric: str = "profit_rate") -> dict:
    return {n: r.mean("fig3", metric, n, load=load) for n in names}


def break_even(r: Results, name: str, load: float = DEFAULT) -> float:
    """Revenue / processor-hours rented of a rent-blind scheduler (its profit is zero there)."""
    rows = r.rows("fig3", name, load=load)
    return rows.revenue.sum() / (rows.rent.sum() / PRICE)


# -- §5.1, Figure 3 --------------------------------------------------------------------------------
def acceptance_falls(r: Results) -> Ours:
    loads = sorted(r.axis("fig3", "load"), reverse=True)  # light to heavy
    series = {n: [r.mean("fig3", "accepted_pct", n, load=t) for t in loads] for n in (FP, "LJF")}
    low, high = band("max_acceptance")
    falls = all(monotone(s, decreasing=True) and s[0] > s[-1] + 10 for s in series.values())
    peak = series[FP][0]
    text = f"% accepted from {loads[0]:g} h to {loads[-1]:g} h: " + "; ".join(
        f"{n} " + " → ".join(num(x, 0) for x in s) for n, s in series.items()
    )
    return Ours(verdict(falls and low <= peak <= high, falls), text, {"peak": peak})


def oblivious_accept_more(r: Results) -> Ours:
    light = rates(r, (FP, "FirstPrice", "FirstReward"), LIGHT, "accepted_pct")
    default = rates(r, (FP, "FirstPrice", "FirstReward"), DEFAULT, "accepted_pct")
    holds = min(light["FirstPrice"], light["FirstReward"]) > light[FP]
    text = f"% accepted at {LIGHT:g} h: {listing(light)}; at {DEFAULT:g} h: {listing(default)}"
    return Ours(verdict(holds), text, light)


def half_processors(r: Results) -> Ours:
    procs = rates(r, ("SJF", "FirstPrice", "FirstReward", FP, FO), metric="mean_processors")
    oblivious = (procs["SJF"] + procs["FirstPrice"] + procs["FirstReward"]) / 3
    ratios = {n: procs[n] / oblivious for n in (FP, FO)}
    low, high = band("half_processors")
    holds = all(low <= x <= high for x in ratios.values())
    text = f"processors per job: {listing(procs)}; FP, FO / oblivious: {listing(ratios, 2)}"
    return Ours(verdict(holds), text, ratios)


def opportunity_predicts_best(r: Results) -> Ours:
    realised = rates(r, (*OBLIVIOUS, *AWARE), metric="realised_pct")
    best_two = sorted(realised, key=realised.get, reverse=True)[:2]
    holds = set(best_two) == {FO, FOR}
    text = f"% of predicted profit realised at {DEFAULT:g} h: {by_value(realised)}"
    return Ours(verdict(holds, FOR in best_two or FO in best_two), text, realised)


def load_raises_profit_rate(r: Results) -> Ours:
    """Rises for a scheduler if its profit rate is higher at the heaviest load than at the
    lightest and is never lower at a load than at a lighter one by more than two standard errors
    of the difference (a fall within the seeds' noise is not a fall)."""
    loads = sorted(r.axis("fig3", "load"), reverse=True)  # light to heavy
    names = (*OBLIVIOUS, *AWARE)
    rising, noise, parts = [], [], []
    for n in names:
        values = [r.values("fig3", "profit_rate", n, load=t) for t in loads]
        means = [float(v.mean()) for v in values]
        falls = []
        for (t0, a), (t1, b) in combinations(zip(loads, values, strict=True), 2):
            if b.mean() < a.mean():
                se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
                falls.append((b.mean() < a.mean() - 2 * se, f"{n} {t0:g} → {t1:g} h"))
        if means[-1] > means[0] and not any(big for big, _ in falls):
            rising.append(n)
        noise += [where for big, where in falls if not big]
        parts.append(f"{n} " + "→".join(num(x, 0) for x in means))
    text = (
        f"profit/h from {loads[0]:g} h to {loads[-1]:g} h rises for {len(rising)} of 7: "
        + ", ".join(parts)
        + f"; falls within 2 standard errors: {'; '.join(noise) or 'none'}"
    )
    return Ours(verdict(len(rising) == 7, len(rising) >= 5), text, {"rising": len(rising)})


def profit_aware_ahead(r: Results) -> Ours:
    """Across Figure 3e's loads: the share of (load, profit-aware, cost-oblivious) pairs the
    profit-aware scheduler wins; holds from 90 %, partial from 50 %."""
    won, behind = 0, []
    loads = r.axis("fig3", "load")
    for t in loads:
        profit = rates(r, (*OBLIVIOUS, *AWARE), t)
        for a in AWARE:
            beaten = [o for o in OBLIVIOUS if profit[o] >= profit[a]]
            won += len(OBLIVIOUS) - len(beaten)
            behind += [f"{a} < {o} at {t:g} h" for o in beaten]
    share = won / (len(loads) * len(AWARE) * len(OBLIVIOUS))
    default = rates(r, (*OBLIVIOUS, *AWARE))
    procs = rates(r, ("LJF", FP, FO), metric="mean_processors")
    text = (
        f"profit-aware ahead in {num(100 * share, 0)} % of the pairs over the loads "
        f"{', '.join(f'{t:g}' for t in loads)} h; behind: {'; '.join(behind) or 'none'}. "
        f"Profit/h at {DEFAULT:g} h: {by_value(default)}; processors per job: {listing(procs)}"
    )
    return Ours(verdict(share >= 0.9, share >= 0.5), text, {"share": share})


def for_leads(r: Results) -> Ours:
    profit = rates(r, (*OBLIVIOUS, *AWARE))
    accepted = rates(r, (FP, FO, FOR), metric="accepted_pct")
    leads = max(profit, key=profit.get) == FOR
    selective = accepted[FOR] < min(accepted[FP], accepted[FO])
    text = f"profit/h at {DEFAULT:g} h: {by_value(profit)}; % accepted: {listing(accepted)}"
    return Ours(verdict(leads and selective, leads), text, profit)


def close_to_first_profit(name: str):
    def ours(r: Results) -> Ours:
        profit = rates(r, (name, FP))
        ratio = profit[name] / profit[FP]
        low, high = band("first_reward_close" if name == "FirstReward" else "first_price_close")
        procs = rates(r, (name, FP), metric="mean_processors")
        accepted = rates(r, (name, FP), metric="accepted_pct")
        text = (
            f"profit/h at {DEFAULT:g} h: {listing(profit)}; ratio {num(ratio, 2)}; processors "
            f"per job: {listing(procs)}; % accepted: {listing(accepted)}"
        )
        return Ours(verdict(low <= ratio <= high), text, {"ratio": ratio})

    return ours


def higher_variation(r: Results) -> Ours:
    names = ("FirstReward", "FirstPrice", FP)
    sd = {n: r.sd("fig3", "profit_rate", n, load=DEFAULT) for n in names}
    cv = {n: sd[n] / r.mean("fig3", "profit_rate", n, load=DEFAULT) for n in names}
    more = [n for n in ("FirstReward", "FirstPrice") if sd[n] > sd[FP]]
    text = f"sd of profit/h at {DEFAULT:g} h: {listing(sd)}; sd / mean: {listing(cv, 2)}"
    return Ours(verdict(len(more) == 2, bool(more)), text, sd)


def accept_all_poor(r: Results) -> Ours:
    loads = (HEAVY, DEFAULT)
    profit = {}
    for name in ("FirstProfit, accept all", FP):
        for t in loads:
            profit[f"{name} at {t:g} h"] = r.mean("fig3", "profit_rate", name, load=t)
    holds = all(profit[f"FirstProfit, accept all at {t:g} h"] < 0 for t in loads)
    return Ours(verdict(holds), "profit/h: " + listing(profit), profit)


def profitable_load(r: Results) -> Ours:
    scenario = load("profit/default")
    provider = scenario.resource_providers[0]
    profile = workload_profile(scenario.clients[0].workload, provider.price, provider.capacity)
    (lo, hi), (alo, ahi) = band("profitable_load"), band("max_acceptance")
    load_x, pct = profile["profitable_load"], profile["profitable_pct"]
    text = (
        f"profitable load {num(load_x, 2)} pools; {num(pct)} % of jobs profitable on an idle pool"
    )
    return Ours(verdict(lo <= load_x <= hi and alo <= pct <= ahi), text, profile)


# -- §5.2, Figure 4; §5.4, Figure 6 ---------------------------------------------------------------
def impatience_lowers_profit(r: Results) -> Ours:
    decays = r.axis("fig4", "decay")
    series = r.curves("fig4", "profit_rate", ("SJF", FP, FOR), "decay")
    procs = [r.mean("fig4", "mean_processors", FP, decay=d) for d in decays]
    length = [r.mean("fig4", "end_time", FP, decay=d) for d in decays]
    falling = [n for n, s in series.items() if monotone(s, decreasing=True)]
    top = {n: decays[s.index(max(s))] for n, s in series.items()}
    text = (
        f"profit/h at decay {', '.join(f'{d:g}' for d in decays)} florins/h: "
        + "; ".join(f"{n} " + " → ".join(num(x, 0) for x in s) for n, s in series.items())
        + f"; FP processors per job {' → '.join(num(x) for x in procs)}"
        + f", FP run length (h) {' → '.join(num(x, 0) for x in length)}"
    )
    holds = len(falling) == len(series) and monotone(procs)
    return Ours(verdict(holds, bool(falling) and monotone(procs)), text, top)


def narrower_as_price_rises(r: Results) -> Ours:
    prices = r.axis("fig6", "price")
    procs = r.curves("fig6", "mean_processors", (FP, "FirstPrice", "SJF"), "price")
    aware = monotone(procs[FP], decreasing=True) and procs[FP][0] > procs[FP][-1] + 0.5
    blind = all(max(s) - min(s) < 0.05 for n, s in procs.items() if n != FP)
    text = f"processors per job at {', '.join(f'{p:g}' for p in prices)} per processor-hour: " + (
        "; ".join(f"{n} " + " → ".join(num(x) for x in s) for n, s in procs.items())
    )
    return Ours(verdict(aware and blind, aware), text)


def negative_above_8(name: str):
    def ours(r: Results) -> Ours:
        prices = [p for p in r.axis("fig6", "price") if p > 8]
        profit = {p: r.mean("fig6", "profit", name, price=p) for p in prices}
        even = break_even(r, name)
        light = break_even(r, name, LIGHT)
        accepted = {
            f"{t:g} h": r.mean("fig3", "accepted_pct", name, load=t) for t in (DEFAULT, LIGHT)
        }
        low, high = band("first_price_break_even")
        text = (
            f"profit at {', '.join(f'{p:g}' for p in prices)} per processor-hour: "
            f"{', '.join(num(x, 0) for x in profit.values())}; breaks even at {num(even)} "
            f"(at {LIGHT:g} h inter-arrival: {num(light)}); % accepted: {listing(accepted)}"
        )
        if name == "FirstReward":
            rate = r.mean("fig3", "profit_rate", FR_NO_COST, load=DEFAULT)
            text += (
                f"; with alpha 1 (no opportunity cost): breaks even at "
                f"{num(break_even(r, FR_NO_COST))}, accepts "
                f"{num(r.mean('fig3', 'accepted_pct', FR_NO_COST, load=DEFAULT))} %, earns "
                f"{num(rate / r.mean('fig3', 'profit_rate', FP, load=DEFAULT), 2)} x FP's rate"
            )
        holds = all(x < 0 for x in profit.values()) and low <= even <= high
        return Ours(verdict(holds, light <= high), text, {"break_even": even, "light": light})

    return ours


def cheaper_lowers_profit_rate(r: Results) -> Ours:
    prices = r.axis("fig6", "price")
    cheap, default = prices[0], PRICE
    at_cheap = r.means("fig6", "profit_rate", (FP, FOR), price=cheap)
    at_default = r.means("fig6", "profit_rate", (FP, FOR), price=default)
    profit = {n: (at_cheap[n], at_default[n]) for n in (FP, FOR)}
    fp_falls = profit[FP][0] < profit[FP][1]
    for_change = profit[FOR][0] / profit[FOR][1] - 1
    fp_change = profit[FP][0] / profit[FP][1] - 1
    text = (
        f"profit/h at {default:g} → {cheap:g} per processor-hour: FP {num(profit[FP][1])} → "
        f"{num(profit[FP][0])} ({num(100 * fp_change, 0)} %), FOR {num(profit[FOR][1])} → "
        f"{num(profit[FOR][0])} ({num(100 * for_change, 0)} %); FOR accepts "
        + " → ".join(
            num(r.mean("fig6", "accepted_pct", FOR, price=p)) + " %" for p in (default, cheap)
        )
        + ", processors per job "
        + " → ".join(num(r.mean("fig6", "mean_processors", FOR, price=p)) for p in (default, cheap))
        + ", run length (h) "
        + " → ".join(num(r.mean("fig6", "end_time", FOR, price=p), 0) for p in (default, cheap))
    )
    return Ours(verdict(fp_falls and for_change >= 0, fp_falls and for_change > fp_change), text)


# -- §6, Figure 7; §7 ------------------------------------------------------------------------------
def risk_aware_admit_fewer(r: Results) -> Ours:
    sigmas = r.axis("fig7", "sigma")
    accepted = r.curves("fig7", "accepted_pct", ("FirstProfit (5%)", FP), "sigma")
    aware, oblivious = accepted["FirstProfit (5%)"], accepted[FP]
    holds = aware[-1] < aware[0] - 5 and abs(oblivious[-1] - oblivious[0]) < 3
    text = f"% admitted at sigma {', '.join(f'{s:g}' for s in sigmas)}: " + "; ".join(
        f"{n} " + " → ".join(num(x) for x in s) for n, s in accepted.items()
    )
    return Ours(verdict(holds), text)


def oblivious_lose_money(r: Results) -> Ours:
    top = max(r.axis("fig7", "sigma"))
    oblivious = (FP, "LJF", "SJF", "FirstPrice", "FirstReward")
    worst = {n: float(r.values("fig7", "profit", n, sigma=top).min()) for n in (*oblivious, RISK)}
    lost = [n for n in oblivious if worst[n] < 0]
    aware_kept = worst[RISK] >= 0
    text = f"lowest profit of a run at sigma {top:g}: {listing(worst, 0)}"
    return Ours(verdict(bool(lost) and aware_kept, aware_kept), text, worst)


def sjf_beats_price_and_reward(r: Results) -> Ours:
    profit = rates(r, ("SJF", "FirstPrice", "FirstReward"))
    light = rates(r, ("SJF", "FirstPrice", "FirstReward"), LIGHT)
    beats = [n for n in ("FirstPrice", "FirstReward") if profit["SJF"] > 1.2 * profit[n]]
    text = f"profit/h at {DEFAULT:g} h: {listing(profit)}; at {LIGHT:g} h: {listing(light)}"
    return Ours(verdict(len(beats) == 2, bool(beats)), text, profit)


# -- the figures the gaps quote (profit.GAPS) -----------------------------------------------------
def widest_cost(r: Results) -> dict:
    """Amdahl's cost of the widest shape of the default workload, in processor-hours of one."""
    work = load("profit/default").clients[0].workload
    widest = max(work.shapes)
    return {
        "serial": 100 * work.serial_fraction,
        "widest": widest,
        "wide_cost": widest * work.serial_fraction + 1 - work.serial_fraction,
    }


def rent_blind_cost(r: Results) -> dict:
    """FirstPrice's shapes, processor-hours a job and profit rate against FirstProfit's."""
    procs = rates(r, ("FirstPrice", FP), metric="mean_processors")
    hours = {n: r.rows("fig3", n, load=DEFAULT) for n in ("FirstPrice", FP)}
    per_job = {n: rows.rent.sum() / rows.accepted.sum() for n, rows in hours.items()}
    rate = rates(r, ("FirstPrice", FP))
    return {
        "price_procs": procs["FirstPrice"],
        "fp_procs": procs[FP],
        "price": PRICE,
        "hours_ratio": per_job["FirstPrice"] / per_job[FP],
        "rate_ratio": rate["FirstPrice"] / rate[FP],
    }


def impatience(r: Results) -> dict:
    """The last decay at which a scheduler's rate peaks; FirstProfit's shapes at the slowest."""
    decays = r.axis("fig4", "decay")
    series = r.curves("fig4", "profit_rate", ("SJF", FP, FOR), "decay")
    last_peak = max(decays[s.index(max(s))] for s in series.values())
    slow = decays[0]
    slow_procs = r.mean("fig4", "mean_processors", FP, decay=slow)
    return {"last_peak": last_peak, "slow": slow, "slow_procs": slow_procs}


def first_reward_break_even(r: Results) -> dict:
    """FirstReward's break-even prices, its weight of the opportunity cost, and without it."""
    rate = rates(r, (FR_NO_COST, FP))
    return {
        "light": LIGHT,
        "light_even": break_even(r, "FirstReward", LIGHT),
        "cost_weight": round(1 - FIRST_REWARD_ALPHA, 6),
        "even": break_even(r, "FirstReward"),
        "no_cost_alpha": NO_COST_ALPHA,
        "no_cost_even": break_even(r, FR_NO_COST),
        "no_cost_ratio": rate[FR_NO_COST] / rate[FP],
    }


def cheapest_price(r: Results) -> dict:
    """The lowest price run."""
    return {"cheap": min(r.axis("fig6", "price"))}


def uncertainty_bounds(r: Results) -> dict:
    """The lowest value a job can decay to, the largest sigma run and the pool's size."""
    scenario = load(FIG7)
    return {
        "penalty": scenario.clients[0].workload.penalty_bound,
        "sigma": max(r.axis("fig7", "sigma")),
        "capacity": scenario.resource_providers[0].capacity,
    }
