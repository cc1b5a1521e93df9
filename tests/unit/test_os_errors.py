"""The reason a file could not be read (market/inputs/os_errors.py): the operating system's own
words where it gave them, else the error's first line, never an empty reason."""

from __future__ import annotations

import errno

import pytest

from market.inputs.os_errors import reason
from market.inputs.scenario_files import ScenarioFileError, read_text


def test_the_operating_systems_words_first():
    assert reason(PermissionError(errno.EACCES, "Permission denied", "x.yaml")) == (
        "Permission denied"
    )


def test_else_the_first_line_of_the_message_or_the_errors_name():
    assert reason(ValueError("embedded null byte")) == "embedded null byte"
    assert reason(OSError("no strerror here\nsecond line")) == "no strerror here"
    assert reason(EOFError()) == "EOFError"


def test_a_name_with_a_nul_byte_is_one_line_with_its_reason():
    with pytest.raises(
        ScenarioFileError, match=r"^bad.name\.yaml: cannot read \([^()\n]*null[^()\n]*\)$"
    ):
        read_text("bad\0name.yaml")  # (Python's ValueError: "embedded null character in path")
