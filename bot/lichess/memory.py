"""An in-memory Lichess for tests: the `LichessPort` answered from the local Lichess's state, without HTTP.

`MemoryLichess` runs the local Lichess's own rules (`sandbox.lichess`: challenges, exports, accounts, teams,
OAuth, bulk pairings, the simulated players, the game stream's lines) on a `SandboxState` in this process, shapes
the answers as its HTTP handlers do and reads them through the same functions as the gateway
(`bot.lichess.forms`, `bot.lichess.payloads`), so it returns the same values and raises the same errors. Each call
is logged in the state's request log (`SandboxState.requests`) as the request the gateway would send.

Faults (`SandboxState.faults`) are taken one per call, as one request, and stand for a failure that outlasts the
gateway's retries: a 429 is `LichessRateLimited`, a 5xx or a lost reply `LichessUnavailable` (with `after`,
Lichess did the work first, and a create is then found as the gateway's look-up finds it), a 4xx what the
gateway makes of it. Tests of the retries themselves use the gateway over HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from functools import partial
from typing import Any, TypeVar

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
from bot.lichess.payloads import (
    AccessToken,
    BulkPairing,
    Challenge,
    GameData,
    LichessUser,
    TokenInfo,
    parse_bulk,
    parse_token_info,
    parse_user,
    valid_username,
)
from bot.lichess.stream import FINISHED
from domain.settings import DEFAULT_RULES
from sandbox.lichess import api, bulk, oauth
from sandbox.lichess.autoplay_runner import AutoplaySettings, hand_over, stop_games, tick_state
from sandbox.lichess.http import BadRequest, NotFound
from sandbox.lichess.state import BOT_TOKEN, Clock, Fault, LoggedRequest, SandboxState, User
from sandbox.lichess.streams import AUTHENTICATED_WATCH, Stream
from sandbox.lichess.views import challenge_json, game_json, user_json

T = TypeVar("T")
LICHESS_URL = "http://lichess.test"  # a reserved name: nothing answers there


class _Missing(Exception):
    """A 404 from the local Lichess's rules."""


