"""Readers while a writer commits, and a writer killed with SIGKILL in the middle of a transaction."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path

import pytest

from domain.result import Result
from pairing.model import Board, Pairing
from storage.db import Database, open_database
from storage.entries import start_event
from storage.history import load_tournament
from storage.results import record_result
from storage.rounds import get_round, list_rounds, next_round_number, store_pairing
from tests.storage.storage_helpers import ACTOR, at, open_db, open_event
from tests.support.paths import ROOT as REPO


def circle_pairing(players: int, round_number: int) -> Pairing:
    """Round-robin circle pairing for an even number of players (storage does not check rematches)."""
    others = list(range(2, players + 1))
    shift = (round_number - 1) % len(others)
    ring = [1, *others[shift:], *others[:shift]]
    half = players // 2
    boards = [Board(ring[i], ring[players - 1 - i]) for i in range(half)]
    return Pairing(tuple(boards))


async def running_event(path: Path, players: int, rounds: int) -> int:
    db = await open_database(path)
    try:
        event, _, _ = await open_event(db, [2400 - i for i in range(players)], rounds=rounds)
        await start_event(db, event.id, at=at(5), actor=ACTOR)
        return event.id
    finally:
        await db.close()


async def test_readers_see_whole_rounds_while_a_writer_commits(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    players, rounds = 40, 6
    event_id = await running_event(path, players, rounds)
    writer = await open_database(path)
    readers = [await open_database(path) for _ in range(2)]
    done = asyncio.Event()
    seen: list[tuple[int, int]] = []

    async def write() -> None:
        try:
            for r in range(1, rounds + 1):
                summary = await store_pairing(
                    writer, event_id, r, circle_pairing(players, r), at=at(10 * r), actor="bot"
                )
                await asyncio.sleep(0.005)
                async with writer.transaction():
                    for board in summary.boards:
                        await record_result(writer, board.id, Result.WHITE_WINS, at=at(10 * r + 5), actor="bot")
                await asyncio.sleep(0.005)
        finally:
            done.set()

    async def read(db: Database) -> None:
        while not done.is_set():
            summaries = await list_rounds(db, event_id)
            for s in summaries:
                assert len(s.boards) == players // 2, "a round is visible without all its boards"
                decided = {b.result is not None for b in s.boards}
                assert len(decided) == 1, "a round's results are visible half-committed"
            t = await load_tournament(db, event_id)
            assert all(len(p.rounds) == t.rounds_completed for p in t.players)
            seen.append((len(summaries), t.rounds_completed))
            await asyncio.sleep(0)

    try:
        await asyncio.gather(write(), *(read(db) for db in readers))
    finally:
        for db in (writer, *readers):
            await db.close()
    assert len(seen) > rounds  # the readers really ran during the writes
    assert len({s for s in seen}) > 2  # and saw the history grow
    final = await open_database(path)
    try:
        assert (await load_tournament(final, event_id)).rounds_completed == rounds
    finally:
        await final.close()


CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from datetime import datetime, timezone
    from pairing.model import Board, Pairing
    from storage.db import open_database
    from storage.rounds import store_pairing

    async def main(path, event_id, players, mode):
        db = await open_database(path)
        pairing = Pairing(tuple(Board(2 * i + 1, 2 * i + 2) for i in range(players // 2)))
        now = datetime(2026, 3, 1, 19, 0, tzinfo=timezone.utc)
        if mode == "hold":
            async with db.transaction():
                await store_pairing(db, event_id, 1, pairing, at=now, actor="bot")
                print("inside", flush=True)
                await asyncio.sleep(60)
        else:
            print("starting", flush=True)
            await store_pairing(db, event_id, 1, pairing, at=now, actor="bot")
            print("committed", flush=True)
            await asyncio.sleep(60)

    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
    """
)


def start_child(path: Path, event_id: int, players: int, mode: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(event_id), str(players), mode],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def kill(child: subprocess.Popen[str]) -> None:
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL


async def state_after_crash(path: Path, event_id: int) -> tuple[int, int, int, int]:
    """(rounds, boards, byes, pairing audit lines) after checking the file's integrity."""
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        counts = tuple(
            conn.execute(sql, (event_id,)).fetchone()[0]
            for sql in (
                "SELECT COUNT(*) FROM rounds WHERE event_id = ?",
                "SELECT COUNT(*) FROM boards WHERE event_id = ?",
                "SELECT COUNT(*) FROM round_byes WHERE event_id = ?",
                "SELECT COUNT(*) FROM audit_log WHERE event_id = ? AND action = 'round.pair'",
            )
        )
    return counts


async def test_a_writer_killed_inside_its_transaction_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "killed.db"
    players = 300
    event_id = await running_event(path, players, 5)
    child = start_child(path, event_id, players, "hold")
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "inside"  # every row written, not committed
    kill(child)
    assert await state_after_crash(path, event_id) == (0, 0, 0, 0)
    db = await open_db(tmp_path, "killed.db")
    try:
        assert await next_round_number(db, event_id) == 1
        stored = await store_pairing(
            db,
            event_id,
            1,
            Pairing(tuple(Board(2 * i + 1, 2 * i + 2) for i in range(players // 2))),
            at=at(9),
            actor="bot",
        )
        assert len(stored.boards) == players // 2
    finally:
        await db.close()


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.002, 0.005, 0.01, 0.02, 0.05, 0.2])
async def test_a_writer_killed_at_any_moment_leaves_all_or_nothing(tmp_path: Path, delay: float) -> None:
    path = tmp_path / "racing.db"
    players = 400
    event_id = await running_event(path, players, 5)
    child = start_child(path, event_id, players, "commit")
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "starting"
    await asyncio.sleep(delay)
    kill(child)
    state = await state_after_crash(path, event_id)
    assert state in ((0, 0, 0, 0), (1, players // 2, 0, 1)), state
    db = await open_db(tmp_path, "racing.db")
    try:
        if state[0]:
            assert len((await get_round(db, event_id, 1)).boards) == players // 2
        assert (await load_tournament(db, event_id)).round_to_pair == 1  # round 1 is stored but undecided, or absent
    finally:
        await db.close()
