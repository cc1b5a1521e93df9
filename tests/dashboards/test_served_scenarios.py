"""What the dashboard's "Load" box and uploads may open: files of the
scenario folders and bounded uploads only; every refusal one line, quick, without the file's
contents."""

from __future__ import annotations

import base64
import os
import time

import pytest

from dashboards import served_scenarios
from dashboards.served_scenarios import MAX_BYTES, add_upload, catalog, find, load_scenario
from market.inputs.scenario import ScenarioError
from tests.dashboards.conftest import DEFAULT

SECRET = "root:$6$do-not-show-me"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A scenario folder of the dashboard (allowed as `create_app(scenarios_dir=...)` does),
    forgotten after the test."""
    monkeypatch.setattr(served_scenarios, "_allowed", [])
    root = tmp_path / "scenarios"
    root.mkdir()
    served_scenarios.allow(root)
    return root


def refused(value: str) -> str:
    start = time.monotonic()
    with pytest.raises(ScenarioError) as info:
        load_scenario(value)
    assert time.monotonic() - start < 5, "refused quickly (no read of an endless file)"
    message = str(info.value)
    assert "\n" not in message and SECRET not in message and "do-not-show" not in message
    return message


def test_the_shipped_scenarios_load_by_path_and_by_name():
    assert load_scenario(DEFAULT).name == "profit-default"
    assert find("profit/default") == find("profit/default.yaml") == find(DEFAULT)
    assert ("profit/default.yaml", DEFAULT) in catalog()


def test_a_path_outside_the_scenario_folders_is_refused(tmp_path, folder):
    secret = tmp_path / "secret.yaml"
    secret.write_text(f"name: {SECRET}\n")
    for value in (str(secret), "/etc/passwd", "/dev/zero", "../secret.yaml", "/"):
        assert "not a file of the scenario folders" in refused(value)
    assert refused(str(folder / ".." / "secret.yaml")).endswith(
        "(choose one from the list, or upload it)"
    )


def test_a_link_pointing_out_of_a_folder_is_refused_and_not_listed(tmp_path, folder):
    secret = tmp_path / "secret.yaml"
    secret.write_text(f"name: {SECRET}\n")
    (folder / "link.yaml").symlink_to(secret)
    (folder / "ok.yaml").write_text("seed: 3\n")
    assert "not a file of the scenario folders" in refused(str(folder / "link.yaml"))
    assert refused("link.yaml") == "link.yaml: no such scenario file"  # (in the folders)
    assert [label for label, _ in catalog([folder])] == ["ok.yaml"]
    assert load_scenario("ok").seed == 3


def test_special_huge_and_binary_files_in_a_folder_are_refused(folder):
    os.mkfifo(folder / "pipe.yaml")  # no writer: a blocking open would hang
    assert refused(str(folder / "pipe.yaml")).endswith("pipe.yaml: not a regular file")
    os.symlink("/dev/zero", folder / "zero.yaml")  # leads out, and endless
    assert refused("zero.yaml") == "zero.yaml: no such scenario file"
    with open(folder / "huge.yaml", "wb") as handle:
        handle.truncate(MAX_BYTES + 1)  # sparse: costs no disk
    assert refused("huge.yaml").endswith("huge.yaml: larger than 1,048,576 bytes")
    (folder / "binary.yaml").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe" + SECRET.encode())
    assert refused("binary.yaml").endswith(
        "binary.yaml: not a UTF-8 text file (invalid byte at offset 0)"
    )
    (folder / "dir.yaml").mkdir()
    assert refused("dir.yaml").endswith("dir.yaml: is a directory, not a scenario file")
    assert refused("missing.yaml") == "missing.yaml: no such scenario file"


def encoded(data: bytes) -> str:
    return "data:application/x-yaml;base64," + base64.b64encode(data).decode()


def test_uploads_are_bounded_and_checked(folder):
    key = add_upload("../../etc/mine.yaml", encoded(b"seed: 11\n"))
    assert key.startswith("upload:") and key.endswith("/mine.yaml")  # the name only
    assert load_scenario(key).seed == 11 and load_scenario(key).name == "mine"
    for data, message in [
        (b"x" * (MAX_BYTES + 1), "mine.yaml: larger than 1,048,576 bytes"),
        (b"\xff" + SECRET.encode(), "mine.yaml: not a UTF-8 text file (invalid byte at offset 0)"),
    ]:
        with pytest.raises(ScenarioError) as info:
            add_upload("mine.yaml", encoded(data))
        assert str(info.value) == message
    with pytest.raises(ScenarioError, match="not a readable upload"):
        add_upload("mine.yaml", "data:;base64,***")
    assert refused("upload:0123/forged.yaml") == (
        "upload:0123/forged.yaml: no such upload (upload the file again)"
    )
