"""The rows of ``make bench``'s table (tests/benchmarks/compare.py): each figure measured,
beside its reference, their ratio and the target, from the figures compare.py saves (CPU
seconds and peak RSS in KiB per probe, the probes' printed output)."""

from __future__ import annotations

import json
import statistics

#: The run of replay_script.py that the callgrind figure subtracts, at commit 5ac896a (the
#: layered market before the speed work): ``run 8000`` minus ``build 8000`` instructions.
BASELINE_INSTRUCTIONS = 2_590_411_876
MIB = 1024.0  # ru_maxrss is in KiB


def parsed(out: str) -> dict[str, float]:
    if out.lstrip().startswith("{"):
        return json.loads(out)
    return {k: float(v) for k, v in (line.split() for line in out.splitlines() if line.strip())}


def by_round(ours: dict, theirs: dict) -> str:
    """The range of ``theirs`` over ``ours`` round by round (the two ran one after the other in
    each round, so a machine that slows for a while slows both), as ``" (A to B by round)"``;
    empty for figures saved without their rounds or with fewer than two."""
    pairs = list(zip(ours.get("cpus", ()), theirs.get("cpus", ()), strict=False))  # (both ran)
    if len(pairs) < 2:
        return ""
    ratios = [b / a for a, b in pairs]
    return f" ({min(ratios):.1f}x to {max(ratios):.1f}x by round)"


