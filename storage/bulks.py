"""Bulk pairing attempts, written so that a restart never creates a bulk twice.

Before asking Lichess the director writes, in one transaction, a 'creating' bulk and a 'creating' game
attempt for each of its boards (`begin_bulk`); the reply's bulk id and game ids are stored together in
one transaction (`bulk_created`). A bulk still 'creating' after a restart is looked up on Lichess by its
players and clock start first (`pending_bulks`), and only created again when Lichess has none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from storage import games as storage_games
from storage.db import Database, execute, fetchall, need_time, utc_text
from storage.errors import InvalidInput, NotFound


@dataclass(frozen=True)
class BulkBoard:
    """A board to put into a bulk: its id, the challenge name of its attempt, the two Lichess ids."""

    board_id: int
    name: str
    white: str
    black: str


@dataclass(frozen=True)
class BulkGame:
    """One game attempt of a bulk."""

    game_row_id: int
    board_id: int
    white: str
    black: str
    lichess_id: str | None


@dataclass(frozen=True)
class BulkAttempt:
    """A bulk pairing attempt and its games."""

    id: int
    event_id: int
    round: int
    status: str
    lichess_id: str | None
    start_clocks_at: datetime
    games: tuple[BulkGame, ...]


async def begin_bulk(
    db: Database,
    event_id: int,
    round_number: int,
    boards: Sequence[BulkBoard],
    *,
    start_clocks_at: datetime,
    at: datetime,
) -> BulkAttempt:
    """Write the 'creating' bulk and a 'creating' game attempt for each board, in one transaction."""
    if not boards:
        raise InvalidInput("a bulk needs at least one board")
    async with db.transaction() as conn:
        bulk_id = await execute(
            conn,
            "INSERT INTO bulks (event_id, round, status, start_clocks_at, created_at, updated_at)"
            " VALUES (?, ?, 'creating', ?, ?, ?)",
            (event_id, round_number, utc_text(start_clocks_at), utc_text(at), utc_text(at)),
        )
        for board in boards:
            game = await storage_games.begin_game(db, board.board_id, board.name, at=at)
            await execute(
                conn,
                "INSERT INTO bulk_games (game_id, bulk_id, white, black) VALUES (?, ?, ?, ?)",
                (game.id, bulk_id, board.white.lower(), board.black.lower()),
            )
    return await get_bulk(db, bulk_id)


async def bulk_created(
    db: Database, bulk_id: int, lichess_id: str, game_ids: Mapping[int, str], *, at: datetime
) -> BulkAttempt:
    """Store the bulk's Lichess id and every game's id (by game attempt row) in one transaction."""
    bulk = await get_bulk(db, bulk_id)
    missing = [g.game_row_id for g in bulk.games if g.game_row_id not in game_ids]
    if missing:
        raise InvalidInput(f"the reply has no game for attempts {missing}")
    async with db.transaction() as conn:
        await execute(
            conn,
            "UPDATE bulks SET status = 'created', lichess_id = ?, updated_at = ? WHERE id = ?",
            (lichess_id, utc_text(at), bulk_id),
        )
        for game in bulk.games:
            await storage_games.game_created(db, game.game_row_id, game_ids[game.game_row_id], at=at)
    return await get_bulk(db, bulk_id)


async def bulk_failed(db: Database, bulk_id: int, *, at: datetime) -> BulkAttempt:
    """Lichess has no such bulk: the bulk and its game attempts failed (their boards get a new attempt)."""
    bulk = await get_bulk(db, bulk_id)
    async with db.transaction() as conn:
        await execute(conn, "UPDATE bulks SET status = 'failed', updated_at = ? WHERE id = ?", (utc_text(at), bulk_id))
        for game in bulk.games:
            await storage_games.game_failed(db, game.game_row_id, at=at)
    return await get_bulk(db, bulk_id)


async def stored_bulk_ids(db: Database, lichess_ids: Sequence[str]) -> set[str]:
    """Which of these Lichess bulk ids are stored for a bulk attempt (of any event)."""
    if not lichess_ids:
        return set()
    marks = ",".join("?" * len(lichess_ids))
    async with db.snapshot() as conn:
        rows = await fetchall(conn, f"SELECT lichess_id FROM bulks WHERE lichess_id IN ({marks})", tuple(lichess_ids))
    return {str(r["lichess_id"]) for r in rows}


async def get_bulk(db: Database, bulk_id: int) -> BulkAttempt:
    """One bulk attempt with its games; NotFound if there is none."""
    found = await _bulks(db, "b.id = ?", (bulk_id,))
    if not found:
        raise NotFound(f"there is no bulk attempt {bulk_id}")
    return found[0]


async def bulks_of_round(db: Database, event_id: int, round_number: int) -> list[BulkAttempt]:
    """Every bulk attempt of a round, oldest first."""
    return await _bulks(db, "b.event_id = ? AND b.round = ?", (event_id, round_number))


async def bulks_of_games(db: Database, game_ids: Sequence[int]) -> list[BulkAttempt]:
    """The bulk attempts holding any of these game attempts (by game row id), oldest first."""
    if not game_ids:
        return []
    marks = ",".join("?" * len(game_ids))
    return await _bulks(db, f"b.id IN (SELECT bulk_id FROM bulk_games WHERE game_id IN ({marks}))", tuple(game_ids))


async def _bulks(db: Database, where: str, params: Sequence[object]) -> list[BulkAttempt]:
    async with db.snapshot() as conn:
        rows = await fetchall(conn, f"SELECT * FROM bulks b WHERE {where} ORDER BY b.id", params)
        games = await fetchall(
            conn,
            "SELECT bg.*, g.board_id, g.lichess_id FROM bulk_games bg JOIN games g ON g.id = bg.game_id"
            f" JOIN bulks b ON b.id = bg.bulk_id WHERE {where} ORDER BY g.id",
            params,
        )
    by_bulk: dict[int, list[BulkGame]] = {}
    for g in games:
        by_bulk.setdefault(int(g["bulk_id"]), []).append(
            BulkGame(int(g["game_id"]), int(g["board_id"]), str(g["white"]), str(g["black"]), g["lichess_id"])
        )
    return [
        BulkAttempt(
            id=int(r["id"]),
            event_id=int(r["event_id"]),
            round=int(r["round"]),
            status=str(r["status"]),
            lichess_id=r["lichess_id"],
            start_clocks_at=need_time(r["start_clocks_at"]),
            games=tuple(by_bulk.get(int(r["id"]), ())),
        )
        for r in rows
    ]
