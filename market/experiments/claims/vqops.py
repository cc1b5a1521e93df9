"""The VQoPS/DVQoPS paper's claims (Islam, Balaji, Sabin & Sadayappan, OSU-CISRC-3/07-TR17,
Table 1, §5, Figures 5-12) on SDSC-SP2 and CTC-SP2 (``scenarios/vqops/``).

Each row of Table 1 is a sweep of its own (urgent cost C, urgent share U, load factor L,
estimates) running QoPS, VQoPS at the five OC-Factors and DVQoPS on one job stream; the gain is
revenue over QoPS's, less 1. Full size: the first 10,000 jobs (§3); quick: the first 800 (SDSC)
or 1,000 (CTC). The paper's offered loads are 89 % (SDSC, original) and 125 % (high), 74 % and
104 % (CTC); our first 10,000 SDSC jobs offer 74 % at L = 1 and 102 % at 1.4, so the rows
``paper-load`` scale SDSC by 1.2 and 1.7 to the paper's loads (CTC's 76 % and 111 % are close).
"""

from __future__ import annotations

from market.experiments.claims.claim import (
    Claim,
    Ours,
    Paper,
    Results,
    Size,
    Sweep,
    listing,
    num,
    verdict,
)
from market.inputs.scenario import load

STATIC = ("VQoPS 0", "VQoPS 0.05", "VQoPS 0.1", "VQoPS 0.2", "VQoPS 0.4")
W = "clients.0.workload."
QUICK_JOBS = {"sdsc": 800, "ctc": 1000}  # the quick size: the first jobs of each trace
PAPER_LOAD = {"SDSC": 89, "CTC": 74}  # the paper's original offered loads, % (§5.2)


def row(name: str, trace: str, cost: float, share: float, load: float, estimates="exact") -> Sweep:
    sets = {W + "urgent_cost": cost, W + "urgent_fraction": share, W + "load_factor": load}
    sets[W + "estimates"] = estimates
    quick = {**sets, W + "first_jobs": QUICK_JOBS[trace]}
    return Sweep(name, f"vqops/{trace}", {}, full=Size(sets=sets), quick=Size(sets=quick))


SWEEPS = (
    row("sdsc-10x-80", "sdsc", 10, 0.8, 1.0),
    row("sdsc-10x-80-high", "sdsc", 10, 0.8, 1.4),
    row("sdsc-2x-80", "sdsc", 2, 0.8, 1.0),
    row("sdsc-10x-20", "sdsc", 10, 0.2, 1.0),
    row("sdsc-10x-80-high-trace", "sdsc", 10, 0.8, 1.4, "trace"),
    row("sdsc-10x-80-paper-load", "sdsc", 10, 0.8, 1.2),
    row("sdsc-10x-50-paper-load", "sdsc", 10, 0.5, 1.2),
    row("sdsc-10x-80-paper-high", "sdsc", 10, 0.8, 1.7),
    row("ctc-10x-80", "ctc", 10, 0.8, 1.0),
    row("ctc-10x-80-high", "ctc", 10, 0.8, 1.4),
)
ROWS = tuple(s.name for s in SWEEPS)


def gains(r: Results, sweep: str, names=(*STATIC, "DVQoPS")) -> dict[str, float]:
    """Revenue gain over QoPS, %, of each of ``names`` on row ``sweep``."""
    qops = r.mean(sweep, "revenue", "QoPS")
    return {n: 100.0 * (r.mean(sweep, "revenue", n) / qops - 1.0) for n in names}


def short(name: str) -> str:
    return name.removeprefix("VQoPS ")


def gain_text(values: dict[str, float]) -> str:
    return ", ".join(f"{short(k)}: {num(v)}" for k, v in values.items())


def all_gain_at_10x(r: Results) -> Ours:
    original, high = gains(r, "sdsc-10x-80", STATIC), gains(r, "sdsc-10x-80-high", STATIC)
    holds = min(original.values()) > 0 and min(high.values()) > max(original.values())
    text = f"SDSC 10X 80 % gain %, original: {gain_text(original)}; high: {gain_text(high)}"
    return Ours(verdict(holds, min(high.values()) > 0), text)


