"""The scenario chooser every page has: a list of the scenario files the page can show, a
"Load" box for a file of the scenario folders, and an upload button
(:mod:`dashboards.served_scenarios` decides what may be opened).

:func:`picked` is what happens when the user loads or uploads a file: the file is read and
validated, every path inside it checked (:mod:`dashboards.confined_paths`), and the page asked
whether it can show it; any problem is one line under the chooser. The page then resets the
tab's view to the new scenario at once (see the pages' control callbacks).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dash import dcc, html

from dashboards import served_scenarios
from dashboards.confined_paths import check_paths
from market.inputs.scenario import Scenario, ScenarioError

#: Why a page cannot show a scenario (None: it can).
Suits = Callable[[Scenario], str | None]


def ids(prefix: str) -> dict[str, str]:
    """The chooser's component ids on a page whose ids start with ``prefix``."""
    names = ("scenario", "scenario-msg", "scenario-path", "load-path", "scenario-upload")
    names += ("path-msg",)
    return {name: f"{prefix}{name}" for name in names}


def picker(prefix: str, options: list[dict[str, str]], label: str = "Scenario") -> list:
    """The chooser's components."""
    i = ids(prefix)
    return [
        html.Label(label, className="field-label"),
        dcc.Dropdown(id=i["scenario"], options=options, clearable=False),
        html.Div(id=i["scenario-msg"], className="field-msg"),
        html.Div(
            [
                dcc.Input(
                    id=i["scenario-path"],
                    type="text",
                    placeholder="or a file of the scenario folders",
                    className="field-input",
                    debounce=True,
                ),
                html.Button("Load", id=i["load-path"], n_clicks=0, className="btn"),
            ],
            className="row",
        ),
        dcc.Upload(
            id=i["scenario-upload"],
            children=html.Button("Upload a scenario file", className="btn"),
            max_size=served_scenarios.MAX_BYTES,
            multiple=False,
        ),
        html.Div(id=i["path-msg"], className="field-msg"),
    ]


def options_of(catalog: list[tuple[str, str]], extra: str | None = None) -> list[dict[str, str]]:
    """The list's options: the catalog, and ``extra`` (an upload, a file loaded by path)."""
    options = [{"label": label, "value": path} for label, path in catalog]
    if extra and all(o["value"] != extra for o in options):
        options.append({"label": label_of(extra), "value": extra})
    return options


def label_of(value: str) -> str:
    """How the list names a scenario that is not in its catalog."""
    if value.startswith(served_scenarios.UPLOAD):
        return f"{value.rsplit('/', 1)[-1]} (uploaded)"
    return Path(value).name


def picked(load: bool, path: Any, upload: Any, filename: Any, suits: Suits | None = None) -> str:
    """The value (a file's real path, or an upload key) of the scenario loaded by path
    (``load``) or uploaded; a one-line :class:`ScenarioError` if it cannot be opened, is not a
    valid scenario, names a path the dashboard does not serve, or is not for this page."""
    if load:
        value = str(served_scenarios.find(path))
    else:
        value = served_scenarios.add_upload(filename, upload)
    check(value, suits)
    return value


def check(value: str, suits: Suits | None = None) -> Scenario:
    """The scenario ``value`` names, checked as :func:`picked` says."""
    scenario = served_scenarios.load_scenario(value)
    name = label_of(value)
    check_paths(scenario, name)
    why = suits(scenario) if suits else None
    if why:
        raise ScenarioError(f"{name}: {why}")
    return scenario
