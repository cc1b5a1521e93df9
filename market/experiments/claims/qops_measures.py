"""How the QoPS paper's claims (:mod:`.qops`) are measured on the sweeps' results, and the
figures their gaps quote.

"High load" is the loads above 1.2 that were run; the mixed workloads' claims count their own
missed deadlines. A gap's figures come from the same summary rows as the verdicts; what needs a
run's per-job table is said in words in the gap, with the command that makes the table.
"""

from __future__ import annotations

from market.experiments.claims.claim import (
    Ours,
    Results,
    listing,
    num,
    strictly,
    verdict,
)
from market.inputs.scenario import load as load_scenario

SCHEMES = ("QoPS", "MSB", "MRT")
QUICK_JOBS = 1000  # the quick size: the first 1,000 jobs at the two high loads
QUICK_LOADS = (1.4, 1.6)


def high(r: Results, sweep: str) -> list[float]:
    """The loads above 1.2 that were run (the paper's "high load")."""
    return [x for x in r.axis(sweep, "load") if x > 1.2]


def schemes(r: Results, sweep: str, metric: str = "unadmitted_pct", **at) -> dict[str, float]:
    return {n: r.mean(sweep, metric, n, **at) for n in SCHEMES}


def qops_admits_most(sweep: str, s: float = 0.2):
    """QoPS leaves the fewest jobs unadmitted at every high load (partial: the least work)."""

    def ours(r: Results) -> Ours:
        jobs_best, work_best, parts = [], [], []
        for load in high(r, sweep):
            jobs = schemes(r, sweep, load=load, s=s)
            work = schemes(r, sweep, "unadmitted_work_pct", load=load, s=s)
            jobs_best.append(min(jobs, key=jobs.get) == "QoPS")
            work_best.append(min(work, key=work.get) == "QoPS")
            parts.append(f"load {load:g}: jobs {listing(jobs)}; work {listing(work)}")
        text = f"% unadmitted at s = {s:g}, " + " | ".join(parts)
        return Ours(verdict(all(jobs_best), all(work_best)), text)

    return ours


def unadmitted_count_falls(r: Results) -> Ours:
    loads = high(r, "ctc")[-2:]
    counts = {}
    for x in loads:
        rows = r.rows("ctc", "QoPS", load=x, s=0.2)
        counts[f"load {x:g}"] = float((rows.offered - rows.accepted).mean())
    values = list(counts.values())
    text = f"QoPS, jobs unadmitted at s = 0.2: {listing(counts, 0)}"
    return Ours(verdict(len(values) == 2 and values[1] < values[0]), text, counts)


def unadmitted_work_falls(r: Results) -> Ours:
    loads = r.axis("ctc", "load")
    work = [r.mean("ctc", "unadmitted_work_pct", "QoPS", load=x, s=0.2) for x in loads]
    falls = strictly(work, decreasing=True)
    text = "QoPS, % of processor-hours unadmitted at s = 0.2, load " + ", ".join(
        f"{x:g}: {num(w)}" for x, w in zip(loads, work, strict=True)
    )
    return Ours(verdict(falls, work[-1] < work[0]), text)


def converge(r: Results) -> Ours:
    """The spread of the three schemes' % unadmitted is smaller at s = 0.5 than at 0.2, at every
    load run (partial: at most of them)."""
    spread, narrower = {}, []
    for load in r.axis("ctc", "load"):
        at = {}
        for s in (0.2, 0.5):
            values = schemes(r, "ctc", load=load, s=s)
            at[s] = max(values.values()) - min(values.values())
        spread[f"load {load:g}"] = f"{num(at[0.2])} → {num(at[0.5])}"
        narrower.append(at[0.5] < at[0.2])
    text = "spread of % unadmitted (max - min of the three), s = 0.2 → 0.5: " + ", ".join(
        f"{k} {v}" for k, v in spread.items()
    )
    return Ours(verdict(all(narrower), sum(narrower) > len(narrower) / 2), text, spread)


def utilization(r: Results) -> Ours:
    load = max(r.axis("ctc", "load"))
    names = (*SCHEMES, "EASY (all)", "Conservative (all)")
    used = r.means("ctc", "utilization", names, load=load, s=0.2)
    loss = used["EASY (all)"] - used["QoPS"]
    mrt_lower = min(used["QoPS"], used["MSB"]) - used["MRT"]
    comparable = abs(used["QoPS"] - used["MSB"]) <= 2.0
    text = f"% utilization at load {load:g}, s = 0.2: {listing(used)}"
    holds = 5.0 <= loss <= 15.0 and comparable and 2.0 <= mrt_lower <= 6.0
    return Ours(verdict(holds, comparable and loss > 0), text, used)


def missed_by_schemes(r: Results, sweep: str) -> int:
    """Admitted deadlines missed by QoPS, MSB and MRT over every run of ``sweep``."""
    frame = r.frames[sweep]
    return int(frame[frame.variant.isin(SCHEMES)].deadlines_missed.sum())


def guarantee(r: Results) -> Ours:
    """On the load sweeps (the mixed workloads' claims count their own misses)."""
    missed = {}
    for sweep in ("ctc", "sdsc"):
        frame = r.frames[sweep]
        for name in (*SCHEMES, "EASY (all)"):
            rows = frame[frame.variant == name]
            if len(rows):
                missed[name] = missed.get(name, 0) + int(rows.deadlines_missed.sum())
    holds = all(missed[n] == 0 for n in SCHEMES) and missed.get("EASY (all)", 1) > 0
    return Ours(verdict(holds), "deadlines missed over every run: " + listing(missed, 0), missed)