def paper_load_gains(r: Results) -> Ours:
    subset = gains(r, "sdsc-10x-80", STATIC)
    paper = {**gains(r, "sdsc-10x-80-paper-load", STATIC)}
    half = gains(r, "sdsc-10x-50-paper-load", STATIC)
    lowest = min(min(paper.values()), min(half.values()))
    highest = max(max(paper.values()), max(half.values()))
    text = (
        f"SDSC 10X gain % at the paper's {PAPER_LOAD['SDSC']} % load (L = "
        f"{definition(r)['scale']:g}), U = 80 %: {gain_text(paper)}; U = 50 %: "
        f"{gain_text(half)}; at the subset's own load (U = 80 %): {gain_text(subset)}"
    )
    return Ours(verdict(lowest >= 15.0 and highest <= 55.0, highest >= 15.0), text)


def no_single_best(r: Results) -> Ours:
    best = {}
    for sweep in ROWS:
        values = gains(r, sweep, STATIC)
        best[sweep] = short(max(values, key=values.get))
    text = "best static OC-Factor per row: " + ", ".join(f"{k} {v}" for k, v in best.items())
    return Ours(verdict(len(set(best.values())) > 1), text, best)


def cheap_urgent_high_oc_lose(r: Results) -> Ours:
    values = gains(r, "sdsc-2x-80", STATIC)
    holds = values["VQoPS 0.2"] < 0 and values["VQoPS 0.4"] < 0 and values["VQoPS 0"] > 0
    return Ours(verdict(holds), f"SDSC 2X 80 % gain %: {gain_text(values)}", values)


