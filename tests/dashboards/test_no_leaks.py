"""Uploads, loads and resets leave no file open and no temporary file behind."""

from __future__ import annotations

import base64
import contextlib
import gc
import os
import tempfile
from pathlib import Path

import pytest
import yaml

from dashboards.setup import AS_WRITTEN, Setup
from tests.dashboards.conftest import SID, served_swf

FDS = Path("/proc/self/fd")
pytestmark = pytest.mark.skipif(not FDS.is_dir(), reason="needs /proc/self/fd (Linux)")


def open_files() -> list[str]:
    """What this process has open (a link per file descriptor)."""
    found = []
    for fd in os.listdir(FDS):
        with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
            found.append(os.readlink(FDS / fd))
    return sorted(found)


def scenario_upload(trace: Path, n: int) -> str:
    data = {
        "name": f"replay-{n}",
        "seed": n,
        "resource_providers": [{"name": "rp", "capacity": 16, "price": 3.0}],
        "service_providers": [{"name": "sp", "scheduler": "first_profit"}],
        "clients": [{"name": "u", "workload": {"kind": "swf", "trace": trace.name}}],
    }
    encoded = base64.b64encode(yaml.safe_dump(data).encode()).decode()
    return f"data:application/x-yaml;base64,{encoded}"


def test_uploads_loads_and_resets_leave_no_file_open(callbacks, tmp_path, monkeypatch):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    traces = [served_swf(n=30, seed=s) for s in range(3)]  # a new trace file now and then
    options = callbacks._options()

    def round_trip(n: int) -> None:
        upload = scenario_upload(traces[n % 3], n)
        _, key, message, _ = callbacks.choose_scenario(
            "scenario-upload", SID, n, None, options, upload, f"s{n}.yaml"
        )
        assert message == ""
        _, loaded, message, _ = callbacks.choose_scenario(
            "load-path", SID, n, "profit/default", options
        )
        assert message == ""
        with callbacks.registry.use(SID) as session:
            session.reset(Setup(key, (AS_WRITTEN,)))
            session.advance_to(2.0)
            session.reset(Setup(loaded, ("FirstProfit",), params=(("jobs", 10),)))

    round_trip(0)  # imports, caches and the first trace read
    gc.collect()
    before = open_files()
    for n in range(1, 25):
        round_trip(n)
    gc.collect()
    assert open_files() == before
    assert list(scratch.iterdir()) == []
