"""An event built through the repository, loaded and written as TRF, equals the same event built directly."""

from __future__ import annotations

from pathlib import Path

from domain.entry import EntryStatus
from domain.result import Result
from pairing import trf
from pairing.model import (
    NOT_PAIRED,
    Board,
    Colour,
    Outcome,
    Pairing,
    Player,
    RecordKind,
    RoundRecord,
    Tournament,
    result_records,
)
from storage.entries import add_forbidden_pair, join_event, request_bye, set_entry_status, start_event
from storage.history import load_tournament
from storage.players import ensure_player
from storage.results import correct_result, record_result
from storage.rounds import finish_round, store_pairing
from tests.storage.storage_helpers import ACTOR, at, open_db, open_event

W, D, L = Outcome.WIN, Outcome.DRAW, Outcome.LOSS
RATINGS = [2000, 1900, 1800, 1700, 1600, 1500, 1400]


def expected() -> Tournament:
    """The same event written with pairing.model objects."""
    base = Tournament(
        players=(
            *(Player(number=n, name=f"P{n}", rating=r) for n, r in enumerate(RATINGS, start=1)),
            Player(number=8, name="P8", rating=2100),
        ),
        total_rounds=4,
        initial_colour=Colour.WHITE,
        forbidden=(frozenset({1, 2}),),
        name="Club Swiss",
    )
    round1 = {
        **result_records(1, 5, W),
        **result_records(6, 2, D),
        **result_records(3, 7, W, forfeit=True),
        4: RoundRecord.bye(RecordKind.PAB),
        8: RoundRecord.bye(RecordKind.HALF_BYE),  # late joiner's half-point bye
    }
    round2 = {
        **result_records(4, 1, D),  # recorded 0-1, then corrected
        **result_records(3, 8, L, double_forfeit=True),
        **result_records(5, 6, W),
        2: RoundRecord.bye(RecordKind.HALF_BYE),
        7: RoundRecord.bye(RecordKind.ZERO_BYE),
    }
    round3 = {
        **result_records(1, 3, L),
        **result_records(2, 4, W),
        **result_records(6, 8, D),
        5: RoundRecord.bye(RecordKind.PAB),
        7: RoundRecord.bye(RecordKind.ZERO_BYE),
    }
    round4 = {7: RoundRecord.bye(RecordKind.ZERO_BYE)}  # fixed before round 4 is paired
    t = base.with_round(1, round1).with_round(2, round2).with_round(3, round3).with_round(4, round4)
    assert t.player(8).rounds[0].kind is RecordKind.HALF_BYE and NOT_PAIRED not in t.player(8).rounds
    return t


async def test_repository_event_writes_the_same_trf_as_the_model(tmp_path: Path) -> None:
    db = await open_db(tmp_path)
    try:
        event, players, _ = await open_event(db, RATINGS, rounds=4, max_byes=1)
        ids = {n: p.id for n, p in enumerate(players, start=1)}
        await add_forbidden_pair(db, event.id, ids[2], ids[1], at=at(2), actor=ACTOR)
        await start_event(db, event.id, at=at(5), actor=ACTOR)

        r1 = await store_pairing(
            db, event.id, 1, Pairing((Board(1, 5), Board(6, 2), Board(3, 7)), bye=4), at=at(10), actor="bot"
        )
        for board, result in zip(r1.boards, (Result.WHITE_WINS, Result.DRAW, Result.WHITE_WINS_FORFEIT), strict=True):
            await record_result(db, board.id, result, at=at(40), actor="bot")
        await finish_round(db, event.id, 1, at=at(41), actor="bot")

        late = await ensure_player(db, 800, "P8", at=at(42))
        await join_event(db, event.id, late.id, 2100, at=at(42), actor=ACTOR, late_bye_round=1)
        await set_entry_status(db, event.id, ids[7], EntryStatus.WITHDRAWN, at=at(43), actor=ACTOR)
        await request_bye(db, event.id, ids[2], 2, at=at(44), actor=ACTOR)

        r2 = await store_pairing(
            db, event.id, 2, Pairing((Board(4, 1), Board(3, 8), Board(5, 6))), at=at(50), actor="bot"
        )
        for board, result in zip(r2.boards, (Result.BLACK_WINS, Result.DOUBLE_FORFEIT, Result.WHITE_WINS), strict=True):
            await record_result(db, board.id, result, at=at(80), actor="bot")
        await correct_result(db, r2.boards[0].id, Result.DRAW, at=at(85), actor=ACTOR, reason="players agreed a draw")

        r3 = await store_pairing(
            db, event.id, 3, Pairing((Board(1, 3), Board(2, 4), Board(6, 8)), bye=5), at=at(90), actor="bot"
        )
        for board, result in zip(r3.boards, (Result.BLACK_WINS, Result.WHITE_WINS, Result.DRAW), strict=True):
            await record_result(db, board.id, result, at=at(120), actor="bot")

        loaded = await load_tournament(db, event.id)
    finally:
        await db.close()
    want = expected()
    assert trf.dumps(loaded) == trf.dumps(want)
    assert loaded.players == want.players
    assert loaded.round_to_pair == 4 and set(loaded.views().to_pair()) == {1, 2, 3, 4, 5, 6, 8}
    # The written file reads back into the same tournament.
    assert trf.dumps(trf.parse(trf.dumps(loaded))) == trf.dumps(want)
