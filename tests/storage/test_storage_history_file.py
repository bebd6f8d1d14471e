"""An event's history read by a worker through its own read-only connection: the same as the bot's read, each
board without its game's data."""

from __future__ import annotations

import asyncio
import os
import pickle
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from domain.result import Result
from pairing.model import Board, Pairing
from storage.entries import add_forbidden_pair, request_bye
from storage.errors import DatabaseError, DatabaseLocked, NotFound
from storage.history import get_history, read_history_file
from storage.results import record_result
from storage.rounds import get_round, store_pairing
from tests.storage.storage_helpers import ACTOR, at, open_db, started


async def test_the_file_read_is_the_history_without_the_games_data(tmp_path: Path) -> None:
    db = await open_db(tmp_path)
    try:
        event_id = await started(db, 5)
        await store_pairing(db, event_id, 1, Pairing((Board(1, 4), Board(5, 2)), bye=3), at=at(6), actor="bot")
        first, _ = (await get_round(db, event_id, 1)).boards
        game = {"id": "abcd1234", "moves": "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#"}
        await record_result(db, first.id, Result.WHITE_WINS, at=at(7), actor="bot", game_id="abcd1234", game_data=game)
        history = await get_history(db, event_id)
        await request_bye(db, event_id, history.numbered[2].player.id, 2, at=at(8), actor="bot")
        await add_forbidden_pair(
            db, event_id, history.numbered[1].player.id, history.numbered[3].player.id, at=at(8), actor=ACTOR
        )
        history = await get_history(db, event_id)
        assert history.rounds[0].boards[0].game_data is not None and history.requested and history.forbidden

        read = read_history_file(db.path, event_id)

        lean = [
            replace(summary, boards=tuple(replace(b, game_data=None) for b in summary.boards))
            for summary in history.rounds
        ]
        assert read == replace(history, rounds=lean)
        assert read.rounds[0].boards[0].game_id == "abcd1234" and read.rounds[0].boards[0].result is Result.WHITE_WINS
        await record_result(db, read.rounds[0].boards[1].id, Result.DRAW, at=at(9), actor="bot")
        assert read_history_file(db.path, event_id).rounds[0].boards[1].result is Result.DRAW  # a new snapshot
        with pytest.raises(NotFound):
            read_history_file(db.path, event_id + 1)
    finally:
        await db.close()


async def test_a_file_put_in_the_database_s_place_is_read_not_the_one_before(tmp_path: Path) -> None:
    first = await open_db(tmp_path, "first.db")
    second = await open_db(tmp_path, "second.db")
    try:
        event_id = await started(first, 4)
        assert await started(second, 6) == event_id
    finally:
        await first.close()
        await second.close()
    path = str(tmp_path / "live.db")
    shutil.copy(tmp_path / "first.db", path)
    assert len(read_history_file(path, event_id).numbered) == 4
    shutil.copy(tmp_path / "second.db", tmp_path / "new.db")
    os.replace(tmp_path / "new.db", path)  # a restored backup, say
    assert len(read_history_file(path, event_id).numbered) == 6
    os.remove(path)
    with pytest.raises(DatabaseError):
        read_history_file(path, event_id)


def test_a_database_trouble_crosses_from_a_worker_process_as_its_kind() -> None:
    back = pickle.loads(pickle.dumps(DatabaseLocked()))
    assert type(back) is DatabaseLocked and str(back) == str(DatabaseLocked())


@pytest.mark.parametrize("keep", [False, True])
async def test_a_thread_that_keeps_no_connection_leaves_the_database_to_checkpoint_as_it_closes(
    tmp_path: Path, keep: bool
) -> None:
    db = await open_db(tmp_path)
    event_id = await started(db, 4)
    assert len((await asyncio.to_thread(read_history_file, db.path, event_id, keep=keep)).numbered) == 4
    await db.close()
    assert Path(db.path + "-wal").exists() is keep  # a connection kept open elsewhere: the last close does not
