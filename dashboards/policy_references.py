"""An uploaded scenario names only policies the server already has (registered or installed as
an entry point), never a module to import: a ``module:Class`` reference
(:mod:`agents.policies.resolve`) imports that module when the scenario is validated, so an
upload could make the server import (run the import-time code of) any module it can find.
:func:`refuse_module_references` looks at the parsed upload before it is validated: the policy
fields (``scheduler``, ``admission``, ``pricing``, ``cluster``, as a name or a mapping's
``name``, also as a variant's dotted override) must not hold a ``module:attr`` reference.
Scenario files of the served folders are the operator's and may name their own classes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from market.inputs.scenario import ScenarioError

POLICY_KEYS = ("scheduler", "admission", "pricing", "cluster")


def policy_names(data: Any, prefix: str = "", policy: bool = False) -> Iterator[tuple[str, Any]]:
    """``(dotted path, value)`` of every policy name in parsed scenario data."""
    if isinstance(data, dict):
        for key, value in data.items():
            parts = str(key).split(".")
            where = f"{prefix}{key}"
            if (
                parts[-1] in POLICY_KEYS
                or (policy and parts[-1] == "name")
                or (len(parts) > 1 and parts[-2] in POLICY_KEYS and parts[-1] == "name")
            ):
                if isinstance(value, dict):
                    yield from policy_names(value, f"{where}.", policy=True)
                else:
                    yield where, value
            elif not policy:
                yield from policy_names(value, f"{where}.")
    elif isinstance(data, list) and not policy:
        for i, value in enumerate(data):
            yield from policy_names(value, f"{prefix}{i}.")


def refuse_module_references(data: Any, source: str) -> None:
    """A one-line :class:`ScenarioError` if ``data`` (a parsed upload) names a policy by
    ``module:attr``."""
    for where, value in policy_names(data):
        if isinstance(value, str) and ":" in value:
            raise ScenarioError(
                f"{source}: {where}: a policy of your own ('module:Class') runs from a scenario "
                f"file of the served folders, not from an upload"
            )
