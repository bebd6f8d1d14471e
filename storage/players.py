"""Players (Discord users), their linked Lichess accounts, pending link codes, and club bans."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime

from domain.entry import Ban, PlayerRow
from domain.fide import FideProfile
from storage import audit
from storage.db import Connection, Database, Row, execute, execute_count, fetchone, need_time, parse_time, utc_text
from storage.errors import AccountTaken, InvalidInput, NotFound


@dataclass(frozen=True)
class LinkCode:
    """A pending account-link code for a Discord user."""

    discord_id: int
    lichess_id: str
    code: str
    created_at: datetime
    expires_at: datetime


_NO_FIDE = FideProfile()  # most players' (immutable, so one for all of them)


def player_from_row(row: Row, prefix: str = "") -> PlayerRow:
    """A players row (columns optionally prefixed, for joins) as a PlayerRow."""
    fide = (row[prefix + "fide_id"], row[prefix + "federation"], row[prefix + "title"], row[prefix + "birth_year"])
    return PlayerRow(
        id=int(row[prefix + "id"]),
        discord_id=int(row[prefix + "discord_id"]),
        display_name=str(row[prefix + "display_name"]),
        lichess_id=row[prefix + "lichess_id"],
        lichess_name=row[prefix + "lichess_name"],
        linked_at=parse_time(row[prefix + "linked_at"]),
        created_at=need_time(row[prefix + "created_at"]),
        fide=_NO_FIDE if fide == (None, None, None, None) else FideProfile(*fide),
    )


async def load_player(conn: Connection, player_id: int) -> PlayerRow:
    """The player inside an open transaction; NotFound if there is none."""
    row = await fetchone(conn, "SELECT * FROM players WHERE id = ?", (player_id,))
    if row is None:
        raise NotFound(f"there is no player {player_id}")
    return player_from_row(row)


async def ensure_player(db: Database, discord_id: int, display_name: str, *, at: datetime) -> PlayerRow:
    """The player for a Discord user, created on first sight; the display name is kept current."""
    name = display_name.strip() or str(discord_id)
    async with db.transaction() as conn:
        row = await fetchone(conn, "SELECT * FROM players WHERE discord_id = ?", (discord_id,))
        if row is None:
            player_id = await execute(
                conn,
                "INSERT INTO players (discord_id, display_name, created_at) VALUES (?, ?, ?)",
                (discord_id, name, utc_text(at)),
            )
            return await load_player(conn, player_id)
        if row["display_name"] != name:
            await execute(conn, "UPDATE players SET display_name = ? WHERE id = ?", (name, row["id"]))
        return await load_player(conn, int(row["id"]))


async def set_fide_profile(
    db: Database, player_id: int, profile: FideProfile, *, at: datetime, actor: str
) -> PlayerRow:
    """Record a player's FIDE profile (InvalidInput naming every problem), audited before → after."""
    problems = profile.problems()
    if problems:
        raise InvalidInput("invalid FIDE profile: " + "; ".join(problems))
    async with db.transaction() as conn:
        before = await load_player(conn, player_id)
        await execute(
            conn,
            "UPDATE players SET fide_id = ?, federation = ?, title = ?, birth_year = ? WHERE id = ?",
            (profile.fide_id, profile.federation, profile.title, profile.birth_year, player_id),
        )
        await audit.append(
            conn, at=at, actor=actor, action="player.fide", subject=f"player:{player_id}",
            before=asdict(before.fide), after=asdict(profile),
        )  # fmt: skip
        return await load_player(conn, player_id)


async def get_player(db: Database, player_id: int) -> PlayerRow:
    """The player; NotFound if there is none."""
    async with db.snapshot() as conn:
        return await load_player(conn, player_id)


async def player_by_discord(db: Database, discord_id: int) -> PlayerRow | None:
    """The player of a Discord user, or None."""
    async with db.snapshot() as conn:
        row = await fetchone(conn, "SELECT * FROM players WHERE discord_id = ?", (discord_id,))
    return None if row is None else player_from_row(row)


async def player_by_lichess(db: Database, lichess_id: str) -> PlayerRow | None:
    """The player linked to a Lichess account (any case), or None."""
    async with db.snapshot() as conn:
        row = await fetchone(conn, "SELECT * FROM players WHERE lichess_id = ?", (lichess_id.lower(),))
    return None if row is None else player_from_row(row)


