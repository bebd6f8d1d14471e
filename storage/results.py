"""Board results: record one (idempotent), or correct one (the old result stays in the audit log)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime

from domain.result import Result
from domain.rounds import BoardRow
from storage import audit
from storage.db import Connection, Database, execute, utc_text
from storage.errors import ConflictingResult, InvalidInput
from storage.rounds import load_board

GameData = str | Mapping[str, object]


def game_json(data: GameData | None) -> str | None:
    """Raw game data as JSON text; refuse text that is not JSON."""
    if data is None:
        return None
    if isinstance(data, str):
        try:
            json.loads(data)
        except ValueError as exc:
            raise InvalidInput(f"the game data is not JSON: {exc}") from None
        return data
    return json.dumps(data, sort_keys=True)


def _result_json(board: BoardRow) -> dict[str, object] | None:
    if board.result is None:
        return None
    return {"result": board.result.value, "kind": board.result.kind.value, "game_id": board.game_id}


async def _write(
    conn: Connection, board: BoardRow, result: Result, at: datetime, game_id: str | None, data: str | None
) -> BoardRow:
    await execute(
        conn,
        "UPDATE boards SET result = ?, result_kind = ?, game_id = ?, game_data = ?, decided_at = ? WHERE id = ?",
        (result.value, result.kind.value, game_id, data, utc_text(at), board.id),
    )
    return await load_board(conn, board.id)


async def record_result(
    db: Database,
    board_id: int,
    result: Result,
    *,
    at: datetime,
    actor: str,
    game_id: str | None = None,
    game_data: GameData | None = None,
    reason: str | None = None,
) -> BoardRow:
    """Record a board's result with the Lichess game and raw data that decided it.

    Recording the same result again changes nothing; a different one raises ConflictingResult
    (use `correct_result`).
    """
    data = game_json(game_data)
    async with db.transaction() as conn:
        board = await load_board(conn, board_id)
        if board.result is result:
            return board
        if board.result is not None:
            raise ConflictingResult(
                f"round {board.round} board {board.board_no} already has {board.result.value};"
                f" {result.value} needs a correction"
            )
        new = await _write(conn, board, result, at, game_id, data)
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="result.record",
            subject=f"board:{board.id}",
            event_id=board.event_id,
            after={"round": board.round, "board": board.board_no, **(_result_json(new) or {})},
            reason=reason,
        )
        return new


async def correct_result(
    db: Database,
    board_id: int,
    result: Result,
    *,
    at: datetime,
    actor: str,
    reason: str,
    game_id: str | None = None,
    game_data: GameData | None = None,
) -> BoardRow:
    """Replace a board's result (an organiser's correction); the audit log keeps before → after.

    Without a new `game_id`/`game_data`, the board keeps the game that was stored.
    """
    if not reason.strip():
        raise InvalidInput("a correction needs a reason")
    data = game_json(game_data)
    async with db.transaction() as conn:
        board = await load_board(conn, board_id)
        if board.result is result and game_id is None and data is None:
            return board
        new = await _write(
            conn,
            board,
            result,
            at,
            game_id if game_id is not None else board.game_id,
            data if data is not None else board.game_data,
        )
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="result.correct",
            subject=f"board:{board.id}",
            event_id=board.event_id,
            before=_result_json(board),
            after={"round": board.round, "board": board.board_no, **(_result_json(new) or {})},
            reason=reason,
        )
        return new