def rows(f: dict) -> list[tuple[str, str, str, str, str]]:
    """``(measure, gridmarket, reference, ratio, target)`` for every figure measured."""
    out = []
    loop, inside = f["loop"], parsed(f["gm_inside"]["out"])
    mine = parsed(loop["out"])
    same = all(
        abs(inside[k] - mine[k]) <= 1e-9 * abs(mine[k]) for k in ("utilization", "mean_wait_s")
    )
    out.append(
        (
            "same schedule as the loop (utilization %, mean wait s)",
            f"{inside['utilization']:.10g}, {inside['mean_wait_s']:.10g}",
            f"{mine['utilization']:.10g}, {mine['mean_wait_s']:.10g}",
            "equal" if same else "DIFFERENT",
            "equal",
        )
    )

    def against_loop(measure: str, seconds: float, target: str = "") -> None:
        cpu = loop["cpu"]
        out.append((measure, f"{seconds:.2f} s", f"{cpu:.2f} s", f"{seconds / cpu:.2f}x", target))

    def median(probe: dict, key: str) -> float:
        """The median over the rounds of a figure a probe prints itself."""
        return statistics.median(parsed(o)[key] for o in probe["outs"])

    run = median(f["gm_inside"], "run_cpu_s")
    against_loop("SDSC-SP2 EASY: `GridMarket.run()` vs the loop's process", run, "<= 2x")
    planner = median(f["gm_inside"], "planner_cpu_s")
    against_loop(
        "what bounds `run()`: the planner alone on the same jobs (`agents.replay`: no agents, "
        "Mesa events, records or money; the same starts) vs the loop's process",
        planner,
    )
    events = f.get("mesa_events")  # (None in figures saved before this probe was measured)
    if events is not None:
        against_loop(
            "for scale: Mesa's own scheduling alone (`mesa_events.py`: a `schedule_event` per "
            "arrival and per completion, run by `run_until`, nothing decided) vs the loop's "
            "process",
            median(events, "events_cpu_s"),
        )
        floors = planner + median(events, "events_cpu_s")
        out.append(
            (
                "what `run()` adds to its floors: `run()` vs the planner alone plus Mesa's own "
                "scheduling alone",
                f"{run:.2f} s",
                f"{floors:.2f} s",
                f"{run / floors:.2f}x",
                "",
            )
        )
    whole = f["gm_run"]["cpu"]
    against_loop("SDSC-SP2 EASY: whole `gridmarket run` process vs the loop's", whole, "<= 4x")
    cli = f.get("mesa_cli")  # (None in figures saved before this probe was measured)
    if cli is not None:
        against_loop(
            "what bounds the process: `import mesa` alone, as `gridmarket run` imports it (one "
            "BLAS thread, no cyclic collector, pandas without pyarrow, the modules it never uses "
            "deferred), vs the loop's process",
            cli["cpu"],
        )
        against_loop(
            "what bounds the process with this planner: `import mesa` as `gridmarket` imports it "
            "plus the planner alone (the process does both) vs the loop's process",
            cli["cpu"] + planner,
        )
    for name, label in (("accasim", "AccaSim 1.1.3 (EASY, first fit)"), ("cqsim", "CQSim (EASY)")):
        if name in f:
            theirs = f[name]["cpu"]
            out.append(
                (
                    f"SDSC-SP2 EASY: `gridmarket run` vs {label}",
                    f"{whole:.2f} s",
                    f"{theirs:.2f} s",
                    f"{theirs / whole:.1f}x faster{by_round(f['gm_run'], f[name])}",
                    ">= 10x faster",
                )
            )
    extra = f["market"]["cpu"] - f["mesa"]["cpu"]
    out.append(
        (
            "`from market import GridMarket` minus `import mesa`",
            f"{extra:+.3f} s",
            f"{f['mesa']['cpu']:.2f} s (mesa)",
            "",
            "<= 0.25 s",
        )
    )
    for name in ("version", "help"):
        out.append((f"`gridmarket --{name}`", f"{f[name]['cpu']:.3f} s", "", "", "<= 0.3 s"))
    above = (f["gm_run"]["rss"] - f["mesa"]["rss"]) / MIB
    as_cli = f"; {cli['rss'] / MIB:.0f} as `gridmarket` imports it" if cli is not None else ""
    out.append(
        (
            "peak RSS above `import mesa`, SDSC-SP2 (54,034 jobs), `gridmarket run`",
            f"{above:.0f} MiB",
            f"{f['mesa']['rss'] / MIB:.0f} MiB (mesa{as_cli}), {loop['rss'] / MIB:.0f} MiB (loop)",
            "",
            "<= 60 MiB",
        )
    )
    inside = (f["gm_inside"]["rss"] - f["mesa"]["rss"]) / MIB  # (replay_script.py time all)
    out.append(
        (
            "peak RSS above `import mesa`, SDSC-SP2, `GridMarket.run()` with its per-job table",
            f"{inside:.0f} MiB",
            "",
            "",
            "",
        )
    )
    if "gm_run_300k" in f:
        big, big_loop = f["gm_run_300k"], f["loop_300k"]
        above = (big["rss"] - f["mesa"]["rss"]) / MIB
        out.append(
            (
                "peak RSS above `import mesa`, synthetic 300,000 jobs",
                f"{above:.0f} MiB",
                f"{big_loop['rss'] / MIB:.0f} MiB (loop)",
                "",
                "<= 400 MiB",
            )
        )
        out.append(
            (
                "synthetic 300,000 jobs: `gridmarket run` vs the loop",
                f"{big['cpu']:.2f} s",
                f"{big_loop['cpu']:.2f} s",
                f"{big['cpu'] / big_loop['cpu']:.2f}x",
                "",
            )
        )
    if "callgrind" in f:
        cg = f["callgrind"]
        ran = cg["run"] - cg["build"]
        out.append(
            (
                "instructions: replay_script.py `run 8000` minus `build 8000`",
                f"{ran:,}",
                f"{BASELINE_INSTRUCTIONS:,} (5ac896a)",
                f"{ran / BASELINE_INSTRUCTIONS:.2f}x",
                "lower",
            )
        )
        if "loop" in cg:  # (figures saved before the whole-trace counts have none)
            instructions_rows(cg, out)
    return out


def instructions_rows(cg: dict, out: list) -> None:
    """The whole-trace instruction counts beside the loop's: the ratios CPU seconds give on one
    machine, in a measure every machine gives the same."""
    loop = cg["loop"]

    def against_loop(measure: str, count: int, target: str = "") -> None:
        out.append((measure, f"{count:,}", f"{loop:,}", f"{count / loop:.2f}x", target))

    against_loop(
        "instructions, SDSC-SP2 EASY: `GridMarket.run()` (replay_script.py `run all` minus "
        "`build all`) vs the loop's process",
        cg["run_all"] - cg["build_all"],
    )
    against_loop(
        "instructions, SDSC-SP2 EASY: whole `gridmarket run` process vs the loop's", cg["gm_run"]
    )
