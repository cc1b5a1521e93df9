"""Outcome-equivalence harness for gridmarket: proves a refactor changes no job's outcome.

    python -m tests.equivalence [--root TREE] record OUT.json   # the reference, before
    python -m tests.equivalence [--root TREE] check REF.json    # after: OK/DIFF, exit 1 on DIFF
    python -m tests.equivalence [--root TREE] list              # the runs, not run

TREE (default: the working directory) is the checkout under test: it is put first on sys.path
(so it wins over any installed copy) and its ``scenarios/`` folder is walked for the runs.

Each run is one scenario file (every file under ``scenarios/``), one of its variants, sometimes
at one point of the file's sweep, with its traces and job counts capped small (see ``CAPS``).
For each run the harness keeps SHA-256 hashes of:

- ``jobs``: every (provider, job) outcome of the per-job table (``RunResult.jobs``): accepted,
  committed, reason, processors, start, end, paid, rent;
- ``summary``: the summary table (``RunResult.summary``), every column (sorted by name);
- ``market``: the market table (``RunResult.market``), if any;
- ``sites``: for batch sites, every site job (nodes, runtime, request, owner, submit, start, end,
  killed, QBETS bound, hold), for VARQ users every request (its plan and the job it became) and
  the refusals, for site brokers every quote and submission;
- for the learning environment: the observations, rewards and infos of the episode as well.

Floats are hashed as ``repr(float(x))`` (exact; ints and floats of equal value hash alike, so a
dtype change of a column is not a difference, a changed value is). Runs use ``fast=True`` (the
model's default); the runs named ``... [fast=False]`` run ``fast=False`` and must give the
``jobs`` hash of their fast twin (checked at record and at check time).

Only the public API is used (``market.GridMarket``, ``market.load_scenario``,
``market.Scenario``, ``Scenario.with_overrides``, ``model_dump``/``model_validate``,
``RunResult`` tables, ``envs``/gymnasium); the batch-site internals read for ``sites`` are read
with ``getattr`` and reported as missing if they moved.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from tests.equivalence.hashes import canon, digest, jobs_hash, sites_hash, table_hash
from tests.equivalence.plan import CAPS, ENV_SEED, build_runs


# -- running
# ------------------------------------------------------------------------------------------
def run_model(scenario, seed: int, fast: bool) -> dict[str, Any]:
    from market import GridMarket

    model = GridMarket(scenario, seed=seed, fast=fast)
    result = model.run()
    jh, n = jobs_hash(result.jobs)
    return {
        "jobs": jh,
        "job_rows": n,
        "summary": table_hash(result.summary),
        "market": table_hash(getattr(result, "market", None)),
        "sites": sites_hash(model),
        "finished": bool(result.finished),
    }


def run_env(scenario, fast: bool) -> dict[str, Any]:
    """One episode of Admission-v0 with a fixed action rule: at step k, the (k mod m)-th of the
    m actions the mask allows (so rejects, every shape and accept-all all occur)."""
    import gymnasium as gym
    import numpy as np

    import envs  # noqa: F401  (registers gridmarket/Admission-v0)

    env = gym.make("gridmarket/Admission-v0", scenario=scenario, fast=fast)
    try:
        obs, info = env.reset(seed=ENV_SEED)
        trail: list[Any] = [_env_state(obs, info)]
        total, k, done = 0.0, 0, False
        while not done:
            allowed = np.flatnonzero(info["action_mask"])
            action = int(allowed[k % len(allowed)])
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            trail.append([action, canon(reward), _env_state(obs, info)])
            done = terminated or truncated
            k += 1
        inner = env.unwrapped
        result = inner.result()
        jh, n = jobs_hash(result.jobs)
        return {
            "jobs": jh,
            "job_rows": n,
            "summary": table_hash(result.summary),
            "market": table_hash(getattr(result, "market", None)),
            "sites": None,
            "episode": digest(trail),
            "steps": k,
            "return": canon(total),
            "finished": bool(result.finished),
        }
    finally:
        env.close()


def _env_state(obs, info) -> Any:
    import numpy as np

    o = {k: canon(np.asarray(v).ravel().tolist()) for k, v in sorted(obs.items())} if isinstance(
        obs, dict) else canon(np.asarray(obs).ravel().tolist())  # fmt: skip
    i = {k: canon(np.asarray(v).ravel().tolist()) if hasattr(v, "shape") else canon(v)
         for k, v in sorted(info.items())}  # fmt: skip
    return [o, i]


def execute(runs: list[dict[str, Any]], verbose: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for run in runs:
        fast = run.get("fast", True)
        t0 = time.perf_counter()
        try:
            if run["kind"] == "env":
                entry = run_env(run["make"](), fast)
            else:
                scenario, seed = run["make"]()
                entry = run_model(scenario, seed, fast)
        except Exception as exc:  # a run that fails is a result too (and a DIFF if it did not)
            entry = {"error": f"{type(exc).__name__}: {exc}"}
            if verbose:
                traceback.print_exc()
        entry["seconds"] = round(time.perf_counter() - t0, 3)
        if "twin" in run:
            entry["twin"] = run["twin"]
        out[run["name"]] = entry
        if verbose:
            print(f"  {entry['seconds']:6.2f}s  {run['name']}", file=sys.stderr, flush=True)
    return out


COMPARED = ["jobs", "job_rows", "summary", "market", "sites", "episode", "steps", "return",
            "finished", "error"]  # fmt: skip


def twin_problems(results: dict[str, Any]) -> list[str]:
    """fast=False runs whose per-job hash differs from their fast twin's."""
    bad = []
    for name, entry in results.items():
        twin = entry.get("twin")
        if twin is None:
            continue
        other = results.get(twin, {})
        for key in ("jobs", "job_rows", "episode"):
            if entry.get(key) != other.get(key):
                bad.append(f"{name}: {key} differs from the fast run")
    return bad


