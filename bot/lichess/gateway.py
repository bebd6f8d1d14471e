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
from bot.lichess.budget import BulkLedger
from bot.lichess.errors import (
    LichessAuthError,
    LichessBadRequest,
    LichessOAuthRefused,
    LichessRateLimited,
    LichessUnavailable,
    LichessUserNotFound,
)
from bot.lichess.forms import (
    attempt_among,
    bulk_form,
    candidate_games,
    challenge_from,
    open_challenge_form,
    pending_challenge,
    refusal,
)
from bot.lichess.pause import SharedPause
from bot.lichess.payloads import (
    AccessToken,
    BulkPairing,
    Challenge,
    GameData,
    JsonDict,
    LichessUser,
    TokenInfo,
    parse_bulk,
    parse_token_info,
    parse_user,
    unconvert,
    valid_username,
)
from bot.lichess.stream import GameStream
from domain.settings import DEFAULT_RULES

LOG = logging.getLogger(__name__)

EXPORT_BATCH = 300  # POST /api/games/export/_ids silently drops ids past 300
USERS_BATCH = 300  # POST /api/users reads at most 300 users a request
TOKEN_TEST_BATCH = 1000  # POST /api/token/test answers the first 1000 tokens
BULK_MAX_GAMES = 500  # POST /api/bulk-pairing: at most 1000 tokens

T = TypeVar("T")


def _no_token_in_query(record: logging.LogRecord) -> bool:
    """urllib3 logs each request line, query string included, at DEBUG: a member's `opponentToken` never reaches it."""
    return "opponentToken=" not in record.getMessage()


