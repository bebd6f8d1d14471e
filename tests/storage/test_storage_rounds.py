"""Pairings, results, corrections, game attempts and the history the engine reads."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from fractions import Fraction
from pathlib import Path

import pytest

from domain.entry import EntryStatus
from domain.result import GameStatus, Result
from domain.rounds import RoundStatus
from pairing.model import Board, Colour, Outcome, Pairing, RecordKind, RoundRecord, Scoring
from storage.audit import audit_log
from storage.db import Database
from storage.entries import join_event, request_bye, set_entry_status, start_event
from storage.errors import (
    ByeNotAllowed,
    ConflictingResult,
    GameInProgress,
    InvalidInput,
    InvalidPairing,
    NotFound,
    RoundIncomplete,
    RoundNotNext,
    WrongStatus,
)
from storage.events import load_event
from storage.games import (
    begin_game,
    game_by_lichess_id,
    game_created,
    game_failed,
    games_being_created,
    games_of_board,
    games_of_player,
    games_of_round,
    get_game,
    update_game,
)
from storage.history import baku_virtual_points, load_tournament
from storage.results import correct_result, record_result
from storage.rounds import (
    board_by_number,
    board_of_player,
    boards_of_player,
    finish_round,
    get_round,
    last_round,
    list_rounds,
    mark_round_started,
    next_round_number,
    store_pairing,
)
from tests.storage.storage_helpers import ACTOR, add_players, at, open_db, open_event, started


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await open_db(tmp_path)
    yield database
    await database.close()


ROUND1 = Pairing((Board(1, 3), Board(4, 2)))


async def test_store_pairing_and_read_it_back(db: Database) -> None:
    event_id = await started(db, 5)
    assert await next_round_number(db, event_id) == 1 and await last_round(db, event_id) is None
    summary = await store_pairing(db, event_id, 1, Pairing((Board(1, 4), Board(5, 2)), bye=3), at=at(10), actor="bot")
    assert summary.round.status is RoundStatus.PAIRED and summary.round.paired_at == at(10)
    assert [(b.board_no, b.white_number, b.black_number, b.result) for b in summary.boards] == [
        (1, 1, 4, None),
        (2, 5, 2, None),
    ]
    assert set(summary.byes.values()) == {RecordKind.PAB} and len(summary.byes) == 1
    top = (await board_by_number(db, event_id, 1, 1)).white_id
    assert await next_round_number(db, event_id) == 2
    assert await get_round(db, event_id, 1) == summary
    again = await store_pairing(db, event_id, 1, Pairing((Board(1, 4), Board(5, 2)), bye=3), at=at(11), actor="bot")
    assert again == summary  # a restart repeating the step stores nothing twice
    with pytest.raises(RoundNotNext, match="that is 2"):
        await store_pairing(db, event_id, 1, Pairing((Board(4, 1), Board(5, 2)), bye=3), at=at(11), actor="bot")
    with pytest.raises(RoundNotNext, match="that is 2"):
        await store_pairing(db, event_id, 0, Pairing(()), at=at(11), actor="bot")
    assert [r.round.number for r in await list_rounds(db, event_id)] == [1]
    assert await last_round(db, event_id) == summary
    board = await board_of_player(db, event_id, 1, top)
    assert board is not None and board.board_no == 1
    assert await board_of_player(db, event_id, 1, next(iter(summary.byes))) is None
    assert await boards_of_player(db, event_id, top) == [board]
    assert await boards_of_player(db, event_id, next(iter(summary.byes))) == []
    pairing_line = (await audit_log(db, event_id=event_id, action="round.pair"))[0]
    assert json.loads(pairing_line.after or "")["boards"] == [[1, 4], [5, 2]]
    started_round = await mark_round_started(db, event_id, 1, at=at(11))
    assert started_round.status is RoundStatus.PLAYING and started_round.started_at == at(11)
    assert (await mark_round_started(db, event_id, 1, at=at(12))).started_at == at(11)


async def test_pairing_refusals(db: Database) -> None:
    event, _, _ = await open_event(db, [2000, 1900, 1800, 1700])
    with pytest.raises(WrongStatus, match="not running"):
        await store_pairing(db, event.id, 1, ROUND1, at=at(6), actor="bot")
    await start_event(db, event.id, at=at(5), actor=ACTOR)
    with pytest.raises(RoundNotNext, match="that is 1"):
        await store_pairing(db, event.id, 2, ROUND1, at=at(6), actor="bot")
    with pytest.raises(InvalidPairing, match=r"leaves out \[2, 4\]"):
        await store_pairing(db, event.id, 1, Pairing((Board(1, 3),)), at=at(6), actor="bot")
    with pytest.raises(InvalidPairing, match=r"player\(s\) \[3\] more than once"):
        await store_pairing(db, event.id, 1, Pairing((Board(1, 3), Board(3, 2)), bye=4), at=at(6), actor="bot")
    with pytest.raises(InvalidPairing, match=r"places \[9\]"):
        await store_pairing(db, event.id, 1, Pairing((Board(1, 3), Board(4, 2)), bye=9), at=at(6), actor="bot")
    assert await next_round_number(db, event.id) == 1  # nothing stored by the refused attempts
    await store_pairing(db, event.id, 1, ROUND1, at=at(6), actor="bot")
    with pytest.raises(RoundIncomplete, match="round 1 still has games"):
        await store_pairing(db, event.id, 2, Pairing((Board(3, 4), Board(2, 1))), at=at(7), actor="bot")


async def test_results_are_idempotent_conflicts_are_refused_corrections_audited(db: Database) -> None:
    event_id = await started(db, 4)
    summary = await store_pairing(db, event_id, 1, ROUND1, at=at(6), actor="bot")
    board = summary.boards[0]
    data = {"id": "abcd1234", "status": "mate", "winner": "white", "moves": "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#"}
    recorded = await record_result(
        db, board.id, Result.WHITE_WINS, at=at(20), actor="bot", game_id="abcd1234", game_data=data
    )
    assert (recorded.result, recorded.game_id, recorded.decided_at) == (Result.WHITE_WINS, "abcd1234", at(20))
    assert json.loads(recorded.game_data or "") == data
    again = await record_result(db, board.id, Result.WHITE_WINS, at=at(21), actor="bot")
    assert again == recorded
    with pytest.raises(ConflictingResult, match="already has 1-0"):
        await record_result(db, board.id, Result.DRAW, at=at(22), actor="bot")
    with pytest.raises(InvalidInput, match="needs a reason"):
        await correct_result(db, board.id, Result.DRAW, at=at(23), actor=ACTOR, reason=" ")
    corrected = await correct_result(db, board.id, Result.DRAW, at=at(24), actor=ACTOR, reason="misreport")
    assert corrected.result is Result.DRAW and corrected.game_id == "abcd1234" and corrected.decided_at == at(24)
    lines = await audit_log(db, event_id=event_id)
    record_line, correct_line = [a for a in lines if a.action.startswith("result.")]
    assert record_line.action == "result.record" and correct_line.action == "result.correct"
    assert json.loads(correct_line.before or "")["result"] == "1-0"
    assert json.loads(correct_line.after or "")["result"] == "1/2-1/2"
    assert (correct_line.actor, correct_line.reason, correct_line.at) == (ACTOR, "misreport", at(24))
    with pytest.raises(InvalidInput, match="not JSON"):
        await record_result(db, summary.boards[1].id, Result.DRAW, at=at(25), actor="bot", game_data="{oops")
    with pytest.raises(NotFound):
        await record_result(db, 999, Result.DRAW, at=at(25), actor="bot")


async def test_finish_round_needs_every_result(db: Database) -> None:
    event_id = await started(db, 4)
    summary = await store_pairing(db, event_id, 1, ROUND1, at=at(6), actor="bot")
    await record_result(db, summary.boards[0].id, Result.BLACK_WINS, at=at(7), actor="bot")
    with pytest.raises(RoundIncomplete, match=r"board\(s\) \[2\]"):
        await finish_round(db, event_id, 1, at=at(8), actor="bot")
    await record_result(db, summary.boards[1].id, Result.DOUBLE_FORFEIT, at=at(9), actor="bot")
    done = await finish_round(db, event_id, 1, at=at(10), actor="bot")
    assert (done.status, done.finished_at) == (RoundStatus.FINISHED, at(10))
    assert (await finish_round(db, event_id, 1, at=at(11), actor="bot")).finished_at == at(10)
    with pytest.raises(NotFound):
        await finish_round(db, event_id, 2, at=at(11), actor="bot")


async def test_a_group_of_calls_is_one_transaction(db: Database) -> None:
    event_id = await started(db, 4)
    summary = await store_pairing(db, event_id, 1, ROUND1, at=at(6), actor="bot")
    with pytest.raises(RuntimeError):
        async with db.transaction():
            await record_result(db, summary.boards[0].id, Result.DRAW, at=at(7), actor="bot")
            await record_result(db, summary.boards[1].id, Result.DRAW, at=at(7), actor="bot")
            raise RuntimeError("the director failed before announcing")
    assert all(b.result is None for b in (await get_round(db, event_id, 1)).boards)
    assert await audit_log(db, action="result.record") == []
    async with db.transaction():
        await record_result(db, summary.boards[0].id, Result.DRAW, at=at(8), actor="bot")
        with pytest.raises(ConflictingResult):
            await record_result(db, summary.boards[0].id, Result.WHITE_WINS, at=at(8), actor="bot")
        await record_result(db, summary.boards[1].id, Result.BLACK_WINS, at=at(8), actor="bot")
    assert [b.result for b in (await get_round(db, event_id, 1)).boards] == [Result.DRAW, Result.BLACK_WINS]


async def test_game_attempts_survive_a_restart(db: Database, tmp_path: Path) -> None:
    event_id = await started(db, 4)
    board = (await store_pairing(db, event_id, 1, ROUND1, at=at(6), actor="bot")).boards[0]
    first = await begin_game(db, board.id, "swiss-1-r1-b1-a1", at=at(7))
    assert (first.attempt, first.status, first.lichess_id) == (1, GameStatus.CREATING, None)
    assert await begin_game(db, board.id, "swiss-1-r1-b1-a1", at=at(7)) == first
    with pytest.raises(GameInProgress, match="attempt 1"):
        await begin_game(db, board.id, "swiss-1-r1-b1-a2", at=at(7))
    with pytest.raises(InvalidInput, match="another board"):
        await begin_game(db, (await board_by_number(db, event_id, 1, 2)).id, "swiss-1-r1-b1-a1", at=at(7))
    # The process dies here; a new one finds the attempt still 'creating'.
    await db.close()
    reopened = await open_db(tmp_path)
    try:
        pending = await games_being_created(reopened, event_id=event_id)
        assert [g.id for g in pending] == [first.id]
        created = await game_created(reopened, first.id, "Gm000001", at=at(8))
        assert (created.status, created.lichess_id, created.updated_at) == (GameStatus.CREATED, "Gm000001", at(8))
        assert await game_created(reopened, first.id, "Gm000001", at=at(9)) == created
        with pytest.raises(ConflictingResult):
            await game_created(reopened, first.id, "Other", at=at(9))
        assert await games_being_created(reopened) == []
        aborted = await update_game(reopened, first.id, GameStatus.ABORTED, at=at(10), data={"status": "aborted"})
        assert aborted.status is GameStatus.ABORTED and json.loads(aborted.data or "") == {"status": "aborted"}
        second = await begin_game(reopened, board.id, "swiss-1-r1-b1-a2", at=at(11))
        assert second.attempt == 2
        failed = await game_failed(reopened, second.id, at=at(12))
        assert failed.status is GameStatus.FAILED
        with pytest.raises(WrongStatus):
            await update_game(reopened, second.id, GameStatus.FINISHED, at=at(12))
        third = await begin_game(reopened, board.id, "swiss-1-r1-b1-a3", at=at(13))
        await game_created(reopened, third.id, "Gm000003", at=at(14))
        with pytest.raises(ConflictingResult, match="already stored"):
            fourth_board = await board_by_number(reopened, event_id, 1, 2)
            other = await begin_game(reopened, fourth_board.id, "swiss-1-r1-b2-a1", at=at(14))
            await game_created(reopened, other.id, "Gm000003", at=at(14))
        assert [g.attempt for g in await games_of_board(reopened, board.id)] == [1, 2, 3]
        mine = await games_of_player(reopened, event_id, board.black_id)
        assert [(g.board_id, g.attempt) for g in mine] == [(board.id, 1), (board.id, 2), (board.id, 3)]  # not board 2's
        live = await games_of_round(reopened, event_id, 1, statuses=frozenset({GameStatus.CREATED}))
        assert [g.lichess_id for g in live] == ["Gm000003"]
        found = await game_by_lichess_id(reopened, "Gm000003")
        assert found is not None and found.id == third.id
        assert (await get_game(reopened, third.id)).status is GameStatus.CREATED
        await update_game(reopened, third.id, GameStatus.FINISHED, at=at(40), data={"winner": "black"})
        await record_result(reopened, board.id, Result.BLACK_WINS, at=at(40), actor="bot", game_id="Gm000003")
        with pytest.raises(WrongStatus, match="already has a result"):
            await begin_game(reopened, board.id, "swiss-1-r1-b1-a4", at=at(41))
    finally:
        await reopened.close()


async def test_load_tournament_fixes_byes_and_absences_for_the_next_round(db: Database) -> None:
    event, players, _ = await open_event(db, [2000, 1900, 1800, 1700, 1600, 1500], max_byes=1)
    await start_event(db, event.id, at=at(5), actor=ACTOR)
    await request_bye(db, event.id, players[1].id, 2, at=at(6), actor=ACTOR)
    summary = await store_pairing(
        db, event.id, 1, Pairing((Board(1, 4), Board(5, 2), Board(3, 6))), at=at(7), actor="bot"
    )
    mid = await load_tournament(db, event.id)
    assert mid.round_to_pair == 1 and all(p.rounds == () for p in mid.players)  # round 1 under way: left out
    with pytest.raises(ByeNotAllowed, match="already paired"):
        await request_bye(db, event.id, players[2].id, 1, at=at(8), actor=ACTOR)
    for board, result in zip(summary.boards, (Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS_FORFEIT), strict=True):
        await record_result(db, board.id, result, at=at(30), actor="bot")
    await set_entry_status(db, event.id, players[5].id, EntryStatus.WITHDRAWN, at=at(31), actor=ACTOR)
    t = await load_tournament(db, event.id)
    assert t.round_to_pair == 2 and t.total_rounds == 5
    assert t.player(2).rounds[1] == RoundRecord(RecordKind.HALF_BYE)
    assert t.player(6).rounds[1] == RoundRecord(RecordKind.ZERO_BYE)
    assert t.player(6).rounds[0] == RoundRecord.forfeit(3, Colour.BLACK, won=True)
    assert t.player(1).rounds[0] == RoundRecord.played(4, Colour.WHITE, Outcome.WIN)
    assert set(t.views().to_pair()) == {1, 3, 4, 5}
    with pytest.raises(InvalidPairing, match=r"places \[2, 6\]"):
        await store_pairing(db, event.id, 2, Pairing((Board(1, 2), Board(3, 6), Board(4, 5))), at=at(32), actor="bot")
    stored = await store_pairing(db, event.id, 2, Pairing((Board(3, 1), Board(4, 5))), at=at(32), actor="bot")
    numbers = {players[1].id: 2, players[5].id: 6}
    assert {numbers[pid]: kind for pid, kind in stored.byes.items()} == {2: RecordKind.HALF_BYE, 6: RecordKind.ZERO_BYE}


async def test_late_joiner_gets_next_number_and_one_half_point_bye(db: Database) -> None:
    event_id = await started(db, 4)
    summary = await store_pairing(db, event_id, 1, ROUND1, at=at(6), actor="bot")
    for board in summary.boards:
        await record_result(db, board.id, Result.DRAW, at=at(7), actor="bot")
    (late,) = await add_players(db, [2500], first_discord_id=700)
    with pytest.raises(InvalidInput, match=r"round already paired \(1..1\)"):
        await join_event(db, event_id, late.id, 2500, at=at(8), actor=ACTOR, late_bye_round=2)
    entry = await join_event(db, event_id, late.id, 2500, at=at(8), actor=ACTOR, late_bye_round=1)
    assert (entry.number, entry.joined_round, entry.late_bye_round) == (5, 2, 1)
    t = await load_tournament(db, event_id)
    assert t.player(5).rounds == (RoundRecord(RecordKind.HALF_BYE),)
    assert t.views().scoring.points(t.player(5).rounds[0]) == Fraction(1, 2)
    assert set(t.views().to_pair()) == {1, 2, 3, 4, 5}


async def test_joining_after_the_last_round_is_paired_is_refused(db: Database) -> None:
    event_id = await started(db, 4, rounds=1)
    await store_pairing(db, event_id, 1, ROUND1, at=at(6), actor="bot")
    (late,) = await add_players(db, [2500], first_discord_id=700)
    with pytest.raises(WrongStatus, match="every round"):
        await join_event(db, event_id, late.id, 2500, at=at(8), actor=ACTOR)
    with pytest.raises(RoundNotNext, match="only 1 rounds"):
        await store_pairing(db, event_id, 2, ROUND1, at=at(9), actor="bot")


def test_baku_points_follow_the_fide_table() -> None:
    s = Scoring()
    one, half = Fraction(1), Fraction(1, 2)
    assert baku_virtual_points(4, s) == (one, half)
    assert baku_virtual_points(5, s) == (one, one, half)
    assert baku_virtual_points(9, s) == (one, one, one, half, half)
    assert baku_virtual_points(15, s) == (one,) * 4 + (half,) * 4


async def test_acceleration_groups_and_late_joiners(db: Database) -> None:
    event_id = await started(db, 10, rounds=9, acceleration=True)
    t = await load_tournament(db, event_id)
    assert sorted(t.acceleration) == [1, 2, 3, 4, 5, 6]  # 2·⌈10/4⌉
    assert t.acceleration[1] == baku_virtual_points(9, Scoring())
    assert t.views().pairing_score(6) == 1 and t.views().pairing_score(7) == 0
    strong, weak = await add_players(db, [1990, 1000], first_discord_id=800)
    await join_event(db, event_id, strong.id, 1990, at=at(9), actor=ACTOR)  # above number 6 (1950)
    await join_event(db, event_id, weak.id, 1000, at=at(9), actor=ACTOR)
    t = await load_tournament(db, event_id)
    assert sorted(t.acceleration) == [1, 2, 3, 4, 5, 6, 11]


async def test_us_chess_acceleration_groups_are_the_top_half(db: Database) -> None:
    event_id = await started(db, 10, rounds=5, acceleration=True, acceleration_method="us-28r1")
    async with db.snapshot() as conn:
        event = await load_event(conn, event_id)
    assert event.settings.acceleration_method == "us-28r1"
    t = await load_tournament(db, event_id)
    assert sorted(t.acceleration) == [1, 2, 3, 4, 5]  # ⌈10/2⌉, not Baku's 6
    assert t.acceleration[1] == (Fraction(1), Fraction(1))  # a point in rounds 1 and 2


async def test_an_unknown_acceleration_is_refused_and_nothing_is_stored(db: Database) -> None:
    with pytest.raises(InvalidInput, match="unknown acceleration 'us-28r9'"):
        await started(db, 4, acceleration=True, acceleration_method="us-28r9")