def _code_from_row(row: Row) -> LinkCode:
    return LinkCode(
        discord_id=int(row["discord_id"]),
        lichess_id=str(row["lichess_id"]),
        code=str(row["code"]),
        created_at=need_time(row["created_at"]),
        expires_at=need_time(row["expires_at"]),
    )


async def create_link_code(
    db: Database, discord_id: int, lichess_id: str, code: str, *, at: datetime, expires_at: datetime
) -> LinkCode:
    """Store a pending link code for a Discord user, replacing any earlier one."""
    if expires_at <= at:
        raise InvalidInput("a link code must expire after it is made")
    if not code or not lichess_id:
        raise InvalidInput("a link code needs a code and a Lichess account")
    async with db.transaction() as conn:
        await execute(
            conn,
            "INSERT INTO link_codes (discord_id, lichess_id, code, created_at, expires_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (discord_id) DO UPDATE SET lichess_id = excluded.lichess_id, code = excluded.code,"
            " created_at = excluded.created_at, expires_at = excluded.expires_at",
            (discord_id, lichess_id.lower(), code, utc_text(at), utc_text(expires_at)),
        )
        row = await fetchone(conn, "SELECT * FROM link_codes WHERE discord_id = ?", (discord_id,))
    assert row is not None
    return _code_from_row(row)


async def get_link_code(db: Database, discord_id: int) -> LinkCode | None:
    """The user's link code, expired or not (None if there is none)."""
    async with db.snapshot() as conn:
        row = await fetchone(conn, "SELECT * FROM link_codes WHERE discord_id = ?", (discord_id,))
    return None if row is None else _code_from_row(row)


async def pending_link_code(db: Database, discord_id: int, *, at: datetime) -> LinkCode | None:
    """The user's link code if it has not expired at `at`."""
    async with db.snapshot() as conn:
        row = await fetchone(
            conn, "SELECT * FROM link_codes WHERE discord_id = ? AND expires_at > ?", (discord_id, utc_text(at))
        )
    return None if row is None else _code_from_row(row)


async def purge_link_codes(db: Database, *, at: datetime) -> int:
    """Delete codes expired at `at`; return how many."""
    async with db.transaction() as conn:
        changed = await execute_count(conn, "DELETE FROM link_codes WHERE expires_at <= ?", (utc_text(at),))
        return changed


async def link_account(db: Database, discord_id: int, lichess_name: str, *, at: datetime, actor: str) -> PlayerRow:
    """Link a verified Lichess account to the user's player (one account per user and vice versa).

    The pending link code is consumed. Re-linking the same account is a no-op; AccountTaken if the
    account belongs to another user or the user already has another account.
    """
    lichess_id = lichess_name.lower()
    async with db.transaction() as conn:
        row = await fetchone(conn, "SELECT * FROM players WHERE discord_id = ?", (discord_id,))
        if row is None:
            raise NotFound(f"Discord user {discord_id} is not known yet")
        player = player_from_row(row)
        if player.lichess_id == lichess_id:
            return player
        if player.lichess_id is not None:
            raise AccountTaken(f"you are already linked to Lichess account {player.lichess_name}")
        other = await fetchone(conn, "SELECT id FROM players WHERE lichess_id = ?", (lichess_id,))
        if other is not None:
            raise AccountTaken(f"Lichess account {lichess_name} is linked to another Discord user")
        await execute(
            conn,
            "UPDATE players SET lichess_id = ?, lichess_name = ?, linked_at = ? WHERE id = ?",
            (lichess_id, lichess_name, utc_text(at), player.id),
        )
        await execute(conn, "DELETE FROM link_codes WHERE discord_id = ?", (discord_id,))
        await audit.append(
            conn, at=at, actor=actor, action="player.link", subject=f"player:{player.id}", after=lichess_name
        )
        return await load_player(conn, player.id)


