"""The director's reads and writes, over the storage schema (`storage/migrations`) and `storage.db`.

One place for every SQL statement the director runs, so the use cases read as rules. Times are passed
in by the director (storage never reads a clock).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.director_models import (
    BoardResult,
    EarlyDrawPolicy,
    Event,
    EventSettings,
    EventStatus,
    RoundSchedule,
    RoundStatus,
)
from storage.db import Connection, execute, fetchall, fetchone, parse_time, utc_text
from storage.records import DEFAULT_RULES

RESULT_KIND = {
    BoardResult.WHITE_WINS: "played",
    BoardResult.BLACK_WINS: "played",
    BoardResult.DRAW: "played",
    BoardResult.WHITE_FORFEIT_WIN: "forfeit",
    BoardResult.BLACK_FORFEIT_WIN: "forfeit",
    BoardResult.DOUBLE_FORFEIT: "double_forfeit",
}


@dataclass(frozen=True)
class PlayerRow:
    """A Discord user known to the bot, with their Lichess link if verified."""

    id: int
    discord_id: int
    display_name: str
    lichess_id: str | None
    lichess_name: str | None
    linked_at: datetime | None


@dataclass(frozen=True)
class EntryRow:
    """A player in an event (joined with the player's names)."""

    event_id: int
    player_id: int
    discord_id: int
    lichess_id: str
    name: str
    number: int | None
    rating: int
    status: str
    joined_round: int
    late_bye_round: int | None


@dataclass(frozen=True)
class RoundRow:
    """A paired round."""

    event_id: int
    number: int
    status: RoundStatus
    paired_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


@dataclass(frozen=True)
class BoardRow:
    """A board of a round (players by player id)."""

    id: int
    event_id: int
    round: int
    board_no: int
    white_id: int
    black_id: int
    result: BoardResult | None
    game_id: str | None
    decided_at: datetime | None


@dataclass(frozen=True)
class GameRow:
    """One attempt at a Lichess game for a board."""

    id: int
    board_id: int
    attempt: int
    challenge_name: str
    lichess_id: str | None
    status: str
    created_at: datetime
    updated_at: datetime


def _j(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


# -- events ----------------------------------------------------------------------------------------


def _settings_columns(s: EventSettings) -> dict[str, Any]:
    interval = None
    times: list[str] = []
    if s.schedule is RoundSchedule.INTERVAL:
        interval = max(1, round(s.round_interval_minutes * 60))
    elif s.schedule is RoundSchedule.FIXED:
        times = [utc_text(t) for t in s.fixed_times]
    return {
        "name": s.name,
        "system": s.system,
        "rounds": s.rounds,
        "clock_limit": s.clock_limit,
        "clock_increment": s.clock_increment,
        "rated": int(s.rated),
        "start_at": utc_text(s.start_at) if s.start_at else None,
        "round_interval": interval,
        "round_times": json.dumps(times),
        "rating_min": s.rating_min,
        "rating_max": s.rating_max,
        "team": s.team,
        "tiebreaks": json.dumps(list(s.tiebreaks)),
        "rules": json.dumps(list(DEFAULT_RULES)),
        "early_draw_policy": s.early_draw.value,
        "early_draw_moves": s.early_draw_moves,
        "no_show_seconds": max(1, round(s.noshow_minutes * 60)),
        "max_byes": s.max_byes,
        "late_join_bye": 1,
        "acceleration": int(s.accelerated),
        "initial_colour": "w",
    }


def _event(row: Any) -> Event:
    times = tuple(datetime.fromisoformat(t) for t in json.loads(row["round_times"]))
    if row["round_interval"] is not None:
        schedule = RoundSchedule.INTERVAL
    elif times:
        schedule = RoundSchedule.FIXED
    else:
        schedule = RoundSchedule.MANUAL
    settings = EventSettings(
        name=row["name"],
        rounds=row["rounds"],
        clock_limit=row["clock_limit"],
        clock_increment=row["clock_increment"],
        rated=bool(row["rated"]),
        system=row["system"],
        start_at=parse_time(row["start_at"]),
        schedule=schedule,
        round_interval_minutes=(row["round_interval"] or 0) / 60,
        fixed_times=times,
        rating_min=row["rating_min"],
        rating_max=row["rating_max"],
        team=row["team"],
        tiebreaks=tuple(json.loads(row["tiebreaks"])),
        max_byes=row["max_byes"],
        accelerated=bool(row["acceleration"]),
        early_draw=EarlyDrawPolicy(row["early_draw_policy"]),
        early_draw_moves=row["early_draw_moves"],
        noshow_minutes=row["no_show_seconds"] / 60,
    )
    return Event(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        settings=settings,
        status=EventStatus(row["status"]),
        current_round=row["current_round"] or 0,
        created_at=parse_time(row["created_at"]),
        finish_reason=row["logged_finish_reason"],
    )


_EVENT_SELECT = """
SELECT e.*,
       (SELECT MAX(number) FROM rounds r WHERE r.event_id = e.id) AS current_round,
       (SELECT a.reason FROM audit_log a WHERE a.event_id = e.id AND a.action = 'finish'
         ORDER BY a.id DESC LIMIT 1) AS logged_finish_reason
FROM events e
"""


async def insert_event(
    conn: Connection, guild_id: int, channel_id: int, settings: EventSettings, created_by: int, now: datetime
) -> int:
    """A new draft event."""
    cols = _settings_columns(settings)
    cols.update(
        guild_id=guild_id, channel_id=channel_id, status="draft", created_by=created_by, created_at=utc_text(now)
    )
    names = ", ".join(cols)
    marks = ", ".join("?" for _ in cols)
    return await execute(conn, f"INSERT INTO events ({names}) VALUES ({marks})", list(cols.values()))


async def update_event_settings(conn: Connection, event_id: int, settings: EventSettings) -> None:
    """Replace an event's settings."""
    cols = _settings_columns(settings)
    assignments = ", ".join(f"{k} = ?" for k in cols)
    await execute(conn, f"UPDATE events SET {assignments} WHERE id = ?", [*cols.values(), event_id])


async def get_event(conn: Connection, event_id: int) -> Event | None:
    """One event."""
    row = await fetchone(conn, _EVENT_SELECT + " WHERE e.id = ?", (event_id,))
    return _event(row) if row is not None else None


async def list_events(conn: Connection, guild_id: int | None, statuses: Sequence[str] | None) -> list[Event]:
    """Events of a guild (every guild if None), newest first."""
    where: list[str] = []
    params: list[Any] = []
    if guild_id is not None:
        where.append("e.guild_id = ?")
        params.append(guild_id)
    if statuses:
        where.append(f"e.status IN ({', '.join('?' for _ in statuses)})")
        params.extend(statuses)
    sql = _EVENT_SELECT + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY e.id DESC"
    return [_event(r) for r in await fetchall(conn, sql, params)]


async def set_event_status(conn: Connection, event_id: int, status: EventStatus) -> None:
    """Change an event's status."""
    await execute(conn, "UPDATE events SET status = ? WHERE id = ?", (status.value, event_id))


async def set_event_times(conn: Connection, event_id: int, **times: datetime | None) -> None:
    """Set started_at, finished_at and/or next_round_at."""
    for column, value in times.items():
        if column not in ("started_at", "finished_at", "next_round_at"):
            raise ValueError(column)
        await execute(
            conn, f"UPDATE events SET {column} = ? WHERE id = ?", (utc_text(value) if value else None, event_id)
        )


async def event_times(conn: Connection, event_id: int) -> dict[str, datetime | None]:
    """started_at, finished_at, next_round_at."""
    row = await fetchone(conn, "SELECT started_at, finished_at, next_round_at FROM events WHERE id = ?", (event_id,))
    if row is None:
        return {}
    return {k: parse_time(row[k]) for k in ("started_at", "finished_at", "next_round_at")}


# -- players and links -----------------------------------------------------------------------------


def _player(row: Any) -> PlayerRow:
    return PlayerRow(
        row["id"],
        row["discord_id"],
        row["display_name"],
        row["lichess_id"],
        row["lichess_name"],
        parse_time(row["linked_at"]),
    )


async def player_by_discord(conn: Connection, discord_id: int) -> PlayerRow | None:
    """The player row of a Discord user."""
    row = await fetchone(conn, "SELECT * FROM players WHERE discord_id = ?", (discord_id,))
    return _player(row) if row else None


async def player_by_lichess(conn: Connection, lichess_id: str) -> PlayerRow | None:
    """The player linked to a Lichess account."""
    row = await fetchone(conn, "SELECT * FROM players WHERE lichess_id = ?", (lichess_id.lower(),))
    return _player(row) if row else None


async def ensure_player(conn: Connection, discord_id: int, name: str, now: datetime) -> PlayerRow:
    """The player row of a Discord user, created if new."""
    found = await player_by_discord(conn, discord_id)
    if found is not None:
        return found
    await execute(
        conn,
        "INSERT INTO players (discord_id, display_name, created_at) VALUES (?, ?, ?)",
        (discord_id, name, utc_text(now)),
    )
    created = await player_by_discord(conn, discord_id)
    assert created is not None
    return created


async def set_link(conn: Connection, player_id: int, lichess_id: str, lichess_name: str, now: datetime) -> None:
    """Record a verified link."""
    await execute(
        conn,
        "UPDATE players SET lichess_id = ?, lichess_name = ?, linked_at = ? WHERE id = ?",
        (lichess_id.lower(), lichess_name, utc_text(now), player_id),
    )


async def put_link_code(
    conn: Connection, discord_id: int, lichess_id: str, code: str, now: datetime, expires: datetime
) -> None:
    """Store (or replace) a pending link code."""
    await execute(conn, "DELETE FROM link_codes WHERE discord_id = ?", (discord_id,))
    await execute(
        conn,
        "INSERT INTO link_codes (discord_id, lichess_id, code, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
        (discord_id, lichess_id.lower(), code, utc_text(now), utc_text(expires)),
    )


async def get_link_code(conn: Connection, discord_id: int) -> tuple[str, str, datetime] | None:
    """(lichess id, code, expiry) of a pending link."""
    row = await fetchone(
        conn, "SELECT lichess_id, code, expires_at FROM link_codes WHERE discord_id = ?", (discord_id,)
    )
    if row is None:
        return None
    return row["lichess_id"], row["code"], datetime.fromisoformat(row["expires_at"])


async def delete_link_code(conn: Connection, discord_id: int) -> None:
    """Forget a pending link."""
    await execute(conn, "DELETE FROM link_codes WHERE discord_id = ?", (discord_id,))


# -- entries ---------------------------------------------------------------------------------------

_ENTRY_SELECT = """
SELECT en.*, p.discord_id, p.lichess_id, p.lichess_name
FROM entries en JOIN players p ON p.id = en.player_id
"""


def _entry(row: Any) -> EntryRow:
    return EntryRow(
        row["event_id"],
        row["player_id"],
        row["discord_id"],
        row["lichess_id"] or "",
        row["lichess_name"] or "",
        row["number"],
        row["rating"],
        row["status"],
        row["joined_round"],
        row["late_bye_round"],
    )


async def entries(conn: Connection, event_id: int) -> list[EntryRow]:
    """Every entry of an event, by starting number (unnumbered last, by join order)."""
    rows = await fetchall(
        conn, _ENTRY_SELECT + " WHERE en.event_id = ? ORDER BY en.number IS NULL, en.number, en.rowid", (event_id,)
    )
    return [_entry(r) for r in rows]


async def entry(conn: Connection, event_id: int, player_id: int) -> EntryRow | None:
    """One entry."""
    row = await fetchone(conn, _ENTRY_SELECT + " WHERE en.event_id = ? AND en.player_id = ?", (event_id, player_id))
    return _entry(row) if row else None


async def insert_entry(
    conn: Connection,
    event_id: int,
    player_id: int,
    rating: int,
    joined_round: int,
    late_bye_round: int | None,
    number: int | None,
    now: datetime,
) -> None:
    """A new entry."""
    await execute(
        conn,
        "INSERT INTO entries (event_id, player_id, number, rating, status, joined_round, late_bye_round, joined_at)"
        " VALUES (?, ?, ?, ?, 'active', ?, ?, ?)",
        (event_id, player_id, number, rating, joined_round, late_bye_round, utc_text(now)),
    )


async def set_entry_status(conn: Connection, event_id: int, player_id: int, status: str) -> None:
    """Change an entry's status."""
    await execute(
        conn, "UPDATE entries SET status = ? WHERE event_id = ? AND player_id = ?", (status, event_id, player_id)
    )


async def set_entry_number(conn: Connection, event_id: int, player_id: int, number: int) -> None:
    """Give an entry its starting number."""
    await execute(
        conn, "UPDATE entries SET number = ? WHERE event_id = ? AND player_id = ?", (number, event_id, player_id)
    )


# -- rounds, boards, byes ----------------------------------------------------------------------------


def _round(row: Any) -> RoundRow:
    return RoundRow(
        row["event_id"],
        row["number"],
        RoundStatus(row["status"]),
        datetime.fromisoformat(row["paired_at"]),
        parse_time(row["started_at"]),
        parse_time(row["finished_at"]),
    )


def _board(row: Any) -> BoardRow:
    return BoardRow(
        row["id"],
        row["event_id"],
        row["round"],
        row["board_no"],
        row["white_id"],
        row["black_id"],
        BoardResult(row["result"]) if row["result"] else None,
        row["game_id"],
        parse_time(row["decided_at"]),
    )


async def rounds(conn: Connection, event_id: int) -> list[RoundRow]:
    """Every paired round of an event, in order."""
    rows = await fetchall(conn, "SELECT * FROM rounds WHERE event_id = ? ORDER BY number", (event_id,))
    return [_round(r) for r in rows]


async def boards(conn: Connection, event_id: int, round_number: int | None = None) -> list[BoardRow]:
    """The boards of one round (or of every round), in order."""
    if round_number is None:
        rows = await fetchall(conn, "SELECT * FROM boards WHERE event_id = ? ORDER BY round, board_no", (event_id,))
    else:
        rows = await fetchall(
            conn, "SELECT * FROM boards WHERE event_id = ? AND round = ? ORDER BY board_no", (event_id, round_number)
        )
    return [_board(r) for r in rows]


async def round_byes(conn: Connection, event_id: int) -> list[tuple[int, int, str]]:
    """(round, player id, kind) of every unpaired record."""
    rows = await fetchall(
        conn, "SELECT round, player_id, kind FROM round_byes WHERE event_id = ? ORDER BY round, player_id", (event_id,)
    )
    return [(r["round"], r["player_id"], r["kind"]) for r in rows]


async def insert_round(
    conn: Connection,
    event_id: int,
    round_number: int,
    pairs: Sequence[tuple[int, int]],
    byes: Mapping[int, str],
    now: datetime,
) -> None:
    """A round, its boards (white, black by player id, in board order) and its unpaired records."""
    await execute(
        conn,
        "INSERT INTO rounds (event_id, number, status, paired_at) VALUES (?, ?, 'paired', ?)",
        (event_id, round_number, utc_text(now)),
    )
    for board_no, (white, black) in enumerate(pairs, start=1):
        await execute(
            conn,
            "INSERT INTO boards (event_id, round, board_no, white_id, black_id) VALUES (?, ?, ?, ?, ?)",
            (event_id, round_number, board_no, white, black),
        )
    for player_id, kind in sorted(byes.items()):
        await execute(
            conn,
            "INSERT INTO round_byes (event_id, round, player_id, kind) VALUES (?, ?, ?, ?)",
            (event_id, round_number, player_id, kind),
        )


async def set_round(conn: Connection, event_id: int, round_number: int, status: RoundStatus, **times: datetime) -> None:
    """Change a round's status (and started_at / finished_at)."""
    await execute(
        conn, "UPDATE rounds SET status = ? WHERE event_id = ? AND number = ?", (status.value, event_id, round_number)
    )
    for column, value in times.items():
        if column not in ("started_at", "finished_at"):
            raise ValueError(column)
        await execute(
            conn,
            f"UPDATE rounds SET {column} = ? WHERE event_id = ? AND number = ?",
            (utc_text(value), event_id, round_number),
        )


async def set_board_result(
    conn: Connection, board_id: int, result: BoardResult | None, game_id: str | None, data: Any, now: datetime | None
) -> None:
    """Record (or clear) a board's result with the game data that decided it."""
    if result is None:
        await execute(
            conn,
            "UPDATE boards SET result = NULL, result_kind = NULL, decided_at = NULL WHERE id = ?",
            (board_id,),
        )
        return
    assert now is not None
    await execute(
        conn,
        "UPDATE boards SET result = ?, result_kind = ?, game_id = COALESCE(?, game_id),"
        " game_data = COALESCE(?, game_data), decided_at = ? WHERE id = ?",
        (result.value, RESULT_KIND[result], game_id, _j(data) if data is not None else None, utc_text(now), board_id),
    )


async def board_game_data(conn: Connection, event_id: int) -> list[tuple[int, int, str | None]]:
    """(round, board, raw game JSON) of every board of an event."""
    rows = await fetchall(
        conn, "SELECT round, board_no, game_data FROM boards WHERE event_id = ? ORDER BY round, board_no", (event_id,)
    )
    return [(r["round"], r["board_no"], r["game_data"]) for r in rows]


# -- games -----------------------------------------------------------------------------------------


def _game(row: Any) -> GameRow:
    return GameRow(
        row["id"],
        row["board_id"],
        row["attempt"],
        row["challenge_name"],
        row["lichess_id"],
        row["status"],
        datetime.fromisoformat(row["created_at"]),
        datetime.fromisoformat(row["updated_at"]),
    )


async def games_of_round(conn: Connection, event_id: int, round_number: int) -> list[GameRow]:
    """Every game attempt of a round's boards."""
    rows = await fetchall(
        conn,
        "SELECT g.* FROM games g JOIN boards b ON b.id = g.board_id WHERE b.event_id = ? AND b.round = ?"
        " ORDER BY b.board_no, g.attempt",
        (event_id, round_number),
    )
    return [_game(r) for r in rows]


async def insert_game(conn: Connection, board_id: int, attempt: int, name: str, now: datetime) -> int:
    """A 'creating' row, written before the Lichess create."""
    return await execute(
        conn,
        "INSERT INTO games (board_id, attempt, challenge_name, status, created_at, updated_at)"
        " VALUES (?, ?, ?, 'creating', ?, ?)",
        (board_id, attempt, name, utc_text(now), utc_text(now)),
    )


async def set_game(
    conn: Connection, game_row: int, status: str, now: datetime, lichess_id: str | None = None, data: Any = None
) -> None:
    """Update a game attempt."""
    await execute(
        conn,
        "UPDATE games SET status = ?, lichess_id = COALESCE(?, lichess_id), data = COALESCE(?, data), updated_at = ?"
        " WHERE id = ?",
        (status, lichess_id, _j(data) if data is not None else None, utc_text(now), game_row),
    )


# -- byes, forbidden pairs, bans ---------------------------------------------------------------------


async def bye_requests(conn: Connection, event_id: int) -> list[tuple[int, int]]:
    """(player id, round) of every requested bye."""
    rows = await fetchall(
        conn, "SELECT player_id, round FROM bye_requests WHERE event_id = ? ORDER BY round, player_id", (event_id,)
    )
    return [(r["player_id"], r["round"]) for r in rows]


async def insert_bye_request(conn: Connection, event_id: int, player_id: int, round_number: int, now: datetime) -> None:
    """A requested half-point bye."""
    await execute(
        conn,
        "INSERT OR IGNORE INTO bye_requests (event_id, player_id, round, requested_at) VALUES (?, ?, ?, ?)",
        (event_id, player_id, round_number, utc_text(now)),
    )


async def forbidden_pairs(conn: Connection, event_id: int) -> list[tuple[int, int]]:
    """Player-id pairs that must not meet."""
    rows = await fetchall(conn, "SELECT player_a, player_b FROM forbidden_pairs WHERE event_id = ?", (event_id,))
    return [(r["player_a"], r["player_b"]) for r in rows]


async def insert_forbidden(conn: Connection, event_id: int, a: int, b: int, now: datetime) -> None:
    """Two players who must not meet."""
    low, high = min(a, b), max(a, b)
    await execute(
        conn,
        "INSERT OR IGNORE INTO forbidden_pairs (event_id, player_a, player_b, created_at) VALUES (?, ?, ?, ?)",
        (event_id, low, high, utc_text(now)),
    )


async def ban(conn: Connection, guild_id: int, player_id: int) -> tuple[datetime, int] | None:
    """(until, count) of a player's ban in a club."""
    row = await fetchone(
        conn, "SELECT until, count FROM bans WHERE guild_id = ? AND player_id = ?", (guild_id, player_id)
    )
    return (datetime.fromisoformat(row["until"]), row["count"]) if row else None


async def put_ban(
    conn: Connection, guild_id: int, player_id: int, until: datetime, count: int, reason: str, now: datetime
) -> None:
    """Set a player's ban in a club."""
    await execute(conn, "DELETE FROM bans WHERE guild_id = ? AND player_id = ?", (guild_id, player_id))
    await execute(
        conn,
        "INSERT INTO bans (guild_id, player_id, until, count, reason, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (guild_id, player_id, utc_text(until), count, reason, utc_text(now)),
    )


async def lift_ban(conn: Connection, guild_id: int, player_id: int, now: datetime) -> None:
    """End a ban now (the count stays, so a later no-show still doubles)."""
    await execute(
        conn, "UPDATE bans SET until = ? WHERE guild_id = ? AND player_id = ?", (utc_text(now), guild_id, player_id)
    )


# -- audit -----------------------------------------------------------------------------------------


async def audit(
    conn: Connection,
    now: datetime,
    actor: str,
    action: str,
    event_id: int | None,
    subject: str,
    before: Any = None,
    after: Any = None,
    reason: str | None = None,
) -> None:
    """Append to the audit log."""
    await execute(
        conn,
        "INSERT INTO audit_log (at, actor, action, event_id, subject, before, after, reason)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            utc_text(now),
            actor,
            action,
            event_id,
            subject,
            _j(before) if before is not None else None,
            _j(after) if after is not None else None,
            reason,
        ),
    )


async def audited(conn: Connection, event_id: int, action: str, subject: str) -> bool:
    """Whether an action on a subject is in the audit log (e.g. a round already announced)."""
    row = await fetchone(
        conn,
        "SELECT 1 FROM audit_log WHERE event_id = ? AND action = ? AND subject = ? LIMIT 1",
        (event_id, action, subject),
    )
    return row is not None


async def audit_entries(conn: Connection, event_id: int) -> list[dict[str, Any]]:
    """The audit log of an event, oldest first."""
    rows = await fetchall(conn, "SELECT * FROM audit_log WHERE event_id = ? ORDER BY id", (event_id,))
    return [dict(r) for r in rows]


async def latest_time(conn: Connection) -> datetime | None:
    """The latest time recorded anywhere (a fast clock resumes from it)."""
    row = await fetchone(conn, "SELECT MAX(at) AS at FROM audit_log")
    return parse_time(row["at"]) if row is not None and row["at"] else None