_QUIET_QUERY = logging.getLogger("urllib3.connectionpool")
_QUIET_QUERY.addFilter(_no_token_in_query)


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
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self._session = _Session(token, timeout)
        self._client = berserk.Client(session=self._session, base_url=base_url.rstrip("/"))
        self.base_url = base_url.rstrip("/")
        self.rate_limit_attempts = rate_limit_attempts
        self.retries = retries
        self.retry_backoff = retry_backoff
        self._sleep = sleep
        self.pause = SharedPause(rate_limit_pause, max_rate_limit_pause, sleep=sleep, clock=clock)
        self.bulk_ledger = BulkLedger(clock=wall_clock)  # the token's bulk pairing budget (`bot.lichess.budget`)

    @classmethod
    def from_env(cls, base_url: str = LICHESS_URL, **kwargs: Any) -> LichessGateway:
        """A gateway whose token comes from the `LICHESS_TOKEN` environment variable."""
        return cls(base_url, os.environ.get(TOKEN_ENV) or None, **kwargs)

    def __repr__(self) -> str:
        return f"LichessGateway({self.base_url!r})"

    async def close(self) -> None:
        """Close the HTTP session."""
        await asyncio.to_thread(self._session.close)

    def game_stream(
        self, token: str | None, on_finished: Callable[[str], Awaitable[None]], *, backoff: float = 1.0
    ) -> GameStream:
        """The bot's game stream (`POST /api/stream/games/{id}`); opening it and each `/add` take the request lock."""
        return GameStream(self.base_url, token, on_finished, pause=self.pause, backoff=backoff)

    # --- the one place requests are made --------------------------------------------------------

    async def _once(self, what: str, call: Callable[[], T]) -> T:
        """One request, after any 429 pause, holding the lock so requests never overlap."""
        async with self.pause.turn(what):
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
            self.pause.answered()
            return result

    def _translate(self, what: str, exc: ResponseError) -> Exception:
        status = exc.status_code
        if status == 429:
            self.pause.limited(what)
            return _RateLimited()
        if status >= 500:
            LOG.warning("Lichess: HTTP %d on %s", status, what)
            return _Transient(f"{what}: HTTP {status}")
        if status == 404:
            return _NotFound(_error_text(exc))
        return refusal(what, status, exc.cause, str(exc.reason or "error"))

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
        gateway looks for this challenge (`find_created_game`: skipping the games in `exclude`, the board's
        earlier attempts) before trying again, so a lost reply never makes a duplicate game.
        """
        fields = open_challenge_form(
            white, black, clock_limit=clock_limit, clock_increment=clock_increment, name=name, rated=rated, rules=rules
        )
        what = f"creating the game {name!r}"
        since_ms = round(time.time() * 1000) - 60_000
        transient = 0
        limited = 0
        while True:
            try:
                reply = await self._once(what, lambda: self._post_open_challenge(fields))
                return challenge_from(reply, white, black, name)
            except _RateLimited:
                limited += 1  # a 429 means Lichess did nothing: trying again is safe
                if limited >= self.rate_limit_attempts:
                    raise LichessRateLimited() from None
            except _NotFound as exc:
                raise LichessBadRequest(f"Lichess refused {what}: {exc}") from None
            except _Transient:
                transient += 1
                found = await self.find_created_game(
                    white,
                    black,
                    name=name,
                    since_ms=since_ms,
                    clock=(clock_limit, clock_increment),
                    rated=rated,
                    rules=rules,
                    exclude=exclude,
                )
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
        self,
        white: str,
        black: str,
        *,
        name: str,
        since_ms: int,
        until_ms: int | None = None,
        clock: tuple[int, int] | None = None,
        rated: bool | None = None,
        rules: Sequence[str] | None = None,
        exclude: Collection[str] = (),
    ) -> Challenge | None:
        """This attempt's challenge, by what identifies it: the bot's pending challenge named `name` where Lichess lists
        it, else a game white-vs-black created inside the attempt's window [`since_ms`, `until_ms`] (ids in `exclude`,
        the games stored for any attempt, skipped) whose challenge Lichess shows (`GET /api/challenge/{id}/show`: an
        accepted challenge is kept 3 hours) as this attempt's open challenge (`forms.is_attempt_challenge`). A lobby
        game, a challenge between the two players themselves or another event's challenge is never taken."""
        try:
            mine: Mapping[str, Any] = await self._read("listing the bot's challenges", self._client.challenges.get_mine)
        except LichessAuthError:
            mine = {}  # the token lacks challenge:read: lila lists no open challenge under its creator anyway
        pending = pending_challenge(mine, white, black, name)
        if pending is not None:
            return pending
        games = await self._read(
            f"reading {white}'s recent games", lambda: self._games_vs(white, black, since_ms, until_ms)
        )
        candidates = candidate_games(
            games, white, black, since_ms=since_ms, until_ms=until_ms, clock=clock, exclude=exclude
        )
        return await attempt_among(
            candidates,
            self.show_challenge,
            white,
            black,
            base_url=self.base_url,
            name=name,
            clock=clock,
            rated=rated,
            rules=rules,
        )

    async def show_challenge(self, challenge_id: str) -> JsonDict | None:
        """`GET /api/challenge/{id}/show`, asked without the bot's token (lila answers an open challenge to anyone, and
        a token would need `challenge:read`): a challenge, pending or recently accepted; None when Lichess has none of
        that id (a game that was no challenge, or one accepted more than 3 hours ago)."""
        if not challenge_id.isalnum() or not challenge_id.isascii():
            return None
        try:
            reply = await self._read(
                f"showing the challenge {challenge_id!r}",
                partial(self._raw, "GET", f"/api/challenge/{challenge_id}/show", anonymous=True),
            )
        except _NotFound:
            return None
        return cast(JsonDict, reply) if isinstance(reply, dict) else None

    async def cancel_challenge(
        self, challenge_id: str, *, token: str | None = None, opponent_token: str | None = None
    ) -> bool:
        """`POST /api/challenge/{id}/cancel`: the bot's pending challenge cancelled with its token; a game that exists
        aborted by one of its players (`token`), with the other's `challenge:write` token as `opponentToken` (lila
        reads it from the query string) once the game is not abortable by a player alone (`noAbort`, or moves).
        False if Lichess has no such challenge or game for the caller. Safe to repeat."""
        if not challenge_id.isalnum() or not challenge_id.isascii():
            return False
        what = f"cancelling the challenge {challenge_id!r}"
        params = {"opponentToken": opponent_token} if opponent_token else None
        call = partial(self._raw, "POST", f"/api/challenge/{challenge_id}/cancel", token=token, params=params)
        try:
            await self._read(what, call)
        except _NotFound:
            return False
        return True

    async def cancel_bulk(self, bulk_id: str) -> bool:
        """`DELETE /api/bulk-pairing/{id}`: the bot's bulk is deleted (a bulk not paired yet never creates its games;
        games already created stay); False if Lichess has no such bulk of the bot's."""
        if not bulk_id.isalnum() or not bulk_id.isascii():
            return False
        try:
            await self._read(
                f"cancelling the bulk pairing {bulk_id!r}", partial(self._raw, "DELETE", f"/api/bulk-pairing/{bulk_id}")
            )
        except _NotFound:
            return False
        return True

    def _games_vs(self, white: str, black: str, since_ms: int, until_ms: int | None = None) -> list[JsonDict]:
        games = self._client.games.export_by_player(
            white, since=since_ms, until=until_ms, vs=black, color="white", max=30, moves=False, ongoing=True
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

    async def get_users(self, usernames: Collection[str]) -> dict[str, LichessUser]:
        """Many users' public data by `POST /api/users`, 300 a request (Lichess allows 8,000 users per 10 minutes,
        a single `GET /api/user` each would cost a request a player): by lower-case id; unknown names are absent."""
        wanted = list(dict.fromkeys(name.lower() for name in usernames if valid_username(name)))
        found: dict[str, LichessUser] = {}
        for start in range(0, len(wanted), USERS_BATCH):
            batch = wanted[start : start + USERS_BATCH]
            reply = await self._read(
                f"reading {len(batch)} users", partial(self._raw, "POST", "/api/users", data=",".join(batch))
            )
            for item in reply if isinstance(reply, list) else []:
                user = parse_user(item)
                found[user.id] = user
        return found

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

    # --- OAuth and bulk pairing: requests that carry players' tokens -------------------------------

    def _raw(
        self,
        method: str,
        path: str,
        *,
        data: Mapping[str, Any] | str | None = None,
        token: str | None = None,
        anonymous: bool = False,
        params: Mapping[str, str] | None = None,
    ) -> Any:
        """One request outside berserk, whose requestor logs request bodies at DEBUG level: these bodies
        hold players' tokens and PKCE verifiers, which must never reach a log. `token` sends a member's token
        instead of the bot's; `anonymous` sends none (the OAuth code exchange is not the bot's business); `params`
        is the query string (a member's token there, `opponentToken`, is kept out of urllib3's DEBUG line)."""
        headers: dict[str, str | None] = {"Accept": "application/json"}
        if isinstance(data, str):
            headers["Content-Type"] = "text/plain"
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        elif anonymous:
            headers["Authorization"] = None  # requests drops a header set to None: the session's token stays home
        try:
            response = self._session.request(method, self.base_url + path, data=data, headers=headers, params=params)
        except requests.RequestException as exc:
            raise ApiError(RuntimeError(type(exc).__name__)) from None
        if not response.ok:
            raise ResponseError(response)
        return response.json() if response.content else None

    async def _write(self, what: str, call: Callable[[], T], *, rate_limit_attempts: int | None = None) -> T:
        """A request that changes something: 429 waits and tries again (Lichess did nothing), at most
        `rate_limit_attempts` times; a transient failure is not retried (its fate is unknown) but raised as
        `LichessUnavailable`."""
        attempts = self.rate_limit_attempts if rate_limit_attempts is None else rate_limit_attempts
        limited = 0
        while True:
            try:
                return await self._once(what, call)
            except _RateLimited:
                limited += 1
                if limited >= attempts:
                    raise LichessRateLimited() from None
            except _Transient:
                raise LichessUnavailable() from None
            except _NotFound as exc:
                raise LichessBadRequest(f"Lichess refused {what}: {exc}") from None

    async def exchange_code(self, code: str, verifier: str, redirect_uri: str, client_id: str) -> AccessToken:
        """`POST /api/token`: an OAuth authorisation code (PKCE) for the member's token."""
        fields = {
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": verifier,
            "redirect_uri": redirect_uri,
            "client_id": client_id,
        }
        try:
            reply = await self._write(
                "exchanging an OAuth code", partial(self._raw, "POST", "/api/token", data=fields, anonymous=True)
            )
        except (LichessBadRequest, LichessAuthError) as exc:
            raise LichessOAuthRefused(f"Lichess refused the authorisation code ({_no_token(str(exc))}).") from None
        if not isinstance(reply, dict) or not str(reply.get("access_token", "")):
            raise LichessOAuthRefused("Lichess answered the code exchange without a token.")
        expires = reply.get("expires_in")
        return AccessToken(str(reply["access_token"]), int(expires) if expires is not None else None)

    async def account_of(self, token: str) -> LichessUser:
        """`GET /api/account` with a member's token: whose token it is."""
        try:
            data = await self._read(
                "reading a member's account", partial(self._raw, "GET", "/api/account", token=token)
            )
        except LichessAuthError:
            raise LichessOAuthRefused("Lichess does not accept the member's token.") from None
        return parse_user(data)

    async def revoke_token(self, token: str) -> None:
        """`DELETE /api/token` with a member's token: Lichess forgets it (an already dead token is fine)."""
        try:
            await self._write("revoking a member's token", partial(self._raw, "DELETE", "/api/token", token=token))
        except LichessAuthError:
            return  # already revoked or expired: the goal is reached

    async def test_tokens(self, tokens: Sequence[str]) -> dict[str, TokenInfo | None]:
        """`POST /api/token/test`, 1000 tokens per request: each token's owner and scopes, None if dead."""
        unique = list(dict.fromkeys(tokens))
        out: dict[str, TokenInfo | None] = {}
        for start in range(0, len(unique), TOKEN_TEST_BATCH):
            batch = unique[start : start + TOKEN_TEST_BATCH]
            reply = await self._read(
                f"testing {len(batch)} tokens", partial(self._raw, "POST", "/api/token/test", data=",".join(batch))
            )
            answers = reply if isinstance(reply, dict) else {}
            for token in batch:
                out[token] = parse_token_info(answers.get(token))
        return out

    async def create_bulk(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        clock_limit: int,
        clock_increment: int,
        rated: bool,
        rules: Sequence[str],
        start_clocks_at_ms: int,
        message: str,
    ) -> BulkPairing:
        """`POST /api/bulk-pairing` (all or nothing) with (white token, black token) pairs; at most 500 games.

        berserk 0.14's `bulk_pairings.create` passes `payload=` to requests and raises TypeError (reference
        §1): this is the one place the bot creates bulks, sending the spec's form itself. A 400 that names
        tokens is `LichessTokensRefused`; a 429 is `LichessRateLimited` at once (the token's pause still
        applies); a lost reply is `LichessUnavailable` and never retried here: the caller looks the bulk up with
        `list_bulks` first. The caller plans what to send with `bulk_ledger`.
        """
        if not pairs or len(pairs) > BULK_MAX_GAMES:
            raise ValueError(f"a bulk pairing holds 1 to {BULK_MAX_GAMES} games, not {len(pairs)}")
        fields = bulk_form(
            pairs,
            clock_limit=clock_limit,
            clock_increment=clock_increment,
            rated=rated,
            rules=rules,
            start_clocks_at_ms=start_clocks_at_ms,
            message=message,
        )
        what = f"creating a bulk pairing of {len(pairs)} games"
        # a 429 is not waited out here: the caller's boards go to open challenges at once (`bot.director.bulk`)
        reply = await self._write(
            what, partial(self._raw, "POST", "/api/bulk-pairing", data=fields), rate_limit_attempts=1
        )
        return parse_bulk(reply)

    async def list_bulks(self) -> list[BulkPairing]:
        """`GET /api/bulk-pairing`: the bot's bulks (a JSON array per the spec, `{"bulks": [...]}` per lila)."""
        reply = await self._read("listing the bot's bulk pairings", partial(self._raw, "GET", "/api/bulk-pairing"))
        items = reply.get("bulks", []) if isinstance(reply, dict) else reply or []
        return [parse_bulk(item) for item in items]


def _no_token(text: str) -> str:
    """An error text with anything that looks like a Lichess token cut out."""
    return " ".join("<token>" if word.startswith(("lio_", "lip_", "liu_")) else word for word in text.split())


def _error_text(exc: ResponseError) -> str:
    cause = exc.cause
    if isinstance(cause, dict) and "error" in cause:
        return str(cause["error"])[:300]
    return str(exc.reason or "error")[:300]
