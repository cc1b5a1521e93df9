"""The sessions of one dashboard page by browser tab: :class:`TabSessions` maps session ids (one
per tab, kept in the tab's ``sessionStorage``) to :class:`~dashboards.session.Session` objects,
under a lock, and evicts sessions idle for longer than ``max_idle`` seconds or beyond
``max_sessions`` (least recently used first). A tab whose page cannot build its default set-up
(a trace not downloaded) gets an idle session that says why."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from dashboards.session import Session
from dashboards.setup import Setup, SetupError
from market.inputs.scenario import ScenarioError

SESSION_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")


class TabSessions:
    """Sessions by id (one per browser tab), created on first use from ``default_setup``.

    Sessions idle for more than ``max_idle`` seconds are dropped, and beyond ``max_sessions``
    the least recently used one is, so memory stays bounded.
    """

    def __init__(
        self,
        default_setup: Callable[[], Setup],
        max_idle: float = 3600.0,
        max_sessions: int = 16,
        clock: Callable[[], float] = time.monotonic,
        factory: Callable[[str, Setup | None], Session] = Session,
    ) -> None:
        self.default_setup = default_setup
        self.factory = factory
        self.max_idle = max_idle
        self.max_sessions = max_sessions
        self.clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, sid: str) -> bool:
        return sid in self._sessions

    def get(self, sid: str) -> Session:
        """The session ``sid``, created if new; a ValueError for a malformed id."""
        if not isinstance(sid, str) or not SESSION_ID.fullmatch(sid):
            raise ValueError("not a session id")
        with self._lock:
            now = self.clock()
            self._evict(now)
            session = self._sessions.get(sid)
            if session is None:
                session = self._new(sid)
                session.last_used = now
                self._sessions[sid] = session
                while len(self._sessions) > self.max_sessions:
                    oldest = min(self._sessions.values(), key=lambda s: s.last_used)
                    self._forget(oldest.sid)
            session.last_used = now
            return session

    @contextmanager
    def use(self, sid: str) -> Iterator[Session]:
        """``with registry.use(sid) as session:`` the session, locked."""
        session = self.get(sid)
        with session.lock:
            yield session
            session.last_used = self.clock()

    def _new(self, sid: str) -> Session:
        """A session of the default set-up, or an idle one saying why it cannot be built."""
        try:
            return self.factory(sid, self.default_setup())
        except (SetupError, ScenarioError) as exc:
            session = self.factory(sid, None)
            session.message = f"Nothing to run: {exc}"
            return session

    def _evict(self, now: float) -> None:
        for sid in [s.sid for s in self._sessions.values() if now - s.last_used > self.max_idle]:
            self._forget(sid)

    def _forget(self, sid: str) -> None:
        session = self._sessions.pop(sid, None)
        if session is not None and session.jobs_budget is not None:
            session.jobs_budget.release(session)

    def sessions(self) -> list[Session]:
        """The sessions now kept."""
        with self._lock:
            return list(self._sessions.values())

    def drop(self, sid: str) -> None:
        """Forget tab ``sid``'s session (its next request starts afresh)."""
        with self._lock:
            self._forget(sid)
