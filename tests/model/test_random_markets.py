"""Random valid markets of every kind (:func:`tests.markets.any_market`: every scheduler,
admission, pricing rule, offer rule and cluster policy, shared and multi-pool providers,
uncertain capacity, traces, batch sites) each finish within a CPU bound with every invariant of
:mod:`tests.invariants` kept, or stop in one line that explains why.

``make test`` runs :data:`MARKETS` of them; ``GRIDMARKET_MARKETS=2000 pytest
tests/model/test_random_markets.py`` runs more on demand (each market is a function of its
index: a failure names the index, ``any_market(np.random.default_rng(i), dir)`` rebuilds it).
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from contextlib import contextmanager

import numpy as np
import pytest

from market.inputs.scenario import ScenarioError, validate
from market.inputs.swf import SwfError
from market.sim.model import GridMarket, MarketStalled
from tests.invariants import (
    check_guarantees,
    check_invariants,
    check_tables,
    stalled_on_availability,
    watch,
)
from tests.markets import any_market

#: Random markets per run; GRIDMARKET_MARKETS=2000 for a long run.
MARKETS = int(os.environ.get("GRIDMARKET_MARKETS", "300"))
#: CPU seconds one small market may take (they take a few hundredths of a second; a market
#: spinning on a stall or a sample loop would take minutes).
CPU_BOUND = 20.0


class TooLong(Exception):
    """A market used more CPU time than :data:`CPU_BOUND`."""


@contextmanager
def cpu_bound(seconds: float):
    """Raise :class:`TooLong` in the block once this process has used ``seconds`` more CPU
    time (user and system: the profiling timer, not the wall clock)."""

    def stop(signum, frame):
        raise TooLong(f"more than {seconds:g} CPU seconds")

    previous = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def run_market(i: int, trace_dir) -> str:
    """Build and run market ``i``; its outcome, after checking it."""
    data = any_market(np.random.default_rng(i), trace_dir)
    began = time.process_time()
    with cpu_bound(CPU_BOUND):
        try:
            model = GridMarket(validate(data, f"random market {i}"))
            model.stall_after = 500.0  # (the markets last tens of hours, at most hundreds)
            watch(model)
            model.run()
        except (ScenarioError, SwfError) as exc:  # found while building or running
            assert "\n" not in str(exc), f"market {i}: {exc}"
            return "refused"
        except MarketStalled as exc:
            message = str(exc)
            assert "\n" not in message, f"market {i}: {message}"
            if "cannot finish" in message or "can essentially never" in message:
                return "never finishes"
            assert stalled_on_availability(model), f"market {i}: {message}"
            return "stalled"
        except TooLong:
            pytest.fail(f"market {i} took more than {CPU_BOUND:g} CPU seconds")
    assert time.process_time() - began <= CPU_BOUND
    check_invariants(model)
    check_tables(model)
    guaranteed = check_guarantees(model)
    kinds = ["finished"]
    if guaranteed:
        kinds.append("guarantee kept")
    if model.batch_sites:
        kinds.append("batch site")
    return "+".join(kinds)


def test_random_markets_of_every_kind_finish_or_stop_in_one_line(tmp_path):
    outcomes: Counter[str] = Counter()
    failures: list[str] = []  # every market that fails, not just the first (long runs)
    began = time.process_time()
    for i in range(MARKETS):
        try:
            outcomes[run_market(i, tmp_path)] += 1
        except (Exception, pytest.fail.Exception) as exc:  # (a crash too: a finding)
            first = str(exc).splitlines()[0] if str(exc) else ""
            failures.append(f"market {i}: {type(exc).__name__}: {first}")
    seconds = time.process_time() - began
    assert not failures, f"{len(failures)} of {MARKETS} random markets failed:\n" + "\n".join(
        failures
    )
    finished = sum(n for k, n in outcomes.items() if k.startswith("finished"))
    print(f"{MARKETS} random markets in {seconds:.1f} CPU s: {dict(outcomes)}")
    assert finished >= 0.8 * MARKETS, outcomes
    if MARKETS >= 100:  # every kind of ending and of market is drawn
        assert any("guarantee kept" in k for k in outcomes), outcomes
        assert any("batch site" in k for k in outcomes), outcomes
        assert outcomes["never finishes"] > 0, outcomes
