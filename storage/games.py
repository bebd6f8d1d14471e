"""Lichess game attempts per board, written so that a restart never creates a duplicate game.

The director writes a 'creating' row (with the challenge name it will use) before it asks
Lichess, and stores the game id right after (`game_failed` if Lichess refused). On restart, a row
still 'creating' is resolved by looking its challenge up on Lichess first (`bot.director.rounds`):
`game_created` with the game found, else `game_failed` and the board's next attempt, under a new name.
"""

from __future__ import annotations

from datetime import datetime

from domain.result import GameRow, GameStatus
from storage.db import Connection, Database, Row, execute, fetchall, fetchone, need_time, utc_text
from storage.errors import ConflictingResult, GameInProgress, InvalidInput, NotFound, WrongStatus
from storage.results import GameData, game_json
from storage.rounds import load_board

_GAME_SQL = "SELECT g.* FROM games g"


def game_from_row(row: Row) -> GameRow:
    """A games row as a GameRow."""
    return GameRow(
        id=int(row["id"]),
        board_id=int(row["board_id"]),
        attempt=int(row["attempt"]),
        challenge_name=str(row["challenge_name"]),
        lichess_id=row["lichess_id"],
        status=GameStatus(row["status"]),
        data=row["data"],
        created_at=need_time(row["created_at"]),
        updated_at=need_time(row["updated_at"]),
    )


async def _load(conn: Connection, game_row_id: int) -> GameRow:
    row = await fetchone(conn, "SELECT * FROM games WHERE id = ?", (game_row_id,))
    if row is None:
        raise NotFound(f"there is no game attempt {game_row_id}")
    return game_from_row(row)


async def begin_game(db: Database, board_id: int, challenge_name: str, *, at: datetime) -> GameRow:
    """Write the 'creating' row for the board's next game attempt, before asking Lichess.

    Idempotent for the same board and challenge name; GameInProgress if the board already has a
    game being created or played, WrongStatus if the board is decided.
    """
    if not challenge_name.strip():
        raise InvalidInput("a game attempt needs a challenge name")
    async with db.transaction() as conn:
        board = await load_board(conn, board_id)
        same = await fetchone(conn, "SELECT * FROM games WHERE challenge_name = ?", (challenge_name,))
        if same is not None:
            if int(same["board_id"]) != board_id:
                raise InvalidInput(f"challenge name {challenge_name!r} is already used by another board")
            return game_from_row(same)
        if board.result is not None:
            raise WrongStatus(f"round {board.round} board {board.board_no} already has a result")
        live = await fetchone(
            conn, "SELECT * FROM games WHERE board_id = ? AND status IN ('creating', 'created')", (board_id,)
        )
        if live is not None:
            game = game_from_row(live)
            raise GameInProgress(
                f"round {board.round} board {board.board_no} already has game attempt {game.attempt}"
                f" ({game.status.value})"
            )
        row = await fetchone(conn, "SELECT COALESCE(MAX(attempt), 0) FROM games WHERE board_id = ?", (board_id,))
        attempt = (int(row[0]) if row is not None else 0) + 1
        game_row_id = await execute(
            conn,
            "INSERT INTO games (board_id, attempt, challenge_name, status, created_at, updated_at)"
            " VALUES (?, ?, ?, 'creating', ?, ?)",
            (board_id, attempt, challenge_name, utc_text(at), utc_text(at)),
        )
        return await _load(conn, game_row_id)


async def game_created(db: Database, game_row_id: int, lichess_id: str, *, at: datetime) -> GameRow:
    """Store the Lichess game id of an attempt that was 'creating' (idempotent for the same id)."""
    if not lichess_id:
        raise InvalidInput("a created game needs its Lichess id")
    async with db.transaction() as conn:
        game = await _load(conn, game_row_id)
        if game.lichess_id == lichess_id:
            return game
        if game.status is not GameStatus.CREATING:
            raise ConflictingResult(
                f"game attempt {game.attempt} is {game.status.value} with id {game.lichess_id}, not {lichess_id}"
            )
        taken = await fetchone(conn, "SELECT id FROM games WHERE lichess_id = ?", (lichess_id,))
        if taken is not None:
            raise ConflictingResult(f"Lichess game {lichess_id} is already stored for another attempt")
        await execute(
            conn,
            "UPDATE games SET status = 'created', lichess_id = ?, updated_at = ? WHERE id = ?",
            (lichess_id, utc_text(at), game_row_id),
        )
        return await _load(conn, game_row_id)