def mixed(share: float, stringencies: tuple[float, ...]):
    def ours(r: Results) -> Ours:
        best, parts = [], []
        for s in stringencies:
            for load in high(r, "ctc-mixed"):
                try:
                    values = schemes(r, "ctc-mixed", load=load, share=share, s=s)
                except KeyError:  # a point the quick size does not run
                    continue
                best.append(min(values, key=values.get) == "QoPS")
                parts.append(f"load {load:g}, s = {s:g}: {listing(values)}")
        missed = missed_by_schemes(r, "ctc-mixed")
        text = (
            f"% of all jobs unadmitted, {share:.0%} deadline jobs: "
            + " | ".join(parts)
            + f"; admitted deadlines missed by the three: {missed}"
        )
        return Ours(verdict(all(best) and not missed, any(best) and not missed), text)

    return ours


# -- the figures the gaps quote (qops.GAPS) --------------------------------------------------------
def unadmitted(r: Results, sweep: str, name: str, **at) -> float:
    """Jobs ``name`` turned away at the point (mean over replications)."""
    rows = r.rows(sweep, name, **at)
    return float((rows.offered - rows.accepted).mean())


def subset(r: Results) -> dict:
    """The sizes and points the gaps name: the full subset's and the quick size's job counts,
    the stringencies, and the two highest loads run."""
    loads = r.axis("ctc", "load")
    return {
        "jobs": load_scenario("qops/ctc_load").clients[0].workload.first_jobs,
        "quick_jobs": QUICK_JOBS,
        "quick_low": QUICK_LOADS[0],
        "quick_top": QUICK_LOADS[-1],
        "s": min(r.axis("ctc", "s")),
        "loose": max(r.axis("ctc", "s")),
        "first": loads[0],
        "low": loads[-2] if len(loads) > 1 else loads[0],
        "top": loads[-1],
    }


def trade(r: Results) -> dict:
    """How many fewer jobs MRT turns away than QoPS at the highest load."""
    at = subset(r)
    gap = unadmitted(r, "ctc", "QoPS", load=at["top"], s=0.2)
    return at | {"mrt_fewer": gap - unadmitted(r, "ctc", "MRT", load=at["top"], s=0.2)}


def work_trough(r: Results) -> dict:
    """The load at which QoPS turns away the least work, and how much more it does at the top."""
    at = subset(r)
    work = {
        x: r.mean("ctc", "unadmitted_work_pct", "QoPS", load=x, s=0.2)
        for x in r.axis("ctc", "load")
    }
    trough = min(work, key=work.get)
    return at | {"trough": trough, "rise": work[at["top"]] - work[trough]}


def spreads(r: Results) -> dict:
    """The loads at which the spread of % unadmitted narrows from s = 0.2 to 0.5, and widens."""
    narrows, widens = [], []
    for x in r.axis("ctc", "load"):
        spread = {}
        for s in (0.2, 0.5):
            values = schemes(r, "ctc", load=x, s=s)
            spread[s] = max(values.values()) - min(values.values())
        (narrows if spread[0.5] < spread[0.2] else widens).append(f"{x:.1f}")
    return subset(r) | {
        "narrows": ", ".join(narrows) or "none",
        "widens": ", ".join(widens) or "none",
    }


def utilization_loss(r: Results) -> dict:
    """Utilization points QoPS loses against EASY at the highest load, MRT's below QoPS, and
    the share of processor-hours QoPS turns away there."""
    at = subset(r)
    point = {"load": at["top"], "s": 0.2}
    used = r.means("ctc", "utilization", (*SCHEMES, "EASY (all)"), **point)
    return at | {
        "qops_loss": used["EASY (all)"] - used["QoPS"],
        "mrt_below": used["QoPS"] - used["MRT"],
        "qops_work": r.mean("ctc", "unadmitted_work_pct", "QoPS", **point),
    }


def mixed_trade(r: Results) -> dict:
    """With 80 % deadline jobs (s = 0.2): jobs QoPS and MRT turn away at the two highest loads,
    and the share of processor-hours, at the lower one."""
    loads = high(r, "ctc-mixed")
    low, top = loads[0], loads[-1]
    point = {"share": 0.8, "s": 0.2}
    turned = {
        (n, x): unadmitted(r, "ctc-mixed", n, load=x, **point)
        for n in ("QoPS", "MRT")
        for x in (low, top)
    }
    work = r.means("ctc-mixed", "unadmitted_work_pct", ("QoPS", "MRT"), load=low, **point)
    return {
        "low": low,
        "top": top,
        "quick_jobs": QUICK_JOBS,
        "top_fewer": turned["MRT", top] - turned["QoPS", top],
        "low_fewer": turned["QoPS", low] - turned["MRT", low],
        "mrt_low": turned["MRT", low],
        "qops_low": turned["QoPS", low],
        "offered_low": float(r.rows("ctc-mixed", "QoPS", load=low, **point).offered.mean()),
        "mrt_work": work["MRT"],
        "qops_work": work["QoPS"],
    }


def mixed_winners(r: Results) -> dict:
    """With 20 % deadline jobs: at how many of the points each scheme turns away the fewest."""
    wins = dict.fromkeys(SCHEMES, 0)
    points = 0
    for s in (0.2, 0.5):
        for x in high(r, "ctc-mixed"):
            values = schemes(r, "ctc-mixed", load=x, share=0.2, s=s)
            wins[min(values, key=values.get)] += 1
            points += 1
    workload = load_scenario("qops/ctc_mixed").clients[0].workload
    return {
        "points": points,
        "qops_wins": wins["QoPS"],
        "msb_wins": wins["MSB"],
        "mrt_wins": wins["MRT"],
        "floor": workload.relaxed_floor,
        "s": min(r.axis("ctc-mixed", "s")),
        "loose": max(r.axis("ctc-mixed", "s")),
        "quick_jobs": QUICK_JOBS,
    }
