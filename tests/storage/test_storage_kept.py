"""The bot's own reads make each entry and board once a process while its row stays the same (`storage.db.Kept`): an
unchanged row gives the object made before, a changed row a new one; a board with its game's data is never kept."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from domain.entry import EntryStatus
from domain.result import Result
from pairing.model import Board, Pairing
from storage.db import Database
from storage.entries import list_entries, set_entry_status
from storage.history import History, load_history
from storage.results import record_result
from storage.rounds import get_round, store_pairing
from tests.storage.storage_helpers import at, open_db, started


async def lean_history(db: Database, event_id: int) -> History:
    """The history as the jobs read it."""
    async with db.snapshot() as conn:
        return await load_history(conn, event_id, lean=True)


async def test_unchanged_rows_give_the_objects_made_before_and_changed_rows_new_ones(tmp_path: Path) -> None:
    db = await open_db(tmp_path)
    try:
        event_id = await started(db, 5)
        await store_pairing(db, event_id, 1, Pairing((Board(1, 4), Board(5, 2)), bye=3), at=at(6), actor="bot")
        before = await lean_history(db, event_id)
        first, second = before.rounds[0].boards
        game = {"id": "abcd1234", "moves": "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#"}
        await record_result(db, first.id, Result.WHITE_WINS, at=at(7), actor="bot", game_id="abcd1234", game_data=game)
        gone = before.numbered[5]
        await set_entry_status(db, event_id, gone.player_id, EntryStatus.WITHDRAWN, at=at(8), actor="bot")

        after = await lean_history(db, event_id)

        unchanged = [
            (a, b) for a, b in zip(before.entries, after.entries, strict=True) if a.player_id != gone.player_id
        ]
        assert len(unchanged) == 4 and all(a is b for a, b in unchanged)
        assert after.numbered[5] is not gone and after.numbered[5] == replace(gone, status=EntryStatus.WITHDRAWN)
        assert after.rounds[0].boards[1] is second  # not decided: the same row
        decided = after.rounds[0].boards[0]
        assert (decided.result, decided.game_id, decided.game_data) == (Result.WHITE_WINS, "abcd1234", None)
        assert [e is h for e, h in zip(await list_entries(db, event_id), after.entries, strict=True)] == [True] * 5

        stored, again = await get_round(db, event_id, 1), await get_round(db, event_id, 1)
        assert stored.boards[1] is again.boards[1]  # no game's data: kept
        assert stored.boards[0] == again.boards[0] and stored.boards[0] is not again.boards[0]  # with it: made anew
        assert stored.boards[0].game_data is not None
        async with db.snapshot() as conn:
            full = await load_history(conn, event_id)
        assert full.rounds[0].boards[0].game_data == stored.boards[0].game_data  # a full read has the game's data
        assert replace(full, rounds=after.rounds) == after
    finally:
        await db.close()
