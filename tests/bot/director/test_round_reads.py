"""A job loads its event's state once: the SELECTs on `events` and `entries` while a round starts and is polled."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from bot.director.polling import poll_round
from bot.director.rounds import start_round
from storage.db import Database
from tests.bot.director.director_world import World

EVENT_READ = re.compile(r"^\s*SELECT\b.*\bFROM events\b", re.S | re.I)
ENTRIES_READ = re.compile(r"^\s*SELECT\b.*\bFROM entries\b", re.S | re.I)


@dataclass
class Reads:
    """The statements the connection ran; how many read the event row and the entries, in all and outside the
    write transactions (`BEGIN IMMEDIATE`: storage's own reads there guard what it writes)."""

    statements: list[str] = field(default_factory=list)

    def count(self, pattern: re.Pattern[str], *, in_writes: bool = True) -> int:
        found, writing = 0, False
        for statement in self.statements:
            head = statement.lstrip().upper()
            if head.startswith("BEGIN"):
                writing = head.startswith("BEGIN IMMEDIATE")
            elif head.startswith(("COMMIT", "ROLLBACK")) and not head.startswith("ROLLBACK TO"):
                writing = False
            elif pattern.match(statement) and (in_writes or not writing):
                found += 1
        return found

    @property
    def outside_writes(self) -> tuple[int, int]:
        """(event row reads, entries reads) outside the write transactions."""
        return self.count(EVENT_READ, in_writes=False), self.count(ENTRIES_READ, in_writes=False)

    @property
    def total(self) -> tuple[int, int]:
        """(event row reads, entries reads) in all."""
        return self.count(EVENT_READ), self.count(ENTRIES_READ)


@asynccontextmanager
async def traced(db: Database) -> AsyncIterator[Reads]:
    """Every statement run on the database's connection inside the block."""
    reads = Reads()
    await db.connection.set_trace_callback(reads.statements.append)
    try:
        yield reads
    finally:
        await db.connection.set_trace_callback(None)  # type: ignore[arg-type]  # sqlite3 takes None; the stub does not say so


async def second_round_due(w: World, players: int = 8) -> int:
    """An event whose first round is played and whose second round is due now."""
    event_id, _ = await w.event(players=players, rounds=3)
    await w.start(event_id)
    await w.play_all(event_id)
    await w.run_until(lambda: _round_finished(w, event_id))
    event = await w.director.event(event_id)
    assert event.next_round_at is not None
    w.clock.set(event.next_round_at)
    return event_id


async def _round_finished(w: World, event_id: int) -> bool:
    return (await w.director.pairings(event_id, 1)).status.value == "finished"


async def test_starting_a_round_reads_the_event_and_the_entries_once(quiet_world: World) -> None:
    w = quiet_world
    event_id = await second_round_due(w)
    async with traced(w.db) as reads:
        await start_round(w.director.ctx, event_id, 2)
    assert (await w.director.event(event_id)).current_round == 2
    assert all(b.game_id for b in (await w.director.pairings(event_id, 2)).boards)
    assert reads.outside_writes == (1, 1)  # the job loads the event's state once and passes it down
    # Storage's transaction that stores the pairing reads them again to check the state it writes on is still
    # the one paired (a member may withdraw meanwhile: the per-event lock does not stop that), and
    # `set_next_round_at` checks the event and answers its row as stored, which the job goes on with.
    assert reads.total == (4, 2)


async def test_polling_a_round_reads_the_event_and_the_entries_once(quiet_world: World) -> None:
    w = quiet_world
    event_id = await second_round_due(w)
    await start_round(w.director.ctx, event_id, 2)
    await w.play(event_id, 1, "white")
    async with traced(w.db) as reads:
        await poll_round(w.director.ctx, event_id)
    assert (await w.director.pairings(event_id, 2)).boards[0].result is not None
    assert reads.total == (1, 1)
