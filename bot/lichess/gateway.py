"""The Lichess gateway: an async facade over berserk, one request at a time, typed results.

berserk is synchronous, so every call runs in a worker thread, behind one lock. HTTP 429 pauses every
caller (at least `rate_limit_pause` seconds, doubling while it repeats); 5xx answers, network errors and
timeouts are retried with backoff for reads only. A create that failed is never blindly retried: the
gateway first looks for what Lichess recorded.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar, cast

import berserk
import requests
from berserk.exceptions import ApiError, ResponseError

from bot.lichess import LICHESS_URL, TOKEN_ENV
from bot.lichess.errors import (
    LichessAuthError,
    LichessBadRequest,
    LichessRateLimited,
    LichessUnavailable,
    LichessUserNotFound,
)
from bot.lichess.payloads import Challenge, GameData, JsonDict, LichessUser, parse_user, unconvert, valid_username
from storage.records import DEFAULT_RULES

LOG = logging.getLogger(__name__)

EXPORT_BATCH = 300  # POST /api/games/export/_ids silently drops ids past 300

T = TypeVar("T")


# --- the session (timeouts, headers) ------------------------------------------------------------


class _Session(requests.Session):
    """A session with the bot's token, a User-Agent and a timeout on every request."""

    def __init__(self, token: str | None, timeout: float) -> None:
        super().__init__()
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self.headers["User-Agent"] = "swissbot (+https://github.com/swissbot)"
        self.timeout = timeout

    def request(self, method: Any, url: Any, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", (self.timeout, self.timeout))
        return super().request(method, url, *args, **kwargs)

    def __repr__(self) -> str:
        return "<swissbot Lichess session>"


def _form(fields: Mapping[str, Any]) -> dict[str, str | int]:
    """lila form bodies: booleans as "true"/"false", None dropped."""
    out: dict[str, str | int] = {}
    for key, value in fields.items():
        if value is None:
            continue
        out[key] = str(value).lower() if isinstance(value, bool) else value
    return out


# --- internal failure kinds ---------------------------------------------------------------------


class _Transient(Exception):
    """A network error, a timeout or a 5xx: the request may or may not have been processed."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class _RateLimited(Exception):
    """A 429: the request was refused, nothing was done."""


class _NotFound(Exception):
    """A 404."""


# --- the gateway --------------------------------------------------------------------------------


class LichessGateway:
    """Async facade over berserk for the calls the bot needs."""

    def __init__(
        self,
        base_url: str = LICHESS_URL,
        token: str | None = None,
        *,
        timeout: float = 20.0,
        rate_limit_pause: float = 60.0,
        max_rate_limit_pause: float = 15 * 60.0,
        rate_limit_attempts: int = 5,
        retries: int = 3,
        retry_backoff: float = 1.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._session = _Session(token, timeout)
        self._client = berserk.Client(session=self._session, base_url=base_url.rstrip("/"))
        self.base_url = base_url.rstrip("/")
        self.rate_limit_pause = rate_limit_pause
        self.max_rate_limit_pause = max_rate_limit_pause
        self.rate_limit_attempts = rate_limit_attempts
        self.retries = retries
        self.retry_backoff = retry_backoff
        self._sleep = sleep
        self._clock = clock
        self._lock = asyncio.Lock()
        self._paused_until = 0.0
        self._strikes = 0

    @classmethod
    def from_env(cls, base_url: str = LICHESS_URL, **kwargs: Any) -> LichessGateway:
        """A gateway whose token comes from the `LICHESS_TOKEN` environment variable."""
        return cls(base_url, os.environ.get(TOKEN_ENV) or None, **kwargs)

    def __repr__(self) -> str:
        return f"LichessGateway({self.base_url!r})"

    async def close(self) -> None:
        """Close the HTTP session."""
        await asyncio.to_thread(self._session.close)

    # --- the one place requests are made --------------------------------------------------------

    async def _once(self, what: str, call: Callable[[], T]) -> T:
        """One request, after any 429 pause, holding the lock so requests never overlap."""
        async with self._lock:
            wait = self._paused_until - self._clock()
            if wait > 0:
                LOG.info("Lichess: paused after HTTP 429, waiting %.1f s before %s", wait, what)
                await self._sleep(wait)
            request = asyncio.ensure_future(asyncio.to_thread(call))
            try:
                try:
                    result = await asyncio.shield(request)
                except asyncio.CancelledError:
                    # the thread cannot be stopped: keep the lock until its request is over
                    await asyncio.wait([request])
                    if not request.cancelled():
                        request.exception()  # retrieved: its outcome no longer matters
                    raise
            except ResponseError as exc:
                raise self._translate(what, exc) from None
            except ApiError as exc:
                LOG.warning("Lichess: %s failed: %s", what, type(exc.error).__name__)
                raise _Transient(f"{what}: {type(exc.error).__name__}") from None
            self._strikes = 0
            return result

    def _translate(self, what: str, exc: ResponseError) -> Exception:
        status = exc.status_code
        if status == 429:
            self._strikes += 1
            pause = min(self.rate_limit_pause * 2 ** (self._strikes - 1), self.max_rate_limit_pause)
            pause = max(pause, self.rate_limit_pause)
            self._paused_until = self._clock() + pause
            LOG.warning("Lichess: HTTP 429 on %s; pausing every call for %.0f s", what, pause)
            return _RateLimited()
        if status >= 500:
            LOG.warning("Lichess: HTTP %d on %s", status, what)
            return _Transient(f"{what}: HTTP {status}")
        message = _error_text(exc)
        if status == 404:
            return _NotFound(message)
        if status in (401, 403):
            return LichessAuthError(f"Lichess refused the bot's token ({status}): {message}")
        return LichessBadRequest(f"Lichess refused {what} ({status}): {message}")

    async def _read(self, what: str, call: Callable[[], T]) -> T:
        """A read: 429 waits for the pause and tries again; transient failures are retried with backoff."""
        transient = 0
        limited = 0
        while True:
            try:
                return await self._once(what, call)
            except _RateLimited:
                limited += 1
                if limited >= self.rate_limit_attempts:
                    raise LichessRateLimited() from None
            except _Transient:
                transient += 1
                if transient > self.retries:
                    raise LichessUnavailable() from None
                await self._sleep(self.retry_backoff * 2 ** (transient - 1))

    # --- operations -----------------------------------------------------------------------------

    async def create_game(
        self,
        white: str,
        black: str,
        *,
        clock_limit: int,
        clock_increment: int,
        name: str,
        rated: bool,
        rules: Sequence[str] = DEFAULT_RULES,
        exclude: Collection[str] = (),
    ) -> Challenge:
        """An open challenge only `white` and `black` can join (`white` gets white), with the event's rules.

        If the create fails in a way that leaves its fate unknown (network, timeout, 5xx), the
        gateway looks for a challenge or game Lichess recorded (by name, then by players, skipping
        the games in `exclude`: the board's earlier attempts) before trying again, so a lost reply
        never makes a duplicate game.
        """
        fields = _form(
            {
                "clock.limit": clock_limit,
                "clock.increment": clock_increment,
                "rated": rated,
                "name": name,
                "users": f"{white},{black}",
                "rules": ",".join(rules),
            }
        )
        what = f"creating the game {name!r}"
        since_ms = round(time.time() * 1000) - 60_000
        transient = 0
        limited = 0
        while True:
            try:
                reply = await self._once(what, lambda: self._post_open_challenge(fields))
                return _challenge_from(reply, white, black, name)
            except _RateLimited:
                limited += 1  # a 429 means Lichess did nothing: trying again is safe
                if limited >= self.rate_limit_attempts:
                    raise LichessRateLimited() from None
            except _NotFound as exc:
                raise LichessBadRequest(f"Lichess refused {what}: {exc}") from None
            except _Transient:
                transient += 1
                found = await self.find_created_game(white, black, name=name, since_ms=since_ms, exclude=exclude)
                if found is not None:
                    LOG.info("Lichess: %s failed, but Lichess had created %s", what, found.game_id)
                    return found
                if transient > self.retries:
                    raise LichessUnavailable() from None
                await self._sleep(self.retry_backoff * 2 ** (transient - 1))

    def _post_open_challenge(self, fields: Mapping[str, str | int]) -> JsonDict:
        # berserk 0.14's create_open() has no `users` or `rules` (reference §1.4): call its requestor,
        # with the form encoding the spec documents. This is the only such call in the gateway.
        reply: JsonDict = self._client.challenges._r.post(
            "/api/challenge/open", data=dict(fields), fmt=berserk.formats.JSON
        )
        return reply

    async def find_created_game(
        self, white: str, black: str, *, name: str, since_ms: int, exclude: Collection[str] = ()
    ) -> Challenge | None:
        """A challenge named `name` still pending, or a game white-vs-black created since `since_ms`
        (ongoing ones included), newest first, skipping the game ids in `exclude` (earlier attempts)."""
        mine: Mapping[str, Any] = await self._read("listing the bot's challenges", self._client.challenges.get_mine)
        for item in mine.get("out", []):
            user_ids = [u.lower() for u in (item.get("open") or {}).get("userIds", [])]
            if item.get("name") == name and (not user_ids or user_ids == [white.lower(), black.lower()]):
                return _challenge_from(item, white, black, name)
        skip = frozenset(exclude)
        games = await self._read(f"reading {white}'s recent games", lambda: self._games_vs(white, black, since_ms))
        for game in games:
            data = GameData.from_json(unconvert(game, "createdAt", "lastMoveAt"))
            if data.white == white.lower() and data.black == black.lower() and data.id not in skip:
                url = f"{self.base_url}/{data.id}"
                return Challenge(data.id, url, white, black, name)
        return None

    def _games_vs(self, white: str, black: str, since_ms: int) -> list[JsonDict]:
        games = self._client.games.export_by_player(
            white, since=since_ms, vs=black, color="white", max=30, moves=False, ongoing=True
        )
        return cast(list[JsonDict], list(games))

    def _export_ids(self, ids: Sequence[str]) -> list[JsonDict]:
        # berserk's export_multi is a generator: the request is sent while we iterate, in this thread
        return cast(list[JsonDict], list(self._client.games.export_multi(*ids)))

    async def export_games(self, ids: Sequence[str]) -> list[GameData]:
        """The games with these ids (in that order), 300 per request; unknown ids are left out."""
        unique = list(dict.fromkeys(ids))
        found: dict[str, GameData] = {}
        for start in range(0, len(unique), EXPORT_BATCH):
            batch = unique[start : start + EXPORT_BATCH]
            games = await self._read(f"exporting {len(batch)} games", partial(self._export_ids, batch))
            for game in games:
                data = GameData.from_json(unconvert(game, "createdAt", "lastMoveAt"))
                found[data.id] = data
        return [found[i] for i in unique if i in found]

    async def get_user(self, username: str) -> LichessUser:
        """A user's public data; `LichessUserNotFound` if there is no such account."""
        if not valid_username(username):  # never let a typed name walk into another URL path
            raise LichessUserNotFound(username)
        try:
            data = await self._read(
                f"reading the user {username!r}", lambda: self._client.users.get_public_data(username)
            )
        except _NotFound:
            raise LichessUserNotFound(username) from None
        return parse_user(data)

    async def is_team_member(self, team_id: str, username: str) -> bool:
        """Whether `username` belongs to the team `team_id` (the bot should be a member too)."""
        if not valid_username(username):
            return False
        try:
            teams = await self._read(
                f"reading the teams of {username!r}", lambda: self._client.teams.teams_of_player(username)
            )
        except _NotFound:
            return False
        return any(str(t.get("id", "")).lower() == team_id.lower() for t in teams)

    async def whoami(self) -> LichessUser:
        """The bot account (the token's owner)."""
        try:
            data = await self._read("reading the bot's account", self._client.account.get)
        except _NotFound:
            raise LichessAuthError("Lichess does not know the bot's account.") from None
        return parse_user(data)


def _challenge_from(reply: Mapping[str, Any], white: str, black: str, name: str) -> Challenge:
    return Challenge(
        game_id=str(reply["id"]),
        url=str(reply["url"]),
        white=white,
        black=black,
        name=name,
        url_white=reply.get("urlWhite"),
        url_black=reply.get("urlBlack"),
    )


def _error_text(exc: ResponseError) -> str:
    cause = exc.cause
    if isinstance(cause, dict) and "error" in cause:
        return str(cause["error"])[:300]
    return str(exc.reason or "error")[:300]
