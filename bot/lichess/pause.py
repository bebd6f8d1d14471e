"""The one turn every Lichess request of a token takes: one request at a time, and none during a 429 pause.

Lichess counts its limits per token and sends no Retry-After: after a 429 every caller of that token, the game
stream included, waits at least `base` seconds (doubling while 429s repeat, up to `longest`), as Lichess's API
guidelines ask ("if 429, wait a full minute").
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

LOG = logging.getLogger(__name__)


class SharedPause:
    """The lock every request of one token holds, and the pause a 429 puts on all of them."""

    def __init__(
        self,
        base: float = 60.0,
        longest: float = 15 * 60.0,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base = base
        self.longest = longest
        self.lock = asyncio.Lock()
        self.limited_count = 0  # every 429 met, for the logs and the benchmark
        self._sleep = sleep
        self._clock = clock
        self._paused_until = 0.0
        self._strikes = 0

    def __repr__(self) -> str:
        return f"SharedPause(base={self.base}, 429s={self.limited_count})"

    def remaining(self) -> float:
        """Seconds left of the current pause (0 when none)."""
        return max(0.0, self._paused_until - self._clock())

    @asynccontextmanager
    async def turn(self, what: str) -> AsyncIterator[None]:
        """Hold the lock, after waiting out any pause: the request is made inside."""
        async with self.lock:
            wait = self.remaining()
            if wait > 0:
                LOG.info("Lichess: paused after HTTP 429, waiting %.1f s before %s", wait, what)
                await self._sleep(wait)
            yield

    def limited(self, what: str) -> float:
        """A 429 on `what`: every request of this token now waits; the pause's length."""
        self._strikes += 1
        self.limited_count += 1
        pause: float = max(min(self.base * 2.0 ** (self._strikes - 1), self.longest), self.base)
        self._paused_until = self._clock() + pause
        LOG.warning("Lichess: HTTP 429 on %s; pausing every call for %.0f s", what, pause)
        return pause

    def answered(self) -> None:
        """A request went through: the next 429 starts the doubling again."""
        self._strikes = 0
