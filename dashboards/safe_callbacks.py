"""Callbacks that answer every request: an unexpected error in a callback (a model that
overflows, an input nobody thought of) is logged and shown as one line in the page's message,
never an HTTP 500, and a request without a well-formed tab session id changes nothing.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from dash import no_update
from dash.exceptions import PreventUpdate

from dashboards.served_scenarios import one_line
from dashboards.session import Session
from dashboards.tab_sessions import SESSION_ID, TabSessions

logger = logging.getLogger(__name__)


def guarded(outputs: int, message_at: int | None) -> Callable:
    """Decorate a callback of ``outputs`` outputs: an unexpected exception leaves every output
    as it is but the one at ``message_at``, which says what went wrong in one line (with
    ``message_at=None``, nothing changes)."""

    def wrap(callback: Callable) -> Callable:
        @functools.wraps(callback)
        def answer(*args: Any) -> Any:
            try:
                return callback(*args)
            except PreventUpdate:
                raise
            except Exception as exc:
                logger.exception("dashboard callback %s failed", callback.__name__)
                if message_at is None:
                    raise PreventUpdate from None
                out: list[Any] = [no_update] * outputs
                out[message_at] = f"Something went wrong: {type(exc).__name__}: {one_line(exc)}"
                return tuple(out) if outputs > 1 else out[0]

        return answer

    return wrap


@contextmanager
def tab_session(sessions: TabSessions, sid: Any) -> Iterator[Session]:
    """The tab's session, locked; no update at all for a missing or malformed id."""
    if not isinstance(sid, str) or not SESSION_ID.fullmatch(sid):
        raise PreventUpdate
    with sessions.use(sid) as session:
        yield session
