"""The project's one-line error for bad input, free of every other module so that any layer
(the policies included) can raise it: the command line and the dashboard report it as one line,
never a traceback."""

from __future__ import annotations


class ScenarioError(ValueError):
    """A scenario that cannot be read or is not valid; the message is one line."""
