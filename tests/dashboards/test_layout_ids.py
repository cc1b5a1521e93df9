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


def every_layout(app) -> list:
    """The app's shell and every page's layout, as the pages build them."""
    state = app.gridmarket_state
    return [app.layout, *(page.layout(state) for page in state.pages.values())]


def test_every_page_has_unique_ids_and_so_has_the_app():
    from dashboards.app import PAGES, create_app

    app = create_app()
    layouts = every_layout(app)
    assert len(layouts) == 1 + len(PAGES) == 6
    for layout in layouts:
        assert not duplicates(layout), duplicates(layout)
    # one app holds every page's callbacks: an id is unique across the pages too
    assert not duplicates(layouts), duplicates(layouts)
    ids = set(component_ids(layouts))
    assert {"sid", "start", "pause", "reset", "scenario", "rate-graph"} <= ids
    for key in ("market", "vqops", "libra", "varq"):
        assert {f"{key}-start", f"{key}-pause", f"{key}-reset", f"{key}-scenario"} <= ids
    assert {"market-markup", "market-markup-graph"} <= ids  # (once one id, twice used)


def test_every_callback_names_components_of_one_page_or_the_shell():
    from dashboards.app import create_app

    app = create_app()
    layouts = every_layout(app)
    pages = [set(component_ids(layout)) for layout in layouts[1:]]
    shell = set(component_ids(layouts[0]))
    for callback in app.callback_map.values():
        names = {
            dep["id"]
            for dep in [*callback["inputs"], *callback["state"]]
            if isinstance(dep["id"], str) and not dep["id"].startswith(("_pages", "{"))
        }
        names -= shell
        assert any(names <= ids for ids in pages), names  # (dynamic fields use pattern ids)
