"""A sweep's results directory with a damaged Parquet part: reading it is a one-line error
naming the part, and ``sweep --resume`` sets the part aside and runs its runs again, giving back
the same rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
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


def _flip_a_byte_before_the_footer(part: Path) -> None:
    data = bytearray(part.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")  # the footer's length, before "PAR1"
    data[(len(data) - 8 - footer) // 2] ^= 0x5A  # a byte of the column data; the footer intact
    part.write_bytes(bytes(data))


def test_flipped_bytes_with_an_intact_footer_are_found_and_rerun(tmp_path, capsys):
    source, out = scenario_file(tmp_path), tmp_path / "out"
    assert main(["sweep", str(source), "--workers", "1", "--out", str(out)]) == 0
    before = load_results(out).drop(columns="run_seconds")
    (part,) = ResultsStore(out).parts()
    assert len(part.name) == len("part-000005-.parquet") + 64  # named by its SHA-256
    _flip_a_byte_before_the_footer(part)
    with pytest.raises(BatchError, match="its bytes changed since it was written") as error:
        load_results(out)
    assert "\n" not in str(error.value)
    assert main(["report", str(out)]) == 2
    capsys.readouterr()
    assert main(["sweep", str(source), "--workers", "1", "--out", str(out), "--resume"]) == 0
    assert "1 damaged results part(s) set aside" in capsys.readouterr().err
    assert load_results(out).drop(columns="run_seconds").equals(before)


@pytest.mark.parametrize("damage", ["foreign part", "unnumbered name", "no checksum"])
def test_parts_that_are_no_sweeps_are_set_aside(tmp_path, capsys, damage):
    source, out = scenario_file(tmp_path), tmp_path / "out"
    assert main(["sweep", str(source), "--workers", "1", "--out", str(out)]) == 0
    before = load_results(out).drop(columns="run_seconds")
    (part,) = ResultsStore(out).parts()
    if damage == "foreign part":  # a Parquet file of other data, with a part's name
        pd.DataFrame({"x": [1.0, 2.0]}).to_parquet(out / "runs" / "part-000009.parquet")
        message = "part-000009.parquet: damaged results part (no sweep's: no run_id column)"
    elif damage == "unnumbered name":
        part.rename(part.with_name("part-abc.parquet"))
        message = "part-abc.parquet: damaged results part (not named part-NUMBER"
    else:  # a part of an older sweep (no checksum in its name) is read unchecked
        part.rename(part.with_name("part-000001.parquet"))
        assert load_results(out).drop(columns="run_seconds").equals(before)
        return
    with pytest.raises(BatchError) as error:
        load_results(out)
    assert message in str(error.value) and "\n" not in str(error.value)
    capsys.readouterr()
    assert main(["sweep", str(source), "--workers", "1", "--out", str(out), "--resume"]) == 0
    assert "1 damaged results part(s) set aside" in capsys.readouterr().err
    assert load_results(out).drop(columns="run_seconds").equals(before)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "not a sweep manifest (a JSON list)"),
        ('"x"', "not a sweep manifest (a JSON string)"),
        ('{"parameters": 3}', "not a sweep manifest (parameters is no list)"),
        ('{"scenario": [1]}', "not a sweep manifest (scenario is no mapping)"),
        ("[" * 100_000, "cannot read ("),
    ],
)
def test_a_manifest_that_is_not_one_is_one_line(tmp_path, capsys, text, message):
    source, out = scenario_file(tmp_path), tmp_path / "out"
    assert main(["sweep", str(source), "--workers", "1", "--out", str(out)]) == 0
    (out / "manifest.json").write_text(text)
    capsys.readouterr()
    for command in (["report", str(out)], ["sweep", str(source), "--out", str(out), "--resume"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
