"""The environments guide's call signatures are the constructors': every parameter of
``AdmissionEnv`` and ``MarketEnv`` in order, and each default the page gives is the code's."""

from __future__ import annotations

import inspect
import re

import pytest

from envs.admission import AdmissionEnv
from envs.market import MarketEnv
from tests.conftest import ROOT

PAGE = (ROOT / "docs" / "papers" / "environments.md").read_text(encoding="utf-8")


def shown(call: str) -> dict[str, str]:
    """``name=value`` of the call the page writes as ``CALL...)``."""
    match = re.search(re.escape(call) + r"(.*?)\)`", PAGE, re.S)
    assert match, f"the page shows no {call}...)"
    parts = [p.strip() for p in " ".join(match.group(1).split()).split(",")]
    return dict(p.split("=", 1) if "=" in p else (p, "") for p in parts if p and p != "...")


@pytest.mark.parametrize(
    ("call", "cls"),
    [('`gym.make("gridmarket/Admission-v0", ', AdmissionEnv), ("`envs.MarketEnv(", MarketEnv)],
)
def test_the_page_shows_each_parameter_with_its_default(call, cls):
    page = shown(call)
    names = list(page)
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert names == [p.name for p in parameters][: len(names)]
    if call.startswith("gym"):  # the whole signature: none left out
        assert len(names) == len(parameters)
    for p in parameters[: len(names)]:
        if page[p.name] not in ("", "NAME", "PATH_OR_SCENARIO"):  # placeholders
            assert page[p.name] == repr(p.default), p.name