class _Unauthorised(Exception):
    """lila's 401 (no live token) or 403 (a scope missing), with its message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class MemoryLichess:
    """The local Lichess's state behind the director's Lichess port, with the bot's token."""

    def __init__(
        self,
        state: SandboxState | None = None,
        *,
        seed: int | None = None,
        autoplay: bool = False,
        autoplay_delay: float = 0.0,
        clock: Clock | None = None,
        token: str | None = BOT_TOKEN,
        base_url: str = LICHESS_URL,
    ) -> None:
        self.state = state if state is not None else SandboxState(seed=seed, clock=clock)
        self.state.public_url = base_url
        self.autoplay = AutoplaySettings(enabled=autoplay, delay=autoplay_delay)
        self.token = token
        self._base_url = base_url
        self.bulk_ledger = BulkLedger(clock=self.state.now)  # the token's bulk budget, on the local Lichess's time

    def __repr__(self) -> str:
        return f"MemoryLichess({self._base_url!r}, {len(self.state.games)} games)"

    @property
    def base_url(self) -> str:
        """The address game links use (nothing is served there)."""
        return self._base_url

    async def close(self) -> None:
        """Stop the simulated players' games still being played."""
        await stop_games(self.autoplay)

    # --- one call, as one request ---------------------------------------------------------------

    def _call(self, what: str, request: str, work: Callable[[], T], *, token: str | None = None) -> T:
        """Run `work` as the local Lichess answers `request` ("METHOD /path", logged in its request log): time acts
        first, then any fault for the path."""
        method, path = request.split(" ", 1)
        started = time.monotonic()
        user = self.state.user_for_token(token or self.token or "")
        status = [200]
        try:
            return self._answer(what, path, work, status)
        finally:
            self.state.requests.append(
                LoggedRequest(started, time.monotonic(), method, path, user.id if user else None, status[0])
            )

    def _answer(self, what: str, path: str, work: Callable[[], T], status: list[int]) -> T:
        """`work`'s answer, or the error the gateway raises for the fault or refusal (its HTTP status in `status`)."""
        tick_state(self.state, self.autoplay)
        fault = self.state.take_fault(path)
        if fault is not None and fault.cut is None:
            if fault.after:  # Lichess did the work; its answer, refusal included, is lost
                with contextlib.suppress(BadRequest, bulk.Refused, oauth.OAuthError, NotFound, _Unauthorised):
                    work()
            status[0] = fault.status or 200
            raise _fault_error(what, fault)
        try:
            return work()
        except BadRequest as exc:
            status[0] = 400
            raise refusal(what, 400, {"error": str(exc)}) from None
        except bulk.Refused as exc:
            status[0] = exc.status
            if exc.status == 429:
                raise LichessRateLimited() from None
            raise refusal(what, exc.status, exc.body) from None
        except oauth.OAuthError as exc:
            status[0] = 400
            raise refusal(what, 400, {"error": exc.code, "error_description": exc.description}) from None
        except NotFound:
            status[0] = 404
            raise _Missing() from None
        except _Unauthorised as exc:
            status[0] = exc.status
            raise refusal(what, exc.status, {"error": str(exc)}) from None

    def _owner(self, token: str | None, scope: str | None = None, *others: str) -> User:
        """The account of a live token (carrying `scope` or one of `others`), else lila's 401 or 403."""
        found = self.state.token(token or "")
        user = self.state.users.get(found.user) if found else None
        if found is None or user is None:
            raise _Unauthorised(401, "No such token")
        if scope is not None and not found.scopes & {scope, *others}:
            raise _Unauthorised(403, f"Missing scope: {scope}")
        return user

    # --- games ----------------------------------------------------------------------------------

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
        """An open challenge only `white` and `black` can join, handed to the simulated players."""
        body = open_challenge_form(
            white, black, clock_limit=clock_limit, clock_increment=clock_increment, name=name, rated=rated, rules=rules
        )
        created: list[Challenge] = []

        def work() -> Challenge:
            game = api.open_challenge(self.state, dict(body), self._owner(self.token))
            created.append(challenge_from(challenge_json(game, self.state, self.base_url), white, black, name))
            hand_over(self.state, self.autoplay, game)
            return created[-1]

        try:
            return self._call(f"creating the game {name!r}", "POST /api/challenge/open", work)
        except _Missing:
            raise LichessBadRequest(f"Lichess refused creating the game {name!r}: Not found.") from None
        except LichessUnavailable:
            if created:  # the reply was lost, and the gateway's look-up finds what Lichess recorded
                return created[-1]
            raise

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
        """This attempt's pending challenge named `name`, else a game of the two players inside the window whose
        challenge Lichess shows as this attempt's (as the gateway looks)."""

        def mine() -> dict[str, Any]:
            bot = self._owner(self.token, "challenge:read")
            pending = api.pending_challenges(self.state, bot)
            return {"in": [], "out": [challenge_json(g, self.state, self.base_url, listed=True) for g in pending]}

        try:
            listed = self._call("listing the bot's challenges", "GET /api/challenge", mine)
        except LichessAuthError:
            listed = {}  # the token lacks challenge:read (as the gateway reads it)
        pending = pending_challenge(listed, white, black, name)
        if pending is not None:
            return pending
        uid = white.lower()

        def games() -> list[dict[str, Any]]:
            if uid not in self.state.users:
                raise NotFound()
            found = api.games_of_user(
                self.state,
                uid,
                since=since_ms / 1000,
                until=None if until_ms is None else until_ms / 1000,
                limit=30,
                vs=black.lower(),
                color="white",
                ongoing=True,
            )
            return [game_json(g, self.state, moves=False) for g in found]

        try:
            recent = self._call(f"reading {white}'s recent games", f"GET /api/games/user/{uid}", games)
        except _Missing:
            raise LichessBadRequest(f"Lichess refused reading {white}'s recent games: Not found.") from None
        candidates = candidate_games(
            recent, white, black, since_ms=since_ms, until_ms=until_ms, clock=clock, exclude=exclude
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

    async def show_challenge(self, challenge_id: str) -> dict[str, Any] | None:
        """`GET /api/challenge/{id}/show`: a challenge, pending or accepted less than 3 hours ago; else None."""

        def work() -> dict[str, Any]:
            return challenge_json(api.shown_challenge(self.state, challenge_id), self.state, self.base_url, shown=True)

        try:
            return self._call(
                f"showing the challenge {challenge_id!r}", f"GET /api/challenge/{challenge_id}/show", work
            )
        except _Missing:
            return None

    async def cancel_challenge(
        self, challenge_id: str, *, token: str | None = None, opponent_token: str | None = None
    ) -> bool:
        """Cancel a challenge or abort a game as `challengeCancel` does (`token`: a player's instead of the bot's,
        `opponent_token`: the other player's); False if Lichess has none of that id for the caller."""
        caller = token or self.token

        def work() -> None:
            api.cancel(self.state, self._owner(caller, *api.CANCEL_SCOPES), challenge_id, opponent_token)

        try:
            self._call(
                f"cancelling the challenge {challenge_id!r}",
                f"POST /api/challenge/{challenge_id}/cancel",
                work,
                token=caller,
            )
        except _Missing:
            return False
        return True

    async def cancel_bulk(self, bulk_id: str) -> bool:
        """Delete the bot's bulk pairing (its games are never created if it is not paired yet); False if none."""
        try:
            self._call(
                f"cancelling the bulk pairing {bulk_id!r}",
                f"DELETE /api/bulk-pairing/{bulk_id}",
                lambda: bulk.delete_bulk(self.state, self._owner(self.token, "challenge:bulk"), bulk_id),
            )
        except _Missing:
            return False
        return True

    async def export_games(self, ids: Sequence[str]) -> list[GameData]:
        """The games with these ids (in that order); unknown ids are left out."""
        unique = list(dict.fromkeys(ids))
        found: dict[str, GameData] = {}
        for start in range(0, len(unique), api.EXPORT_IDS_LIMIT):
            batch = unique[start : start + api.EXPORT_IDS_LIMIT]
            what = f"exporting {len(batch)} games"
            games = self._call(what, "POST /api/games/export/_ids", partial(self._export, batch))
            for game in games:
                data = GameData.from_json(game)
                found[data.id] = data
        return [found[i] for i in unique if i in found]

    def _export(self, ids: list[str]) -> list[dict[str, Any]]:
        return [game_json(g, self.state) for g in api.exported_games(self.state, ids)]

    # --- accounts -------------------------------------------------------------------------------

    async def get_user(self, username: str) -> LichessUser:
        """A user's public data; `LichessUserNotFound` if there is no such account."""
        if not valid_username(username):
            raise LichessUserNotFound(username)

        def work() -> dict[str, Any]:
            user = self.state.users.get(username.lower())
            if user is None:
                raise NotFound()
            return user_json(user, self.base_url)

        try:
            return parse_user(self._call(f"reading the user {username!r}", f"GET /api/user/{username}", work))
        except _Missing:
            raise LichessUserNotFound(username) from None

    async def get_users(self, usernames: Collection[str]) -> dict[str, LichessUser]:
        """Many users' public data, 300 a request as `POST /api/users` reads them: by lower-case id."""
        wanted = list(dict.fromkeys(name.lower() for name in usernames if valid_username(name)))
        by = self.state.user_for_token(self.token or "")
        found: dict[str, LichessUser] = {}
        for start in range(0, len(wanted), api.USERS_PER_CALL):
            batch = wanted[start : start + api.USERS_PER_CALL]
            users = self._call(
                f"reading {len(batch)} users",
                "POST /api/users",
                partial(api.read_users, self.state, batch, by.id if by is not None else "anonymous"),
            )
            for user in users:
                parsed = parse_user(user_json(user, self.base_url))
                found[parsed.id] = parsed
        return found

    async def is_team_member(self, team_id: str, username: str) -> bool:
        """Whether `username` belongs to the team `team_id`."""
        if not valid_username(username):
            return False
        teams = self._call(
            f"reading the teams of {username!r}",
            f"GET /api/team/of/{username}",
            lambda: api.teams_of(self.state, username.lower()),
        )
        return any(str(t.get("id", "")).lower() == team_id.lower() for t in teams)

    # --- OAuth and bulk pairing -----------------------------------------------------------------

    async def exchange_code(self, code: str, verifier: str, redirect_uri: str, client_id: str) -> AccessToken:
        """An OAuth authorisation code (PKCE) for the member's token."""
        body = {
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": verifier,
            "redirect_uri": redirect_uri,
            "client_id": client_id,
        }
        try:
            token = self._call("exchanging an OAuth code", "POST /api/token", lambda: oauth.exchange(self.state, body))
        except (LichessBadRequest, LichessAuthError) as exc:
            raise LichessOAuthRefused(f"Lichess refused the authorisation code ({exc}).") from None
        return AccessToken(token.secret, oauth.TOKEN_LIFETIME)

    async def account_of(self, token: str) -> LichessUser:
        """Whose token this is."""
        try:
            user = self._call("reading a member's account", "GET /api/account", lambda: self._owner(token), token=token)
        except LichessAuthError:
            raise LichessOAuthRefused("Lichess does not accept the member's token.") from None
        return parse_user(user_json(user, self.base_url))

    async def revoke_token(self, token: str) -> None:
        """Lichess forgets the token (an already dead token is fine)."""
        with contextlib.suppress(LichessAuthError):
            self._call(
                "revoking a member's token",
                "DELETE /api/token",
                lambda: (self._owner(token), self.state.tokens.pop(token, None)),
                token=token,
            )

    async def test_tokens(self, tokens: Sequence[str]) -> dict[str, TokenInfo | None]:
        """Each token's owner and scopes, None if dead."""
        unique = list(dict.fromkeys(tokens))
        out: dict[str, TokenInfo | None] = {}
        for start in range(0, len(unique), oauth.TOKEN_TEST_LIMIT):
            batch = unique[start : start + oauth.TOKEN_TEST_LIMIT]
            what = f"testing {len(batch)} tokens"
            answers = self._call(what, "POST /api/token/test", partial(oauth.token_test, self.state, batch))
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
        """A bulk pairing of (white token, black token) pairs, all or nothing; it pairs when time next acts."""
        if not pairs or len(pairs) > bulk.MAX_GAMES:
            raise ValueError(f"a bulk pairing holds 1 to {bulk.MAX_GAMES} games, not {len(pairs)}")
        body = bulk_form(
            pairs,
            clock_limit=clock_limit,
            clock_increment=clock_increment,
            rated=rated,
            rules=rules,
            start_clocks_at_ms=start_clocks_at_ms,
            message=message,
        )
        what = f"creating a bulk pairing of {len(pairs)} games"
        scheduled = self._call(
            what,
            "POST /api/bulk-pairing",
            lambda: bulk.schedule_bulk(self.state, dict(body), self._owner(self.token, "challenge:bulk")),
        )
        return parse_bulk(bulk.bulk_json(scheduled))

    async def list_bulks(self) -> list[BulkPairing]:
        """The bot's bulk pairings, latest first."""
        mine = self._call(
            "listing the bot's bulk pairings",
            "GET /api/bulk-pairing",
            lambda: bulk.bulks_of(self.state, self._owner(self.token, "challenge:bulk")),
        )
        return [parse_bulk(bulk.bulk_json(b)) for b in mine]

    def game_stream(
        self, token: str | None, on_finished: Callable[[str], Awaitable[None]], *, backoff: float = 1.0
    ) -> MemoryGameStream:
        """A stream of the bot's live games, fed by the state's changes."""
        return MemoryGameStream(self, on_finished)


class MemoryGameStream:
    """The game stream of `MemoryLichess`: the local Lichess's stream lines, read from its state as it changes."""

    def __init__(self, lichess: MemoryLichess, on_finished: Callable[[str], Awaitable[None]]) -> None:
        self.lichess = lichess
        self.on_finished = on_finished
        self.watched = Stream("memory", {}, AUTHENTICATED_WATCH)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Follow the state in the background."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="in-memory lichess stream")

    async def close(self) -> None:
        """Stop following."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def watch(self, ids: Iterable[str]) -> None:
        """Watch these game ids too."""
        self.watched.add(list(ids))
        self.lichess.state.notify()

    async def _run(self) -> None:
        state = self.lichess.state
        while True:
            changed = state.changed
            tick_state(state, self.lichess.autoplay)
            for line in self.watched.pending(state):
                if int(line["status"]) >= FINISHED:
                    await self.on_finished(str(line["id"]))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), 0.1)  # time acts (flags, bulks) even when nothing changes


def _fault_error(what: str, fault: Fault) -> Exception:
    """What the gateway raises once a fault like this outlasts its retries."""
    if fault.status == 429:
        return LichessRateLimited()
    if fault.status is None or fault.status >= 500:
        return LichessUnavailable()
    if fault.status == 404:
        return _Missing()
    return refusal(what, fault.status, {"error": f"Sandbox fault {fault.status}"})
