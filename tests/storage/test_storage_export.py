"""Exports (TRF, PGN, JSON) and the `swissbot export` command."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
from pathlib import Path

import chess
import chess.pgn
import pytest

from bot.cli import export as cli_export
from bot.cli.exit_codes import ExitCode
from domain.result import GameStatus, Result
from pairing import trf
from pairing.model import Board, Pairing, RecordKind
from storage.db import Database, open_database
from storage.entries import start_event
from storage.export import export_event, export_json, export_pgn, export_trf
from storage.games import begin_game, game_created, update_game
from storage.players import link_account
from storage.results import correct_result, record_result
from storage.rounds import store_pairing
from tests.storage.storage_helpers import ACTOR, T0, at, open_event

SCHOLAR = {
    "id": "Sch0lar1",
    "status": "mate",
    "winner": "white",
    "createdAt": int(T0.timestamp() * 1000) + 600_000,
    "clock": {"initial": 180, "increment": 2},
    "moves": "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#",
}
BROKEN = {"id": "Br0ken01", "status": "resign", "winner": "black", "moves": "d4 d5 Kxe8"}


async def build(path: Path) -> int:
    """An event of 5 players after round 1: a mate, a garbled game record, a forfeit, a PAB."""
    db = await open_database(path)
    try:
        event, _, _ = await open_event(db, [2000, 1900, 1800, 1700, 1600], rounds=3)
        await start_event(db, event.id, at=at(5), actor=ACTOR)
        pairing = Pairing((Board(1, 4), Board(5, 2)), bye=3)
        summary = await store_pairing(db, event.id, 1, pairing, at=at(10), actor="bot")
        first, second = summary.boards
        attempt = await begin_game(db, first.id, "ev1-r1-b1-a1", at=at(10))
        await game_created(db, attempt.id, "Sch0lar1", at=at(10))
        await update_game(db, attempt.id, GameStatus.FINISHED, at=at(20), data=SCHOLAR)
        await record_result(
            db, first.id, Result.WHITE_WINS, at=at(20), actor="bot", game_id="Sch0lar1", game_data=SCHOLAR
        )
        await record_result(
            db, second.id, Result.BLACK_WINS, at=at(21), actor="bot", game_id="Br0ken01", game_data=BROKEN
        )
        return event.id
    finally:
        await db.close()


async def test_trf_export_reads_back(tmp_path: Path) -> None:
    event_id = await build(tmp_path / "e.db")
    db = await open_database(tmp_path / "e.db")
    try:
        text = await export_trf(db, event_id)
    finally:
        await db.close()
    assert text.startswith("012 Club Swiss\n042 2026/03/01\n062 5\n")
    t = trf.parse(text)
    assert t.total_rounds == 3 and len(t.players) == 5
    assert t.player(3).rounds[0].kind is RecordKind.PAB
    assert t.player(1).declared_points == 1 and t.player(2).declared_points == 1 and t.player(4).declared_points == 0


async def test_pgn_export_replays_the_stored_moves(tmp_path: Path) -> None:
    event_id = await build(tmp_path / "e.db")
    db = await open_database(tmp_path / "e.db")
    try:
        text = await export_pgn(db, event_id)
    finally:
        await db.close()
    handle = io.StringIO(text)
    mate = chess.pgn.read_game(handle)
    broken = chess.pgn.read_game(handle)
    assert mate is not None and broken is not None and chess.pgn.read_game(handle) is None
    assert (mate.headers["White"], mate.headers["Black"], mate.headers["Result"]) == ("P1", "P4", "1-0")
    assert mate.headers["Round"] == "1.1" and mate.headers["Site"] == "https://lichess.org/Sch0lar1"
    assert mate.headers["Date"] == "2026.03.01" and mate.headers["TimeControl"] == "180+2"
    assert mate.end().board().is_checkmate()
    assert broken.headers["Result"] == "0-1" and len(list(broken.mainline_moves())) == 2
    assert "stop being legal" in broken.end().comment


def lichess_game(
    gid: str, white: str, black: str, status: str, moves: str, winner: str | None = None
) -> dict[str, object]:
    """A game as Lichess exports it (created 10 minutes after T0)."""
    game: dict[str, object] = {
        "id": gid,
        "status": status,
        "createdAt": int(T0.timestamp() * 1000) + 600_000,
        "players": {
            "white": {"user": {"name": white, "id": white.lower()}, "rating": 2101},
            "black": {"user": {"name": black, "id": black.lower()}, "rating": 1702},
        },
        "clock": {"initial": 300, "increment": 3},
        "moves": moves,
    }
    if winner:
        game["winner"] = winner
    return game


REPETITION = "Nf3 Nf6 Ng1 Ng8 " * 4  # 16 plies, fivefold repetition: an early draw
LONG_GAME = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O"


async def play(db: Database, board_id: int, name: str, gid: str, status: GameStatus, data: dict[str, object]) -> None:
    attempt = await begin_game(db, board_id, name, at=at(10))
    await game_created(db, attempt.id, gid, at=at(10))
    await update_game(db, attempt.id, status, at=at(20), data=data)


async def build_round(path: Path) -> int:
    """Round 1 of 10 players, one board of each kind: an early draw replayed, a black no-show, a challenge nobody
    joined, an aborted game replayed, a game whose result an organiser corrected."""
    db = await open_database(path)
    try:
        event, _, entries = await open_event(db, [2000 - 50 * n for n in range(10)], rounds=3)
        await link_account(db, entries[0].player.discord_id, "Alice_L", at=at(2), actor=ACTOR)
        await start_event(db, event.id, at=at(5), actor=ACTOR)
        pairing = Pairing((Board(1, 6), Board(7, 2), Board(3, 8), Board(9, 4), Board(5, 10)))
        b1, b2, b3, b4, b5 = (await store_pairing(db, event.id, 1, pairing, at=at(10), actor="bot")).boards
        draw = lichess_game("Early001", "Alice_L", "six", "draw", REPETITION)
        await play(db, b1.id, "b1-1", "Early001", GameStatus.REPLACED, draw)
        win = lichess_game("Again001", "Alice_L", "six", "resign", LONG_GAME, "white")
        await play(db, b1.id, "b1-2", "Again001", GameStatus.FINISHED, win)
        await record_result(db, b1.id, Result.WHITE_WINS, at=at(30), actor="bot", game_id="Again001", game_data=win)
        noshow = lichess_game("NoShow01", "seven", "two", "started", "e4")
        await play(db, b2.id, "b2-1", "NoShow01", GameStatus.FINISHED, noshow)
        await record_result(
            db, b2.id, Result.WHITE_WINS_FORFEIT, at=at(30), actor="bot", game_id="NoShow01", game_data=noshow
        )
        nobody = await begin_game(db, b3.id, "b3-1", at=at(10))
        await game_created(db, nobody.id, "Nobody01", at=at(10))
        await record_result(db, b3.id, Result.DOUBLE_FORFEIT, at=at(30), actor="bot", game_id="Nobody01")
        aborted = lichess_game("Abort001", "nine", "four", "aborted", "")
        await play(db, b4.id, "b4-1", "Abort001", GameStatus.REPLACED, aborted)
        loss = lichess_game("Again002", "nine", "four", "mate", "f3 e5 g4 Qh4#", "black")
        await play(db, b4.id, "b4-2", "Again002", GameStatus.FINISHED, loss)
        await record_result(db, b4.id, Result.BLACK_WINS, at=at(30), actor="bot", game_id="Again002", game_data=loss)
        flagged = lichess_game("Fixed001", "five", "ten", "resign", LONG_GAME, "white")
        await play(db, b5.id, "b5-1", "Fixed001", GameStatus.FINISHED, flagged)
        await record_result(db, b5.id, Result.WHITE_WINS, at=at(30), actor="bot", game_id="Fixed001", game_data=flagged)
        await correct_result(db, b5.id, Result.BLACK_WINS, at=at(40), actor=ACTOR, reason="fair play")
        return event.id
    finally:
        await db.close()


def read_all(text: str) -> list[chess.pgn.Game]:
    handle, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors, game.errors
        games.append(game)
    return games


async def test_pgn_holds_every_game_played_on_lichess_and_nothing_else(tmp_path: Path) -> None:
    event_id = await build_round(tmp_path / "e.db")
    db = await open_database(tmp_path / "e.db")
    try:
        text = await export_pgn(db, event_id, site="http://127.0.0.1:8080/")
        via_event = await export_event(db, event_id, "pgn", site="http://127.0.0.1:8080")
        trf_text = await export_trf(db, event_id)
    finally:
        await db.close()
    assert via_event == text
    games = read_all(text)
    # The no-show (one ply), the challenge nobody joined and the aborted attempt are not games.
    sites = [g.headers["Site"] for g in games]
    assert sites == [f"http://127.0.0.1:8080/{gid}" for gid in ("Early001", "Again001", "Again002", "Fixed001")]
    assert [g.headers["Round"] for g in games] == ["1.1", "1.1", "1.4", "1.5"]
    assert [g.headers["Result"] for g in games] == ["1/2-1/2", "1-0", "0-1", "0-1"]
    annulled, replayed, mate, corrected = games
    assert annulled.comment.startswith("Annulled") and "before move 30" in annulled.comment
    assert "played again" in annulled.comment
    assert annulled.end().board().is_fivefold_repetition() and annulled.headers["Termination"] == "Normal"
    assert replayed.comment == "" and replayed.headers["Termination"] == "Normal"
    assert (replayed.headers["White"], replayed.headers["Black"]) == ("Alice_L", "six")  # Lichess names
    assert (replayed.headers["WhiteElo"], replayed.headers["BlackElo"]) == ("2101", "1702")
    assert replayed.headers["Date"] == replayed.headers["UTCDate"] == "2026.03.01"
    assert replayed.headers["UTCTime"] == "18:10:00" and replayed.headers["TimeControl"] == "300+3"
    assert mate.end().board().is_checkmate() and mate.headers["Termination"] == "Normal"
    assert corrected.headers["Termination"] == "Adjudication" and "recorded 0-1" in corrected.comment
    assert "Lichess: 1-0" in corrected.comment
    # The boards decided without a game are in the TRF.
    t = trf.parse(trf_text)
    kinds = {n: t.player(n).rounds[0].kind for n in (7, 2, 3, 8)}
    win, loss = RecordKind.FORFEIT_WIN, RecordKind.FORFEIT_LOSS
    assert kinds == {7: win, 2: loss, 3: loss, 8: loss}


async def test_pgn_falls_back_to_the_event_for_what_the_game_data_lacks(tmp_path: Path) -> None:
    """Without players or clock in the stored JSON: the event's names, ratings and time control."""
    event_id = await build(tmp_path / "e.db")
    db = await open_database(tmp_path / "e.db")
    try:
        games = read_all(await export_pgn(db, event_id))
    finally:
        await db.close()
    broken = games[1]
    assert (broken.headers["White"], broken.headers["Black"]) == ("P5", "P2")
    assert (broken.headers["WhiteElo"], broken.headers["BlackElo"]) == ("1600", "1900")
    assert broken.headers["TimeControl"] == "180+2" and broken.headers["Site"] == "https://lichess.org/Br0ken01"