def dvqops_within_5(r: Results) -> Ours:
    ratio = {}
    for sweep in ROWS:
        best = max(r.mean(sweep, "revenue", n) for n in STATIC)
        ratio[sweep] = 100.0 * r.mean(sweep, "revenue", "DVQoPS") / best
    misses = [k for k, v in ratio.items() if v < 95.0]
    text = "DVQoPS revenue, % of the best static OC-Factor's: " + listing(ratio)
    return Ours(verdict(not misses, len(misses) <= len(ratio) // 2), text, ratio)


def differentiation(r: Results) -> Ours:
    sweep = "sdsc-10x-80-high"
    accepted = {
        n: (r.mean(sweep, "urgent_accepted_pct", n), r.mean(sweep, "normal_accepted_pct", n))
        for n in ("QoPS", "VQoPS 0.1", "VQoPS 0.4", "DVQoPS")
    }
    qops_alike = abs(accepted["QoPS"][0] - accepted["QoPS"][1]) < 10
    picky = accepted["VQoPS 0.4"][1] < 5 and accepted["VQoPS 0.4"][0] > 30
    text = "% accepted urgent / normal, SDSC 10X 80 % high: " + ", ".join(
        f"{k} {num(u, 0)} / {num(n, 0)}" for k, (u, n) in accepted.items()
    )
    return Ours(verdict(qops_alike and picky), text)


def inexact_lower(r: Results) -> Ours:
    exact, inexact = (
        gains(r, "sdsc-10x-80-high", STATIC),
        gains(r, "sdsc-10x-80-high-trace", STATIC),
    )
    best_exact, best_inexact = max(exact, key=exact.get), max(inexact, key=inexact.get)
    lower = max(inexact.values()) < max(exact.values())
    laxer = STATIC.index(best_inexact) < STATIC.index(best_exact)
    text = f"SDSC 10X 80 % high gain %, exact: {gain_text(exact)}; trace: {gain_text(inexact)}"
    return Ours(verdict(lower and laxer, lower), text)


def ctc_smaller_than_sdsc(r: Results) -> Ours:
    ctc, sdsc = gains(r, "ctc-10x-80", STATIC), gains(r, "sdsc-10x-80", STATIC)
    paper_sdsc = gains(r, "sdsc-10x-80-paper-load", STATIC)
    rows = {"CTC": "ctc-10x-80", "SDSC": "sdsc-10x-80", "SDSC x1.2": "sdsc-10x-80-paper-load"}
    turned_away = {k: r.mean(v, "unadmitted_work_pct", "QoPS") for k, v in rows.items()}
    holds = max(ctc.values()) < max(sdsc.values())
    text = (
        f"10X 80 % original-load gain %, CTC: {gain_text(ctc)}; SDSC: {gain_text(sdsc)}; "
        f"SDSC at 1.2x: {gain_text(paper_sdsc)}; % of processor-hours QoPS turns away: "
        f"{listing(turned_away)}"
    )
    return Ours(verdict(holds, max(ctc.values()) < max(paper_sdsc.values())), text, turned_away)


def ctc_magnitudes(r: Results) -> Ours:
    original, high = gains(r, "ctc-10x-80", STATIC), gains(r, "ctc-10x-80-high", STATIC)
    holds = max(original.values()) <= 10.0 and 50.0 <= max(high.values()) <= 150.0
    text = f"CTC 10X 80 % gain %, original: {gain_text(original)}; high: {gain_text(high)}"
    return Ours(verdict(holds, max(high.values()) >= 50.0), text)


def definition(r: Results) -> dict:
    """The sizes the gaps name: the full size's and the quick size's jobs on SDSC-SP2, and the
    scale of the rows at the paper's load."""
    sweep = next(s for s in SWEEPS if s.name == "sdsc-10x-80-paper-load")
    return {
        "jobs": load(sweep.scenario).clients[0].workload.first_jobs,
        "quick_jobs": QUICK_JOBS["sdsc"],
        "scale": sweep.full.sets[W + "load_factor"],
        "paper_sdsc": PAPER_LOAD["SDSC"],
        "paper_ctc": PAPER_LOAD["CTC"],
    }


def shortfalls(r: Results) -> dict:
    """How far DVQoPS falls short of the best static OC-Factor, %: the lowest and highest on the
    rows at the paper's load or with the trace's estimates (mid), and at high load."""
    short = {k: 100.0 - v for k, v in dvqops_within_5(r).values.items()}
    mid = [v for k, v in short.items() if k.endswith(("paper-load", "trace"))]
    high = [v for k, v in short.items() if k.endswith(("-high", "paper-high"))]
    return {"mid_lo": min(mid), "mid_hi": max(mid), "high_lo": min(high), "high_hi": max(high)}


def turned_away(r: Results) -> dict:
    """The share of processor-hours QoPS turns away on CTC-SP2 and SDSC-SP2 at the original load,
    and on SDSC-SP2 scaled to the paper's."""
    rows = {"ctc": "ctc-10x-80", "sdsc": "sdsc-10x-80", "scaled": "sdsc-10x-80-paper-load"}
    work = {k: r.mean(row, "unadmitted_work_pct", "QoPS") for k, row in rows.items()}
    return definition(r) | work


#: Why a claim does not hold, with the evidence: templates whose fields the functions above
#: fill from the same runs (the claim's own figures: "ours").
GAPS = {
    "paper-load-gains": (
        "The quick rows are the first {quick_jobs:,} jobs, a few days of light load even scaled "
        "by {scale:g}, so little is at stake; on the first {jobs:,} jobs scaled to the paper's "
        "{paper_sdsc} % offered load the gains are the paper's size."
    ),
    "dvqops-within-5": (
        "DVQoPS is within 5 % of the best static OC-Factor at the subsets' own load (above: the "
        "rows without high or paper in their names), {mid_lo:.0f}-{mid_hi:.0f} % short at the "
        "paper's load and with the trace's estimates, and {high_lo:.0f}-{high_hi:.0f} % short at "
        "high load. At high load not because its what-ifs start from an empty machine (our "
        'choice; §4.3.2 says only that DVQoPS "runs the simulation starting candidate rollback '
        "interval hours in the past\"): started from the live machine at the window's first "
        "arrival (whatif_start: live, docs/papers/vqops.md) it gains a few points on the rows "
        "where it is closer and loses a few at high load. Measured instead, with the what-if "
        "simulations of agents/policies/whatif.py tiled over the whole run of the high-load "
        "rows: short rollback windows rank the OC-Factors the wrong way. Summed, what-ifs over "
        "windows of a few hours earn most at the lowest OC-Factors and least at the highest, "
        "and most of them tie (every candidate admits the same jobs); only windows of a day or "
        "more put the high OC-Factors first, as the live runs do. DVQoPS decides about half the "
        "jobs at the lowest OC-Factor, often with a short window (the per-job table's oc_factor "
        "and rollback_window, from `gridmarket run vqops/sdsc --jobs-out FILE`), and those jobs "
        "make most of its shortfall: a short window's what-if does not see the later arrivals "
        "that the jobs it admits crowd out. With the next hours of arrivals added to each "
        "what-if (revenue counted to their end), the sums put the high OC-Factors first for "
        "short windows too."
    ),
    "ctc-smaller": (
        "The paper explains its smaller CTC gains by CTC's lower offered load ({paper_ctc} % "
        "against SDSC's {paper_sdsc} %). Here CTC-SP2's first {jobs:,} jobs offer about the "
        "paper's {paper_ctc} % and SDSC-SP2's less than its {paper_sdsc} % "
        "(docs/papers/vqops.md): at about the same "
        "load CTC gains more than SDSC, and only SDSC scaled to {paper_sdsc} % (SDSC "
        "x{scale:g}) gains as much or more. What is at stake is not the offered load but the "
        "work QoPS turns away ({ctc:.1f} % on CTC-SP2, {sdsc:.1f} % on SDSC-SP2, {scaled:.1f} % "
        "scaled): the gains follow it."
    ),
    "ctc-magnitudes": (
        "At the original load CTC gains far more than the paper's 5 %, for the reason in "
        "ctc-smaller: QoPS turns away more of CTC's work than the paper's load suggests; at "
        "high load the gains are the paper's size."
    ),
}

CLAIMS = (
    Claim(
        "gains-at-10x",
        "Table 1, §5.2",
        "the VQoPS algorithm outperforms QoPS by up to 160% in some cases",
        "every OC-Factor gains with 10X urgent cost, far more at high load (21-39 %, 63-160 %)",
        ("sdsc-10x-80", "sdsc-10x-80-high"),
        all_gain_at_10x,
    ),
    Claim(
        "paper-load-gains",
        "§5.2, Fig. 5a",
        "VQoPS achieves about 20%-45% improvement in performance for all OC-Factor values",
        "20-45 % at 89 % offered load (SDSC, 10X)",
        ("sdsc-10x-80", "sdsc-10x-80-paper-load", "sdsc-10x-50-paper-load"),
        paper_load_gains,
        gap=GAPS["paper-load-gains"],
        gap_at=("quick",),
        figures=definition,
    ),
    Claim(
        "no-single-oc-factor",
        "Table 1, §5.2",
        "no single OC-Factor can consistently provide a good performance for all kinds of "
        "workloads",
        "the best OC-Factor changes with C, U and load",
        ROWS,
        no_single_best,
    ),
    Claim(
        "cheap-urgent-high-oc-lose",
        "§5.3, Fig. 7a",
        "when the cost of the urgent jobs is very low, high static OC-Factors actually perform "
        "worse as compared to QoPS",
        "2X: OC-Factor 0.2 and 0.4 below QoPS (-47 %, -100 %)",
        ("sdsc-2x-80",),
        cheap_urgent_high_oc_lose,
    ),
    Claim(
        "dvqops-within-5",
        "§5.2, Figs. 5-8",
        "DVQoPS, on the other hand, consistently achieves within 5% of the best VQoPS "
        "implementation for all traces",
        "DVQoPS >= 95 % of the best static OC-Factor's revenue, every row",
        ROWS,
        dvqops_within_5,
        gap=GAPS["dvqops-within-5"],
        gap_at=("quick", "full"),
        figures=shortfalls,
    ),
    Claim(
        "differentiation",
        "§5.2, Fig. 5b",
        "QoPS accepts the highest overall percentage of the workload. However, it does not "
        "differentiate between urgent and normal jobs ... Very few normal jobs are accepted at "
        "OC-Factors greater than 0.05",
        "QoPS: urgent ≈ normal; high OC-Factors: urgent only",
        ("sdsc-10x-80-high",),
        differentiation,
    ),
    Claim(
        "inexact-estimates",
        "§5.4, Fig. 9",
        "the overall revenues are lower in all cases ... it is more often better to be more lax "
        "with the OC-Factor",
        "smaller gains with trace estimates, at a lower OC-Factor",
        ("sdsc-10x-80-high", "sdsc-10x-80-high-trace"),
        inexact_lower,
    ),
    Claim(
        "ctc-smaller",
        "§5.2, Fig. 6",
        "the improvements are lesser compared to the corresponding SDSC workload. This is "
        "attributed to the low original offered load (74%) for CTC workload",
        "CTC gains < SDSC gains at the original load",
        ("ctc-10x-80", "sdsc-10x-80", "sdsc-10x-80-paper-load"),
        ctc_smaller_than_sdsc,
        gap=GAPS["ctc-smaller"],
        gap_at=("quick", "full"),
        figures=turned_away,
    ),
    Claim(
        "ctc-magnitudes",
        "§5.3, Fig. 8",
        "The revenue improvement is around 5% for original offered load (74%) and as high as "
        "100% for higher offered load (103%)",
        "CTC: ~5 % original, up to ~100 % high",
        ("ctc-10x-80", "ctc-10x-80-high"),
        ctc_magnitudes,
        gap=GAPS["ctc-magnitudes"],
        gap_at=("quick", "full"),
    ),
)

PAPER = Paper("vqops", "Islam et al., VQoPS/DVQoPS (OSU-CISRC-3/07-TR17)", SWEEPS, CLAIMS)