async def unlink_account(
    db: Database, discord_id: int, *, at: datetime, actor: str, reason: str | None = None
) -> PlayerRow:
    """Remove the user's Lichess link (audited)."""
    async with db.transaction() as conn:
        row = await fetchone(conn, "SELECT * FROM players WHERE discord_id = ?", (discord_id,))
        if row is None:
            raise NotFound(f"Discord user {discord_id} is not known yet")
        player = player_from_row(row)
        if player.lichess_id is None:
            return player
        await execute(
            conn,
            "UPDATE players SET lichess_id = NULL, lichess_name = NULL, linked_at = NULL WHERE id = ?",
            (player.id,),
        )
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="player.unlink",
            subject=f"player:{player.id}",
            before=player.lichess_name,
            reason=reason,
        )
        return await load_player(conn, player.id)


def _ban_from_row(row: Row) -> Ban:
    return Ban(
        guild_id=int(row["guild_id"]),
        player_id=int(row["player_id"]),
        until=need_time(row["until"]),
        count=int(row["count"]),
        reason=str(row["reason"]),
        created_at=need_time(row["created_at"]),
    )


def _ban_json(ban: Ban | None) -> dict[str, object] | None:
    if ban is None:
        return None
    return {"until": utc_text(ban.until), "count": ban.count, "reason": ban.reason}


async def get_ban(db: Database, guild_id: int, player_id: int) -> Ban | None:
    """The player's ban record in a club (running or expired), or None."""
    async with db.snapshot() as conn:
        row = await fetchone(conn, "SELECT * FROM bans WHERE guild_id = ? AND player_id = ?", (guild_id, player_id))
    return None if row is None else _ban_from_row(row)


async def set_ban(
    db: Database,
    guild_id: int,
    player_id: int,
    *,
    until: datetime,
    count: int,
    reason: str,
    at: datetime,
    actor: str,
) -> Ban:
    """Store a ban (the director computes `until` and the repeat `count`); audited."""
    if count < 1:
        raise InvalidInput("a ban's repeat count starts at 1")
    async with db.transaction() as conn:
        await load_player(conn, player_id)
        old = await fetchone(conn, "SELECT * FROM bans WHERE guild_id = ? AND player_id = ?", (guild_id, player_id))
        await execute(
            conn,
            "INSERT INTO bans (guild_id, player_id, until, count, reason, created_at) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (guild_id, player_id) DO UPDATE SET until = excluded.until, count = excluded.count,"
            " reason = excluded.reason, created_at = excluded.created_at",
            (guild_id, player_id, utc_text(until), count, reason, utc_text(at)),
        )
        ban = Ban(guild_id, player_id, need_time(utc_text(until)), count, reason, need_time(utc_text(at)))
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="ban.set",
            subject=f"player:{player_id}",
            before=_ban_json(None if old is None else _ban_from_row(old)),
            after={"guild_id": guild_id, **(_ban_json(ban) or {})},
            reason=reason,
        )
    return ban


async def lift_ban(
    db: Database, guild_id: int, player_id: int, *, at: datetime, actor: str, reason: str | None = None
) -> Ban | None:
    """End a running ban now, keeping its repeat count (a later ban still doubles); the old ban, or None
    when there was none running."""
    async with db.transaction() as conn:
        row = await fetchone(conn, "SELECT * FROM bans WHERE guild_id = ? AND player_id = ?", (guild_id, player_id))
        if row is None or not _ban_from_row(row).active(at):
            return None
        old = _ban_from_row(row)
        await execute(
            conn, "UPDATE bans SET until = ? WHERE guild_id = ? AND player_id = ?", (utc_text(at), guild_id, player_id)
        )
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="ban.lift",
            subject=f"player:{player_id}",
            before={"guild_id": guild_id, **(_ban_json(old) or {})},
            after={"until": utc_text(at)},
            reason=reason,
        )
    return old


async def clear_ban(
    db: Database, guild_id: int, player_id: int, *, at: datetime, actor: str, reason: str | None = None
) -> Ban | None:
    """Delete a player's ban record in a club (the repeat count starts over); return the old one."""
    async with db.transaction() as conn:
        row = await fetchone(conn, "SELECT * FROM bans WHERE guild_id = ? AND player_id = ?", (guild_id, player_id))
        if row is None:
            return None
        old = _ban_from_row(row)
        await execute(conn, "DELETE FROM bans WHERE guild_id = ? AND player_id = ?", (guild_id, player_id))
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="ban.clear",
            subject=f"player:{player_id}",
            before={"guild_id": guild_id, **(_ban_json(old) or {})},
            reason=reason,
        )
    return old
