"""Write an event from the database: TRF for arbiters, PGN of its games, JSON of everything."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import chess
import chess.pgn

from pairing import trf
from pairing.model import Tournament
from storage.audit import audit_log
from storage.db import Database, fetchall, utc_text
from storage.entries import entry_json, load_entries
from storage.events import settings_json
from storage.games import game_from_row
from storage.history import History, build_tournament, load_history
from storage.records import BoardRow, Entry, GameRow, RoundSummary

FORMATS = ("trf", "pgn", "json")


def _date(moment: datetime | None, sep: str = "/") -> str:
    return moment.astimezone(UTC).strftime(f"%Y{sep}%m{sep}%d") if moment else ""


async def export_trf(db: Database, event_id: int) -> str:
    """The event as a TRF file (decided rounds, plus the next round's fixed byes)."""
    async with db.snapshot() as conn:
        history = await load_history(conn, event_id)
    tournament = build_tournament(history)
    event = history.event
    header = [f"012 {event.settings.name}"]
    if event.started_at:
        header.append(f"042 {_date(event.started_at)}")
    if event.finished_at:
        header.append(f"052 {_date(event.finished_at)}")
    header.append(f"062 {len(tournament.players)}")
    header.append("092 Individual: Swiss-System")
    return trf.dumps(replace(tournament, header=tuple(header)))


def _names(history: History) -> dict[int, Entry]:
    return {e.player.id: e for e in history.numbered.values()}


def _game_pgn(history: History, summary: RoundSummary, board: BoardRow) -> str | None:
    if board.game_data is None:
        return None
    try:
        data: dict[str, Any] = json.loads(board.game_data)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    entries = _names(history)
    white, black = entries.get(board.white_id), entries.get(board.black_id)
    fen = data.get("initialFen")
    game = chess.pgn.Game()
    if isinstance(fen, str) and fen != chess.STARTING_FEN:
        game.setup(chess.Board(fen))
    game.headers["Event"] = history.event.settings.name
    game_id = board.game_id or data.get("id")
    game.headers["Site"] = f"https://lichess.org/{game_id}" if game_id else "?"
    created = data.get("createdAt")
    played = datetime.fromtimestamp(created / 1000, UTC) if isinstance(created, int) else summary.round.started_at
    game.headers["Date"] = _date(played, ".") or "????.??.??"
    game.headers["Round"] = f"{summary.round.number}.{board.board_no}"
    game.headers["White"] = white.player.name if white else "?"
    game.headers["Black"] = black.player.name if black else "?"
    game.headers["Result"] = board.result.pgn if board.result else "*"
    if white:
        game.headers["WhiteElo"] = str(white.rating)
    if black:
        game.headers["BlackElo"] = str(black.rating)
    clock = data.get("clock")
    if isinstance(clock, dict) and "initial" in clock:
        game.headers["TimeControl"] = f"{clock['initial']}+{clock.get('increment', 0)}"
    if isinstance(data.get("status"), str):
        game.headers["Termination"] = str(data["status"])
    if board.result is not None and board.result.kind.value != "played":
        game.headers["Annotator"] = f"swissbot: {board.result.kind.value.replace('_', ' ')}"
    node: chess.pgn.GameNode = game
    moves = data.get("moves")
    if isinstance(moves, str):
        position = game.board()
        for san in moves.split():
            try:
                move = position.parse_san(san)
            except ValueError:
                node.comment = f"the stored moves stop being legal at {san!r}"
                break
            node = node.add_variation(move)
            position.push(move)
    out = io.StringIO()
    game.accept(chess.pgn.FileExporter(out, headers=True, comments=True, variations=False))
    return out.getvalue().strip() + "\n"


async def export_pgn(db: Database, event_id: int) -> str:
    """The PGN of every game that decided a board (from the stored game data), round by round."""
    async with db.snapshot() as conn:
        history = await load_history(conn, event_id)
    games = [
        text
        for summary in history.rounds
        for board in summary.boards
        if (text := _game_pgn(history, summary, board)) is not None
    ]
    return "\n".join(games)


def _time(moment: datetime | None) -> str | None:
    return utc_text(moment) if moment else None


def _board_json(board: BoardRow, games: list[GameRow]) -> dict[str, Any]:
    return {
        "board": board.board_no,
        "white": board.white_number,
        "black": board.black_number,
        "result": board.result.value if board.result else None,
        "result_kind": board.result.kind.value if board.result else None,
        "game_id": board.game_id,
        "decided_at": _time(board.decided_at),
        "game": json.loads(board.game_data) if board.game_data else None,
        "attempts": [
            {
                "attempt": g.attempt,
                "challenge": g.challenge_name,
                "lichess_id": g.lichess_id,
                "status": g.status.value,
                "created_at": _time(g.created_at),
                "updated_at": _time(g.updated_at),
            }
            for g in games
        ],
    }


async def export_json(db: Database, event_id: int) -> str:
    """Everything stored about the event: settings, entries, rounds, boards, games, byes, audit log."""
    async with db.snapshot() as conn:
        history = await load_history(conn, event_id)
        rows = await fetchall(
            conn,
            "SELECT g.* FROM games g JOIN boards b ON b.id = g.board_id WHERE b.event_id = ? ORDER BY g.id",
            (event_id,),
        )
        entries = await load_entries(conn, event_id)
    games: dict[int, list[GameRow]] = {}
    for row in rows:
        game = game_from_row(row)
        games.setdefault(game.board_id, []).append(game)
    numbers = {e.player.id: n for n, e in history.numbered.items()}
    event = history.event
    tournament = build_tournament(history)
    requested = [
        {"player_id": pid, "number": numbers.get(pid), "round": r}
        for pid, rounds in sorted(history.requested.items())
        for r in sorted(rounds)
    ]
    document: dict[str, Any] = {
        "format": "swissbot-event",
        "version": 1,
        "event": {
            "id": event.id,
            "status": event.status.value,
            "settings": settings_json(event.settings),
            "created_by": event.created_by,
            "created_at": _time(event.created_at),
            "started_at": _time(event.started_at),
            "finished_at": _time(event.finished_at),
            "next_round_at": _time(event.next_round_at),
        },
        "entries": [
            {
                **entry_json(e),
                "name": e.player.name,
                "discord_id": e.player.discord_id,
                "lichess_id": e.player.lichess_id,
                "points": _points(tournament, numbers.get(e.player.id)),
            }
            for e in entries
        ],
        "rounds": [
            {
                "number": s.round.number,
                "status": s.round.status.value,
                "paired_at": _time(s.round.paired_at),
                "started_at": _time(s.round.started_at),
                "finished_at": _time(s.round.finished_at),
                "boards": [_board_json(b, games.get(b.id, [])) for b in s.boards],
                "byes": {str(numbers.get(pid, 0)): kind.value for pid, kind in sorted(s.byes.items())},
            }
            for s in history.rounds
        ],
        "requested_byes": requested,
        "forbidden_pairs": [[numbers.get(a), numbers.get(b)] for a, b in history.forbidden],
        "audit": [
            {
                "at": _time(a.at),
                "actor": a.actor,
                "action": a.action,
                "subject": a.subject,
                "before": json.loads(a.before) if a.before else None,
                "after": json.loads(a.after) if a.after else None,
                "reason": a.reason,
            }
            for a in await audit_log(db, event_id=event_id)
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _points(tournament: Tournament, number: int | None) -> str | None:
    """A player's points in the decided rounds, as a decimal string."""
    if number is None:
        return None
    total = sum((tournament.scoring.points(r) for r in tournament.player(number).rounds), Fraction(0))
    return str(float(total))


async def export_event(db: Database, event_id: int, fmt: str) -> str:
    """The event in one of FORMATS."""
    if fmt == "trf":
        return await export_trf(db, event_id)
    if fmt == "pgn":
        return await export_pgn(db, event_id)
    if fmt == "json":
        return await export_json(db, event_id)
    raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