async def test_json_export_holds_everything(tmp_path: Path) -> None:
    event_id = await build(tmp_path / "e.db")
    db = await open_database(tmp_path / "e.db")
    try:
        doc = json.loads(await export_json(db, event_id))
    finally:
        await db.close()
    assert doc["event"]["settings"]["name"] == "Club Swiss" and doc["event"]["status"] == "running"
    assert [(e["number"], e["name"], e["points"]) for e in doc["entries"]] == [
        (1, "P1", "1.0"),
        (2, "P2", "1.0"),
        (3, "P3", "1.0"),
        (4, "P4", "0.0"),
        (5, "P5", "0.0"),
    ]
    (round1,) = doc["rounds"]
    assert round1["byes"] == {"3": "pab"}
    first = round1["boards"][0]
    assert (first["white"], first["black"], first["result"], first["result_kind"]) == (1, 4, "1-0", "played")
    assert first["game"] == SCHOLAR
    assert [(a["attempt"], a["lichess_id"], a["status"]) for a in first["attempts"]] == [(1, "Sch0lar1", "finished")]
    actions = [a["action"] for a in doc["audit"]]
    assert actions[0] == "event.create" and actions.count("result.record") == 2


async def test_the_public_json_export_is_the_full_one_without_what_only_organisers_see(tmp_path: Path) -> None:
    event_id = await build(tmp_path / "e.db")
    db = await open_database(tmp_path / "e.db")
    try:
        full = json.loads(await export_json(db, event_id))
        public = json.loads(await export_json(db, event_id, public=True))
    finally:
        await db.close()
    assert {"audit", "requested_byes", "forbidden_pairs"} <= set(full)
    assert set(full) - set(public) == {"audit", "requested_byes", "forbidden_pairs"}
    assert set(full["event"]) - set(public["event"]) == {"created_by"}
    assert set(full["event"]["settings"]) - set(public["event"]["settings"]) == {"guild_id", "channel_id"}
    for entry, shown in zip(full["entries"], public["entries"], strict=True):
        assert {k: v for k, v in entry.items() if k not in ("discord_id", "player_id")} == shown
    assert public["rounds"] == full["rounds"]


