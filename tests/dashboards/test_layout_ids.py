"""Every component id of every dashboard layout is unique (Dash answers a page with two
components of one id with a DuplicateIdError, HTTP 500 on every load)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from dash.development.base_component import Component


def component_ids(node: Any) -> list[str]:
    """Every id in the component tree under ``node`` (children and component-valued props)."""
    found: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend(item)
            continue
        if not isinstance(item, Component):
            continue
        ident = getattr(item, "id", None)
        if ident is not None:
            found.append(json.dumps(ident, sort_keys=True) if isinstance(ident, dict) else ident)
        for name in item._prop_names:
            value = getattr(item, name, None)
            if isinstance(value, Component | list | tuple):
                stack.append(value)
    return found


def duplicates(node: Any) -> list[str]:
    return sorted(i for i, n in Counter(component_ids(node)).items() if n > 1)


def test_the_walk_finds_a_duplicate_anywhere():
    from dash import dcc, html

    page = html.Div([html.Div(id="a"), html.Span([dcc.Graph(id="b"), html.P(id="a")])])
    assert duplicates(page) == ["a"]
    assert sorted(component_ids(page)) == ["a", "a", "b"]


def test_the_live_page_has_unique_ids():
    from dashboards.app import create_app

    layout = create_app().layout
    assert not duplicates(layout)
    assert {"start", "pause", "reset", "scenario", "rate-graph"} <= set(component_ids(layout))


def test_the_market_view_has_unique_ids():
    from dashboards.market_view import create_app

    layout = create_app("market/entry", hours=5.0).layout
    assert not duplicates(layout), duplicates(layout)
    assert {"market-markup", "market-markup-graph"} <= set(component_ids(layout))


def test_the_varq_view_has_unique_ids():
    from dashboards.varq import create_app

    assert not duplicates(create_app("varq/random_jobs").layout)
