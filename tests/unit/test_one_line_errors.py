"""Which errors the command line reports in one line (market/cli/ending.py): each listed error is
a class defined in the module it is listed under, so it and its subclasses match; others not."""

from __future__ import annotations

import importlib

import pytest

from market.cli.ending import ONE_LINE_ERRORS, one_line_error


@pytest.mark.parametrize(("module", "name"), ONE_LINE_ERRORS)
def test_each_listed_error_is_defined_where_it_is_listed(module, name):
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, Exception)
    assert (cls.__module__, cls.__qualname__) == (module, name)
    assert one_line_error(cls("bad input"))


def test_a_subclass_is_one_line_and_a_bug_is_not():
    from market.inputs.scenario import ScenarioError

    class Narrower(ScenarioError):
        pass

    assert one_line_error(Narrower("bad field"))
    assert not one_line_error(ValueError("bad field"))
    assert not one_line_error(KeyError("x"))
