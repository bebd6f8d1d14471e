"""What the director asks of Lichess: the `LichessPort` protocol (the HTTP gateway and the in-memory fake implement it).

`bot.lichess.gateway.LichessGateway` speaks to lichess.org (or the local Lichess) over HTTP;
`bot.lichess.memory.MemoryLichess` answers from the local Lichess's state in the same process, for tests that
need a Lichess but not its HTTP. Both return the typed answers of `bot.lichess.payloads` and raise the errors of
`bot.lichess.errors`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from typing import Protocol

from bot.lichess.budget import BulkLedger
from bot.lichess.payloads import AccessToken, BulkPairing, Challenge, GameData, LichessUser, TokenInfo
from domain.settings import DEFAULT_RULES


class GameStreamPort(Protocol):
    """The bot's stream of live games: `watch` ids; the owner's callback is awaited for each finished game."""

    async def start(self) -> None:
        """Open the stream in the background (and keep it open)."""
        ...

    async def close(self) -> None:
        """Stop the stream."""
        ...

    async def watch(self, ids: Iterable[str]) -> None:
        """Watch these game ids too."""
        ...


class LichessPort(Protocol):
    """The Lichess calls the use cases make (`Context.lichess`)."""

    bulk_ledger: BulkLedger  # the token's bulk pairing budget (`bot.lichess.budget`)

    async def close(self) -> None:
        """Release what the client holds (its session, its worker)."""
        ...

    @property
    def base_url(self) -> str:
        """Lichess's address: game links are `{base_url}/{game id}`."""
        ...

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
        """An open challenge only `white` and `black` can join (`white` gets white), never created twice."""
        ...

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
        """An attempt's challenge or game, found only by what identifies it (its name where Lichess lists it, else a
        game of the two players whose challenge Lichess shows as the attempt's); never a game of `exclude`."""
        ...

    async def cancel_challenge(
        self, challenge_id: str, *, token: str | None = None, opponent_token: str | None = None
    ) -> bool:
        """Cancel the bot's pending challenge; a game that exists is aborted only by one of its players (`token`),
        with the other's token as `opponent_token` once nobody may abort it alone (lila's `apiCancel`); False if
        Lichess has none of that id for the caller, `LichessBadRequest` when it refuses."""
        ...

    async def cancel_bulk(self, bulk_id: str) -> bool:
        """Delete the bot's bulk pairing (a bulk not paired yet never creates its games); False if there is none."""
        ...

    async def export_games(self, ids: Sequence[str]) -> list[GameData]:
        """The games with these ids, in that order; unknown ids are left out."""
        ...

    async def get_user(self, username: str) -> LichessUser:
        """A user's public data; `LichessUserNotFound` if there is no such account."""
        ...

    async def get_users(self, usernames: Collection[str]) -> dict[str, LichessUser]:
        """Many users' public data (`POST /api/users`, 300 a request), by lower-case id; unknown names are absent."""
        ...

    async def is_team_member(self, team_id: str, username: str) -> bool:
        """Whether `username` belongs to the team `team_id`."""
        ...

    async def exchange_code(self, code: str, verifier: str, redirect_uri: str, client_id: str) -> AccessToken:
        """An OAuth authorisation code (PKCE) for the member's token."""
        ...

    async def account_of(self, token: str) -> LichessUser:
        """Whose token this is."""
        ...

    async def revoke_token(self, token: str) -> None:
        """Lichess forgets the token (an already dead token is fine)."""
        ...

    async def test_tokens(self, tokens: Sequence[str]) -> dict[str, TokenInfo | None]:
        """Each token's owner and scopes, None if dead."""
        ...

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
        """A bulk pairing of (white token, black token) pairs, all or nothing."""
        ...

    async def list_bulks(self) -> list[BulkPairing]:
        """The bot's bulk pairings."""
        ...

    def game_stream(
        self, token: str | None, on_finished: Callable[[str], Awaitable[None]], *, backoff: float = 1.0
    ) -> GameStreamPort:
        """A stream of the bot's live games that awaits `on_finished(game_id)` for each game that ends."""
        ...
