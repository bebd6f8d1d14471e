"""OAuth linking: the pending `state`s of /link and the members' encrypted Lichess tokens.

Storage never sees a token in clear text: the director encrypts before `store_token` and decrypts what
`tokens_of` returns (the schema refuses a value that starts like a Lichess token).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from storage.db import Database, Row, execute, execute_count, fetchall, fetchone, need_time, parse_time, utc_text
from storage.errors import InvalidInput


@dataclass(frozen=True)
class OAuthState:
    """A /link started on Lichess's authorisation page, waiting for its callback."""

    state: str
    discord_id: int
    display_name: str
    verifier: str = ""
    created_at: datetime | None = None
    expires_at: datetime | None = None

    def __repr__(self) -> str:
        return f"OAuthState(discord_id={self.discord_id}, expires_at={self.expires_at})"


@dataclass(frozen=True)
class StoredToken:
    """A member's token as stored: `secret` is the encrypted text."""

    player_id: int
    lichess_id: str
    secret: str
    scopes: frozenset[str]
    expires_at: datetime | None
    invalid_at: datetime | None

    def __repr__(self) -> str:
        return f"StoredToken(player_id={self.player_id}, lichess_id={self.lichess_id!r}, scopes={sorted(self.scopes)})"


async def create_state(
    db: Database, state: str, discord_id: int, display_name: str, verifier: str, *, at: datetime, expires_at: datetime
) -> OAuthState:
    """Remember a started OAuth link (one pending per Discord user: a new /link replaces the old one)."""
    if len(state) < 32 or len(verifier) < 43:
        raise InvalidInput("an OAuth state needs at least 32 characters and a PKCE verifier at least 43")
    async with db.transaction() as conn:
        await execute(
            conn, "DELETE FROM oauth_states WHERE discord_id = ? OR expires_at < ?", (discord_id, utc_text(at))
        )
        await execute(
            conn,
            "INSERT INTO oauth_states (state, discord_id, display_name, verifier, created_at, expires_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (state, discord_id, display_name, verifier, utc_text(at), utc_text(expires_at)),
        )
    return OAuthState(state, discord_id, display_name, verifier, at, expires_at)


async def take_state(db: Database, state: str) -> OAuthState | None:
    """The pending link of this `state`, deleted as it is read (single use, expired or not); None if unknown."""
    async with db.transaction() as conn:
        row = await fetchone(conn, "SELECT * FROM oauth_states WHERE state = ?", (state,))
        if row is None:
            return None
        await execute(conn, "DELETE FROM oauth_states WHERE state = ?", (state,))
    return _state(row)


async def peek_state(db: Database, state: str) -> OAuthState | None:
    """The pending link of this `state`, left in place (the pages before Lichess show whose it is)."""
    async with db.snapshot() as conn:
        row = await fetchone(conn, "SELECT * FROM oauth_states WHERE state = ?", (state,))
    return _state(row) if row is not None else None


def _state(row: Row) -> OAuthState:
    return OAuthState(
        str(row["state"]),
        int(row["discord_id"]),
        str(row["display_name"]),
        str(row["verifier"]),
        need_time(row["created_at"]),
        need_time(row["expires_at"]),
    )


async def store_token(
    db: Database,
    player_id: int,
    lichess_id: str,
    secret: str,
    scopes: Iterable[str],
    *,
    at: datetime,
    expires_at: datetime | None,
) -> None:
    """Store (or replace) a member's encrypted token."""
    async with db.transaction() as conn:
        await execute(
            conn,
            "INSERT INTO player_tokens (player_id, lichess_id, token, scopes, expires_at, invalid_at, created_at)"
            " VALUES (?, ?, ?, ?, ?, NULL, ?) ON CONFLICT (player_id) DO UPDATE SET lichess_id = excluded.lichess_id,"
            " token = excluded.token, scopes = excluded.scopes, expires_at = excluded.expires_at, invalid_at = NULL,"
            " created_at = excluded.created_at",
            (
                player_id,
                lichess_id.lower(),
                secret,
                ",".join(sorted(set(scopes))),
                utc_text(expires_at) if expires_at else None,
                utc_text(at),
            ),
        )


def _token(row: Row) -> StoredToken:
    return StoredToken(
        player_id=int(row["player_id"]),
        lichess_id=str(row["lichess_id"]),
        secret=str(row["token"]),
        scopes=frozenset(s for s in str(row["scopes"]).split(",") if s),
        expires_at=parse_time(row["expires_at"]),
        invalid_at=parse_time(row["invalid_at"]),
    )


async def tokens_of(db: Database, player_ids: Iterable[int]) -> dict[int, StoredToken]:
    """The stored tokens of these players (valid or not), by player id."""
    ids = sorted(set(player_ids))
    if not ids:
        return {}
    async with db.snapshot() as conn:
        rows = await fetchall(
            conn, f"SELECT * FROM player_tokens WHERE player_id IN ({', '.join('?' for _ in ids)})", ids
        )
    return {int(r["player_id"]): _token(r) for r in rows}


async def mark_invalid(db: Database, player_ids: Iterable[int], *, at: datetime) -> int:
    """Mark tokens Lichess no longer accepts; returns how many were valid until now."""
    ids = sorted(set(player_ids))
    if not ids:
        return 0
    async with db.transaction() as conn:
        return await execute_count(
            conn,
            f"UPDATE player_tokens SET invalid_at = ? WHERE invalid_at IS NULL AND player_id IN"
            f" ({', '.join('?' for _ in ids)})",
            [utc_text(at), *ids],
        )


async def delete_token(db: Database, player_id: int) -> StoredToken | None:
    """Forget a member's token; returns what was stored (to revoke it on Lichess)."""
    async with db.transaction() as conn:
        row = await fetchone(conn, "SELECT * FROM player_tokens WHERE player_id = ?", (player_id,))
        if row is None:
            return None
        await execute(conn, "DELETE FROM player_tokens WHERE player_id = ?", (player_id,))
    return _token(row)
