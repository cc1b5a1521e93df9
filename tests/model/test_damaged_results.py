"""A sweep's results directory with a damaged Parquet part: reading it is a one-line error
naming the part, and ``sweep --resume`` sets the part aside and runs its runs again, giving back
the same rows."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from market.cli.main import main
from market.experiments.batch import BatchError, ResultsStore, load_results
from market.inputs.scenario import load
from tests.conftest import DEFAULT_SCENARIO


def scenario_file(tmp_path: Path) -> Path:
    """The default market, 15 jobs, two loads, one policy: four quick runs."""
    scenario = load(DEFAULT_SCENARIO).with_overrides(
        {
            "clients.0.workload.jobs": 15,
            "variants": {},
            "sweep": {
                "parameters": {"clients.0.workload.mean_interarrival": [0.1, 0.3]},
                "replications": 2,
            },
        }
    )
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(scenario.model_dump(mode="json"), sort_keys=False))
    return path


def test_a_truncated_part_is_named_then_rerun_by_resume(tmp_path, capsys):
    source, out = scenario_file(tmp_path), tmp_path / "out"
    assert main(["sweep", str(source), "--workers", "1", "--out", str(out)]) == 0
    before = load_results(out).drop(columns="run_seconds")
    (part,) = ResultsStore(out).parts()
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])  # as a crash would leave it

    with pytest.raises(BatchError) as error:
        load_results(out)
    message = str(error.value)
    assert message.startswith(f"{part}: damaged results part (") and "\n" not in message
    assert "--resume runs its runs again" in message
    capsys.readouterr()

    assert main(["sweep", str(source), "--workers", "1", "--out", str(out), "--resume"]) == 0
    stdout, stderr = capsys.readouterr()
    assert stderr.count("\n") == 1 and "1 damaged results part(s) set aside" in stderr
    assert "ran 4 of 4 missing runs (0 were done)" in stdout
    assert (part.parent / (part.name + ".damaged")).is_file()
    after = load_results(out).drop(columns="run_seconds")
    assert after.equals(before)  # the same rows: runs are pure functions of scenario and seed