def setup(root: Path) -> None:
    root = root.resolve()
    sys.path.insert(0, str(root))
    if "GRIDMARKET_TRACES" not in os.environ:
        shared = root.parent / "shared" / "traces"
        if shared.is_dir():
            os.environ["GRIDMARKET_TRACES"] = str(shared)
    import market

    where = Path(market.__file__).resolve()
    if root not in where.parents:
        print(f"equivalence: warning: market imported from {where}, not from {root}",
              file=sys.stderr)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="tree under test (cwd)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no per-run timing on stderr")
    parser.add_argument("--only", help="only runs whose name contains this (for debugging)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list")
    rec = sub.add_parser("record")
    rec.add_argument("out", type=Path)
    chk = sub.add_parser("check")
    chk.add_argument("ref", type=Path)
    args = parser.parse_args(argv)

    setup(args.root)
    runs = build_runs(args.root.resolve())
    if args.only:
        runs = [r for r in runs if args.only in r["name"]]
    if args.command == "list":
        for r in runs:
            print(r["name"])
        print(f"{len(runs)} runs")
        return 0

    start = time.perf_counter()
    results = execute(runs, not args.quiet)
    seconds = time.perf_counter() - start
    problems = twin_problems(results)
    errors = [n for n, e in results.items() if "error" in e]

    if args.command == "record":
        import market

        payload = {
            "format": 1,
            "root": str(args.root.resolve()),
            "market": str(Path(market.__file__).resolve().parent),
            "python": platform.python_version(),
            "caps": CAPS,
            "seconds": round(seconds, 1),
            "runs": results,
        }
        args.out.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
        for p in problems:
            print(f"TWIN {p}")
        for n in errors:
            print(f"ERROR {n}: {results[n]['error']}")
        print(f"recorded {len(results)} runs in {seconds:.1f} s to {args.out}"
              f" ({len(errors)} errors, {len(problems)} fast/slow mismatches)")  # fmt: skip
        return 1 if problems or errors else 0

    ref = json.loads(args.ref.read_text())["runs"]
    if args.only:
        ref = {k: v for k, v in ref.items() if args.only in k}
    diff = 0
    for name, entry in results.items():
        want = ref.get(name)
        if want is None:
            print(f"NEW   {name} (not in the reference)")
            continue
        keys = [k for k in COMPARED if want.get(k) != entry.get(k)]
        if keys:
            diff += 1
            print(f"DIFF  {name}: {', '.join(keys)}")
            if "error" in keys:
                print(f"      error now: {entry.get('error')}; was: {want.get('error')}")
        else:
            print(f"OK    {name}")
    for name in ref:
        if name not in results:
            diff += 1
            print(f"DIFF  {name}: missing (the run is no longer built)")
    for p in problems:
        diff += 1
        print(f"DIFF  {p}")
    ok = sum(1 for n in results if n in ref and
             all(ref[n].get(k) == results[n].get(k) for k in COMPARED))  # fmt: skip
    print(
        f"{ok} OK, {diff} DIFF of {len(ref)} reference runs ({len(results)} run, {seconds:.1f} s)"
    )
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