async def game_failed(db: Database, game_row_id: int, *, at: datetime) -> GameRow:
    """Mark a 'creating' attempt as never created (Lichess refused it, or it is not found after a restart)."""
    async with db.transaction() as conn:
        game = await _load(conn, game_row_id)
        if game.status is GameStatus.FAILED:
            return game
        if game.status is not GameStatus.CREATING:
            raise WrongStatus(f"game attempt {game.attempt} is {game.status.value}, not being created")
        await execute(
            conn, "UPDATE games SET status = 'failed', updated_at = ? WHERE id = ?", (utc_text(at), game_row_id)
        )
        return await _load(conn, game_row_id)


async def update_game(
    db: Database, game_row_id: int, status: GameStatus, *, at: datetime, data: GameData | None = None
) -> GameRow:
    """Record what became of a created game (finished, aborted, replaced) and its latest raw data."""
    if status in (GameStatus.CREATING, GameStatus.FAILED):
        raise InvalidInput(f"use begin_game / game_failed for {status.value}")
    text = game_json(data)
    async with db.transaction() as conn:
        game = await _load(conn, game_row_id)
        if game.lichess_id is None:
            raise WrongStatus(f"game attempt {game.attempt} was never created on Lichess")
        await execute(
            conn,
            "UPDATE games SET status = ?, data = COALESCE(?, data), updated_at = ? WHERE id = ?",
            (status.value, text, utc_text(at), game_row_id),
        )
        return await _load(conn, game_row_id)


async def get_game(db: Database, game_row_id: int) -> GameRow:
    """A game attempt by row id."""
    async with db.snapshot() as conn:
        return await _load(conn, game_row_id)


async def game_by_lichess_id(db: Database, lichess_id: str) -> GameRow | None:
    """The attempt that holds a Lichess game id, or None."""
    async with db.snapshot() as conn:
        row = await fetchone(conn, "SELECT * FROM games WHERE lichess_id = ?", (lichess_id,))
    return None if row is None else game_from_row(row)


async def games_of_board(db: Database, board_id: int) -> list[GameRow]:
    """Every attempt of a board, in order."""
    async with db.snapshot() as conn:
        rows = await fetchall(conn, "SELECT * FROM games WHERE board_id = ? ORDER BY attempt", (board_id,))
    return [game_from_row(r) for r in rows]


async def games_of_round(
    db: Database, event_id: int, round_number: int, *, statuses: frozenset[GameStatus] | None = None
) -> list[GameRow]:
    """The attempts of a round's boards (optionally only some statuses), by board then attempt."""
    sql = _GAME_SQL + " JOIN boards b ON b.id = g.board_id WHERE b.event_id = ? AND b.round = ?"
    params: list[object] = [event_id, round_number]
    if statuses is not None:
        sql += f" AND g.status IN ({', '.join('?' for _ in statuses)})"
        params.extend(sorted(s.value for s in statuses))
    async with db.snapshot() as conn:
        rows = await fetchall(conn, sql + " ORDER BY b.board_no, g.attempt", params)
    return [game_from_row(r) for r in rows]


async def games_of_player(db: Database, event_id: int, player_id: int) -> list[GameRow]:
    """The attempts of every board a player sat at in an event, by round then attempt (one read for a player's page,
    not one a board)."""
    sql = _GAME_SQL + " JOIN boards b ON b.id = g.board_id WHERE b.event_id = ? AND (b.white_id = ? OR b.black_id = ?)"
    async with db.snapshot() as conn:
        rows = await fetchall(conn, sql + " ORDER BY b.round, g.attempt", (event_id, player_id, player_id))
    return [game_from_row(r) for r in rows]


async def games_being_created(db: Database, *, event_id: int | None = None) -> list[GameRow]:
    """Attempts still 'creating' (to resolve by challenge name after a restart)."""
    sql = _GAME_SQL + " JOIN boards b ON b.id = g.board_id WHERE g.status = 'creating'"
    params: list[object] = []
    if event_id is not None:
        sql += " AND b.event_id = ?"
        params.append(event_id)
    async with db.snapshot() as conn:
        rows = await fetchall(conn, sql + " ORDER BY g.id", params)
    return [game_from_row(r) for r in rows]


async def live_games(db: Database) -> list[tuple[int, str]]:
    """(event id, Lichess id) of every game being played in a running or paused event (for the game stream)."""
    async with db.snapshot() as conn:
        rows = await fetchall(
            conn,
            "SELECT b.event_id, g.lichess_id FROM games g JOIN boards b ON b.id = g.board_id"
            " JOIN events e ON e.id = b.event_id WHERE g.status = 'created' AND e.status IN ('running', 'paused')"
            " ORDER BY g.id",
        )
    return [(int(r[0]), str(r[1])) for r in rows]
