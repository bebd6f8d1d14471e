"""An event written out: TRF for arbiters, PGN of its games, JSON, and the standings as text and PNG."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from bot.announce import format_standings
from bot.director_models import Event, StandingRow
from bot.director_results import History, build_tournament
from pairing import trf


def event_trf(history: History) -> str:
    """The event as TRF (every decided result; starting numbers as in the event)."""
    return trf.dumps(build_tournament(history))


def _pgn_of(event: Event, round_number: int, board: int, raw: dict[str, Any]) -> str:
    game = chess.pgn.Game()
    players = raw.get("players", {})

    def name(colour: str) -> str:
        side = players.get(colour, {})
        user = side.get("user") or {}
        return str(user.get("name") or user.get("id") or side.get("userId") or "?")

    winner = raw.get("winner")
    status = raw.get("status", "")
    result = "1-0" if winner == "white" else "0-1" if winner == "black" else "1/2-1/2"
    if status in ("created", "started", "aborted"):
        result = "*"
    game.headers.update(
        {
            "Event": event.name,
            "Site": f"https://lichess.org/{raw.get('id', '')}",
            "Round": f"{round_number}.{board}",
            "White": name("white"),
            "Black": name("black"),
            "Result": result,
            "Termination": str(status),
        }
    )
    node: chess.pgn.GameNode = game
    board_state = chess.Board(raw["initialFen"]) if raw.get("initialFen") else chess.Board()
    for san in str(raw.get("moves", "")).split():
        try:
            move = board_state.parse_san(san)
        except ValueError:
            break
        board_state.push(move)
        node = node.add_variation(move)
    return str(game)


def event_pgn(event: Event, history: History, games: Sequence[tuple[int, int, str | None]]) -> str:
    """Every game that decided a board, as PGN (boards decided without a game are left out)."""
    out = []
    for round_number, board, data in games:
        if not data:
            continue
        raw = json.loads(data)
        if isinstance(raw, dict) and raw.get("id"):
            out.append(_pgn_of(event, round_number, board, raw))
    return "\n\n".join(out) + ("\n" if out else "")


def event_json(event: Event, history: History, rows: Sequence[StandingRow]) -> dict[str, Any]:
    """Everything about the event as plain JSON values."""
    return {
        "event": {"id": event.id, "name": event.name, "status": event.status.value, "rounds": event.settings.rounds},
        "players": [
            {"number": e.number, "lichess": e.lichess_id, "rating": e.rating, "status": e.status}
            for e in history.entries
        ],
        "boards": [
            {
                "round": b.round,
                "board": b.board_no,
                "white": b.white_id,
                "black": b.black_id,
                "result": b.result.value if b.result else None,
                "game": b.game_id,
            }
            for b in history.boards
        ],
        "standings": [
            {
                "rank": r.rank,
                "number": r.player.number,
                "name": r.player.name,
                "points": str(r.points),
                "tiebreaks": {k: str(v) for k, v in r.tiebreaks.items()},
            }
            for r in rows
        ],
    }


def standings_text(event: Event, rows: Sequence[StandingRow], reason: str | None = None) -> str:
    """The final standings as a text table."""
    head = [f"{event.name} — standings after round {event.current_round}"]
    if reason:
        head.append(f"({reason})")
    return "\n".join([*head, "", *format_standings(rows, event.settings.tiebreaks)]) + "\n"


def standings_png(event: Event, rows: Sequence[StandingRow], *, final: bool) -> bytes:
    """The standings as a PNG (the Discord layer's renderer)."""
    from bot.rendering.image import standings_png as render

    return render(event, rows, final=final)


def write_outputs(
    out: Path,
    event: Event,
    history: History,
    rows: Sequence[StandingRow],
    games: Sequence[tuple[int, int, str | None]],
    pgn: str | None = None,
) -> list[Path]:
    """Write tournament.trf, games.pgn, standings.txt and standings.png into `out` (`pgn`: the games already
    exported, e.g. by `storage.export.export_pgn`; else built from `games`)."""
    out.mkdir(parents=True, exist_ok=True)
    final = event.status.value == "finished"
    files = {
        "tournament.trf": event_trf(history).encode(),
        "games.pgn": (event_pgn(event, history, games) if pgn is None else pgn).encode(),
        "standings.txt": standings_text(event, rows, event.finish_reason).encode(),
        "standings.png": standings_png(event, rows, final=final),
    }
    written = []
    for name, data in files.items():
        path = out / name
        path.write_bytes(data)
        written.append(path)
    return written