def export(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="swissbot")
    cli_export.register(parser.add_subparsers())
    args = parser.parse_args(["export", *argv])
    code = args.handler(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_writes_the_latest_event_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "e.db"
    event_id = asyncio.run(build(path))
    code, out, err = export(["--db", str(path), "--format", "trf"], capsys)
    assert (code, err) == (0, "")
    assert trf.parse(out).name == "Club Swiss"
    code, by_id, _ = export(["--db", str(path), "--event", str(event_id), "--format", "trf"], capsys)
    assert code == 0 and by_id == out
    target = tmp_path / "out.json"
    code, out, _ = export(["--db", str(path), "--format", "json", "-o", str(target)], capsys)
    assert code == 0 and out == "" and json.loads(target.read_text())["event"]["id"] == event_id
    code, out, _ = export(["--db", str(path), "--format", "pgn"], capsys)
    assert code == 0 and out.count("[Event ") == 2


def test_cli_pgn_links_to_the_lichess_given_by_site(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "e.db"
    asyncio.run(build_round(path))
    ids = ("Early001", "Again001", "Again002", "Fixed001")
    code, out, _ = export(["--db", str(path), "--format", "pgn"], capsys)
    assert code == 0 and [g.headers["Site"] for g in read_all(out)] == [f"https://lichess.org/{gid}" for gid in ids]
    code, out, _ = export(["--db", str(path), "--format", "pgn", "--site", "http://127.0.0.1:8080/"], capsys)
    sites = [g.headers["Site"] for g in read_all(out)]
    assert code == 0 and sites == [f"http://127.0.0.1:8080/{gid}" for gid in ids]


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "e.db"
    asyncio.run(build(path))
    code, out, err = export(["--db", str(path), "--event", "42", "--format", "json"], capsys)
    assert (code, out) == (ExitCode.BAD_INPUT, "") and err.strip() == "swissbot export: there is no event 42"
    code, _, err = export(["--db", str(tmp_path / "missing.db"), "--format", "trf"], capsys)
    assert code == ExitCode.NO_DATABASE and "no database file" in err and "Traceback" not in err
    assert not (tmp_path / "missing.db").exists()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite at all" * 200)
    code, _, err = export(["--db", str(junk), "--format", "trf"], capsys)
    assert code == ExitCode.NO_DATABASE and "Traceback" not in err
    empty = tmp_path / "empty.db"
    asyncio.run(_create(empty))
    code, _, err = export(["--db", str(empty), "--format", "trf"], capsys)
    assert code == ExitCode.BAD_INPUT and "no event yet" in err
    code, _, err = export(["--db", str(path), "--format", "trf", "-o", str(tmp_path / "no" / "dir.trf")], capsys)
    assert code == ExitCode.UNWRITABLE and "cannot write" in err


async def _create(path: Path) -> None:
    await (await open_database(path)).close()
