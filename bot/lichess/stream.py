"""One stream of the bot's live games (`POST /api/stream/games/{streamId}`), kept open and fed with new ids.

Lichess sends a line when a watched game starts and when it finishes (up to 1000 ids a stream with a token;
new ids go to `/add`). The stream tells its owner the id of each finished game; the owner exports that game
(its moves are needed for the early-draw rule). When the connection drops, the stream reconnects with
backoff (doubling up to `max_backoff`) and Lichess sends the current state of every id again.

"One request at a time": the stream is one long-lived connection, which Lichess's API guidelines allow
beside the other calls (as for its other streams). Opening it and every `/add` are short requests and take
the token's turn (`pause`, the gateway's `SharedPause`) like every other call, so they never overlap another
request and never go out during a 429 pause; a 429 on either pauses every call of the token, and the stream
reconnects only when the pause is over. Only the open body of the stream runs alongside other requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable

import aiohttp

from bot.lichess.pause import SharedPause

LOG = logging.getLogger(__name__)

STREAM_MAX_IDS = 1000  # per stream with a token
FINISHED = 25  # scalachess status ids from 25 (aborted) up are finished games


class GameStream:
    """The bot's game stream: `watch` ids, `start`, and `on_finished(game_id)` is awaited for each finished game."""

    def __init__(
        self,
        base_url: str,
        token: str | None,
        on_finished: Callable[[str], Awaitable[None]],
        *,
        pause: SharedPause | None = None,
        stream_id: str | None = None,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.on_finished = on_finished
        self.pause = pause or SharedPause()
        self.stream_id = stream_id or "swissbot-" + secrets.token_hex(6)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.watching: dict[str, None] = {}  # insertion-ordered: the newest ids are kept past the limit
        self.connected = asyncio.Event()
        self.connections = 0
        self._http: aiohttp.ClientSession | None = None
        self._task: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"GameStream({self.base_url!r}, {self.stream_id!r}, watching {len(self.watching)})"

    async def start(self) -> None:
        """Open the stream in the background (and keep it open)."""
        if self._task is None:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, sock_connect=20))
            self._task = asyncio.create_task(self._run(), name=f"lichess stream {self.stream_id}")

    async def close(self) -> None:
        """Stop the stream."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._http is not None:
            await self._http.close()
            self._http = None

    async def watch(self, ids: Iterable[str]) -> None:
        """Watch these game ids too (sent to `/add` when the stream is open; at the next connection otherwise)."""
        new = [i for i in dict.fromkeys(ids) if i not in self.watching]
        if not new:
            return
        for game_id in new:
            self.watching[game_id] = None
        while len(self.watching) > STREAM_MAX_IDS:  # the oldest fall to polling
            self.watching.pop(next(iter(self.watching)))
        if self.connected.is_set() and self._http is not None:
            try:
                async with (
                    self.pause.turn("adding ids to the game stream"),
                    self._http.post(self._url("/add"), data=",".join(new), headers=self._headers) as reply,
                ):
                    self._answered("adding ids to the game stream", reply.status)
            except aiohttp.ClientError as exc:
                LOG.info("Lichess stream: /add failed (%s); the ids go with the next connection", type(exc).__name__)

    def _answered(self, what: str, status: int) -> None:
        """A 429 pauses every call of the token (this stream's reconnection too); a success ends the doubling."""
        if status == 429:
            self.pause.limited(what)
        elif status < 400:
            self.pause.answered()

    def _url(self, suffix: str = "") -> str:
        return f"{self.base_url}/api/stream/games/{self.stream_id}{suffix}"

    async def _run(self) -> None:
        delay = self.backoff
        while True:
            opened = self.connections
            try:
                await self._connect()
            except (TimeoutError, aiohttp.ClientError, ValueError) as exc:
                LOG.info("Lichess stream: %s; reconnecting", type(exc).__name__)
            finally:
                self.connected.clear()
            if self.connections > opened:
                delay = self.backoff  # it was open: the backoff starts again
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.max_backoff)

    async def _connect(self) -> None:
        assert self._http is not None
        ids = ",".join(self.watching)
        async with self.pause.turn("opening the game stream"):  # one request among the others
            reply = await self._http.post(self._url(), data=ids, headers=self._headers)
        async with reply:
            self._answered("opening the game stream", reply.status)
            if reply.status != 200:
                raise aiohttp.ClientResponseError(reply.request_info, (), status=reply.status, message="stream refused")
            self.connections += 1
            self.connected.set()
            async for raw in reply.content:
                line = raw.strip()
                if not line:
                    continue  # keep-alive
                data = json.loads(line)
                game_id = str(data.get("id", ""))
                if int(data.get("status", 0)) >= FINISHED and game_id in self.watching:
                    self.watching.pop(game_id, None)
                    try:
                        await self.on_finished(game_id)
                    except Exception:  # the owner's trouble must not close the stream; polling covers it
                        LOG.exception("Lichess stream: handling the end of %s failed", game_id)
        raise aiohttp.ClientPayloadError("the stream ended")
