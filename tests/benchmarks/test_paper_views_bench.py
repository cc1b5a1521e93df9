"""Benchmark: the VQoPS and Libra pages' updates (dashboards/vqops.py, dashboards/libra.py) on
SDSC-SP2 subsets: each update simulates ``speed`` hours of every run (as one second of a
playing page does) and redraws everything; the mean and largest simulate and draw CPU times per
update go to ``extra_info``. A page keeps up while an update takes under a second. Skipped by
default and where the trace is absent; `make bench-suite` runs it."""

from __future__ import annotations

import time

import numpy as np
import pytest

from dashboards import libra, served_scenarios, vqops
from dashboards.setup import Setup
from market.inputs.traces import TraceNotFoundError, resolve_trace
from tests.conftest import ROOT

CASES = {
    "libra-600-96": (libra, "libra", {"clients.0.workload.last_jobs": 600}, 96.0),
    "libra-3000-96": (libra, "libra", {}, 96.0),
    "vqops-600-24": (vqops, "vqops", {"clients.0.workload.first_jobs": 600}, 24.0),
}


def page_updates(view, folder: str, overrides: dict, speed: float) -> dict[str, float]:
    path = str(ROOT / "scenarios" / folder / "sdsc.yaml")
    served_scenarios.allow(path)
    session = view.PAGE.new_session("bench", Setup.default(path, view.DEFAULTS | overrides))
    sim, draw = [], []
    while not session.finished:
        t0 = time.process_time()
        session.advance_to(session.now + speed)
        t1 = time.process_time()
        view.draw(session, 5) if view is libra else view.draw(session)
        draw.append(time.process_time() - t1)
        sim.append(t1 - t0)
    return {
        "updates": len(sim),
        "simulate_mean": float(np.mean(sim)),
        "simulate_max": float(np.max(sim)),
        "draw_mean": float(np.mean(draw)),
        "draw_max": float(np.max(draw)),
    }


@pytest.mark.benchmark(group="paper-views")
@pytest.mark.parametrize("case", list(CASES))
def test_page_updates(benchmark, case):
    try:
        resolve_trace("SDSC-SP2-1998-4.2-cln.swf.gz")
    except TraceNotFoundError as exc:
        pytest.skip(str(exc))
    figures = benchmark.pedantic(lambda: page_updates(*CASES[case]), rounds=1, iterations=1)
    benchmark.extra_info.update(figures)
    assert figures["updates"] > 1
