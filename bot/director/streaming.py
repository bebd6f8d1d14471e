"""Results streamed: the game stream is fed with the live games, and a finished game's round is read at once.

`StreamFeeder` keeps one `bot.lichess.stream.GameStream` watching every game being played (new ids are added
every `sync_interval` seconds, so a round's games join the stream moments after they are created), and when
Lichess says a game finished it runs `poll_round` for its event with just that game: it is exported once
(its moves are needed for the early-draw rule), adjudicated and stored like a polled one. The scheduler's
polling job keeps running at its interval, so when the stream is down (or a game fell out of it) results
still come in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.director.context import Context
from bot.director.polling import poll_round
from bot.lichess.stream import GameStream
from storage import games as storage_games

LOG = logging.getLogger(__name__)


class StreamFeeder:
    """The director's side of the game stream."""

    def __init__(self, ctx: Context, token: str | None, *, sync_interval: float = 2.0, backoff: float = 1.0) -> None:
        self.ctx = ctx
        self.sync_interval = sync_interval
        self.stream = GameStream(
            ctx.lichess.base_url, token, self.game_finished, pause=ctx.lichess.pause, backoff=backoff
        )
        self.finished: list[str] = []  # the ids the stream reported finished, in order (the demo shows them)
        self._events: dict[str, int] = {}  # every game id seen live, with its event (never watched twice)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Feed the stream with the live games now and every `sync_interval` seconds, and open it."""
        await self.sync()
        await self.stream.start()
        self._task = asyncio.create_task(self._follow(), name="lichess stream feeder")

    async def close(self) -> None:
        """Stop feeding and close the stream."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.stream.close()

    async def sync(self) -> None:
        """Watch every game being played that the stream does not watch yet."""
        live = await storage_games.live_games(self.ctx.db)
        new = [game_id for _, game_id in live if game_id not in self._events]
        self._events = {game_id: event_id for event_id, game_id in live}  # a game no longer live never comes back
        if new:
            await self.stream.watch(new)

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(self.sync_interval)
            try:
                await self.sync()
            except Exception:  # a busy database: the next look catches up
                LOG.exception("game stream: could not read the live games")

    async def game_finished(self, game_id: str) -> None:
        """Lichess says this game is over: read its round now."""
        self.finished.append(game_id)
        event_id = self._events.get(game_id)
        if event_id is not None:
            await poll_round(self.ctx, event_id, only=frozenset({game_id}))
