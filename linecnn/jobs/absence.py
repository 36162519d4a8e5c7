"""When a benchmark job's browser counts as gone for good: the rule, apart from the web server.

A job runs in a thread of the server, for one session; the page that shows it, and its Cancel, live in
that session's browser tab. The server lists a session as connected while its tab's WebSocket is open
and drops it from that list the moment the socket closes (a tab closed or reloaded, a network cut) or
stops answering the server's pings (a frozen or locked phone). A browser whose page is still loaded
reconnects to the same session: its page retries at most 4 s apart, and the server keeps a dropped
session two minutes for it. A reloaded or closed tab never comes back: the new page is a new session.

The rule: a job whose session has been seen disconnected at every check for ``GRACE_SECONDS`` in a row
is abandoned, and is cancelled like a Cancel click. Ten seconds is at least two of a live page's
reconnect tries, so a brief cut or a phone woken at once keeps its run; an abandoned run holds the
server's one benchmark turn at most that long (plus one step) after the server noticed its tab gone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

GRACE_SECONDS = 10.0  # seconds in a row a session must be seen disconnected before its job is cancelled

Connected = Callable[[], bool | None]  # True: the browser is connected; False: gone; None: no browser to lose


@dataclass
class Absence:
    """Watches one session's browser from the job's thread; ``gone()`` applies the rule at each check."""

    connected: Connected  # asks the web server about the session that started the job
    grace: float = GRACE_SECONDS  # how long the browser must stay away before the job counts as abandoned
    clock: Callable[[], float] = time.monotonic  # the time, in seconds
    since: float | None = None  # when the browser was first seen away this time; None while connected

    def gone(self) -> bool:
        """True once the browser has been seen away at every check for ``grace`` seconds; any check that
        finds it connected again (or no server to ask) starts the count anew."""
        if self.connected() is not False:
            self.since = None
            return False
        now = self.clock()
        if self.since is None:
            self.since = now
        return now - self.since >= self.grace

    def away_for(self) -> float:
        """Seconds since the browser was first seen away this time; 0 while it is connected."""
        return 0.0 if self.since is None else self.clock() - self.since
