"""The bot stays responsive: standings computed once per change of the event, move replay off the event loop."""

from __future__ import annotations

import asyncio
import sys
import threading
import types
from dataclasses import replace
from typing import Any

import pytest

from bot.director import polling
from bot.director.outcome import Outcome, decide
from bot.director.tables import warm_start
from domain.result import Result
from domain.settings import EarlyDrawPolicy
from pairing import systems
from pairing.systems import dutch
from tests.bot.director.director_world import ORGANISER, World


async def _round_one_played(w: World) -> int:
    """A 4-player, 2-round event whose first round is played and finished; its id."""
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    w.clock.advance(30)
    await w.scheduler.run_due()
    return event_id


async def test_standings_are_computed_once_per_change_and_a_correction_shows_at_once(quiet_world: World) -> None:
    w = quiet_world
    event_id = await _round_one_played(w)
    tables = w.director.ctx.tables
    first = await w.director.standings(event_id)
    computed = tables.computed
    assert await w.director.standings(event_id) == first
    assert await w.director.crosstable(event_id) is not None
    assert tables.computed == computed  # the second read, and the crosstable, reuse the first computation
    board = (await w.director.pairings(event_id, 1)).boards[0]
    points = {row.player.number: row.points for row in first}
    await w.director.set_result(ORGANISER, event_id, 1, board.number, "0-1", "arbiter's decision")
    after = {row.player.number: row.points for row in await w.director.standings(event_id)}
    assert after[board.white.number] == points[board.white.number] - 1
    assert after[board.black.number] == points[board.black.number] + 1


async def test_replaying_a_games_moves_leaves_the_event_loop_free(
    quiet_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=2, rounds=1, early_draw_policy=EarlyDrawPolicy.REPLAY)
    await w.start(event_id)
    await w.play(event_id, 1, None, status="draw", plies=20)  # an early draw: its moves are replayed
    deciding, probed = threading.Event(), threading.Event()
    saw_the_probe: list[bool] = []

    def decide_once_the_loop_answered(*args: Any, **kwargs: Any) -> Outcome:
        deciding.set()
        # Blocks until a task on the event loop runs: on the loop itself it could never see one.
        saw_the_probe.append(probed.wait(timeout=10))
        return decide(*args, **kwargs)

    async def probe() -> None:
        while not deciding.is_set():
            await asyncio.sleep(0.001)
        probed.set()

    monkeypatch.setattr(polling, "decide", decide_once_the_loop_answered)
    prober = asyncio.create_task(probe())
    w.clock.advance(30)
    await w.scheduler.run_due()
    prober.cancel()
    assert saw_the_probe == [True]
    assert (await w.director.pairings(event_id)).boards[0].game_id is not None  # the draw was replayed


async def test_with_worker_processes_rounds_are_paired_and_standings_computed_in_another_process(
    world: World,
) -> None:
    workers = world.director.ctx.workers
    assert world.director.ctx.tables.workers is workers  # one pool for the pairing and the tables
    workers.start()
    try:
        event_id, _ = await world.event(players=7, rounds=2)
        await world.run_until(lambda: world.finished(event_id))
        rows = await world.director.standings(event_id)
    finally:
        await workers.close()
    assert workers.offloaded >= 3  # two rounds paired, the standings at least once
    assert (await world.director.event(event_id)).current_round == 2
    assert [row.rank for row in rows] == sorted(row.rank for row in rows if row.rank is not None)
    assert sum(row.points for row in rows) == 7 // 2 * 2 + 2  # three games and a bye (1 point) each round


async def test_the_standings_rows_from_a_worker_process_are_made_once_per_version_each_value_once(
    world: World,
) -> None:
    workers = world.director.ctx.workers
    workers.start()
    try:
        event_id, _ = await world.event(players=7, rounds=2)
        await world.run_until(lambda: world.finished(event_id))
        first, again = await world.director.standings(event_id, 1), await world.director.standings(event_id, 1)
        now = await world.director.standings(event_id)
        board = (await world.director.pairings(event_id, 2)).boards[0]
        won = "1-0" if board.result is Result.BLACK_WINS else "0-1"  # a result that changes the standings
        await world.director.set_result(ORGANISER, event_id, 2, board.number, won, "arbiter's decision")
        corrected = await world.director.standings(event_id)
    finally:
        await workers.close()
    assert all(row is same for row, same in zip(first, again, strict=True))  # the version's rows, not made again
    values = [value for row in now for value in (row.points, *row.tiebreaks.values())]
    assert len({id(value) for value in values}) == len(set(values))  # equal values are one `Fraction`
    assert not {id(row) for row in now} & {id(row) for row in corrected}  # a new version: its own rows
    assert corrected != now


async def test_a_system_registered_at_run_time_pairs_in_a_thread_beside_the_worker_processes(world: World) -> None:
    engine = types.ModuleType("swissbot_engine_made_at_run_time")  # no worker process can import it
    engine.pair = dutch.pair  # type: ignore[attr-defined]
    sys.modules[engine.__name__] = engine
    system = replace(
        systems.named("dutch"), name="runtime", engine_module=engine.__name__, trf_code=None, auto_from=None
    )
    workers = world.director.ctx.workers
    workers.start()
    try:
        with systems.registered(system):
            event_id, _ = await world.event(players=4, rounds=1, system="runtime")
            await world.run_until(lambda: world.finished(event_id))
            event = await world.director.event(event_id)
            boards = (await world.director.pairings(event_id, 1)).boards
    finally:
        await workers.close()
        del sys.modules[engine.__name__]
    assert (event.current_round, event.status.value, len(boards)) == (1, "finished", 2)


async def test_at_start_the_running_events_tables_are_made_so_the_first_reader_after_a_restart_does_not_wait(
    quiet_world: World,
) -> None:
    w = quiet_world
    running, _ = await w.event(players=4, rounds=2)
    await w.start(running)
    await w.play_all(running, "white")
    w.clock.advance(30)
    await w.scheduler.run_due()
    await w.event()  # open, not running: nobody reads its tie-breaks yet
    tables = w.director.ctx.tables
    tables.latest.clear()  # as after a restart
    computed = tables.computed
    assert await warm_start(w.db, w.director.tables) == 1
    assert tables.computed == computed + 1 and {key[0] for key in tables.latest} == {running}
    await w.director.standings(running)
    assert tables.computed == computed + 1  # the first reader finds them made


async def test_standings_read_inside_a_transaction_see_its_writes_and_outlive_its_rollback(quiet_world: World) -> None:
    w = quiet_world
    event_id = await _round_one_played(w)
    before = {row.player.number: row.points for row in await w.director.standings(event_id)}
    board = (await w.director.pairings(event_id, 1)).boards[0]

    class Undone(Exception):
        """Rolls the transaction back."""

    inside: dict[int, object] = {}
    with pytest.raises(Undone):
        async with w.director.ctx.db.transaction():
            await w.director.set_result(ORGANISER, event_id, 1, board.number, "0-1", "arbiter's decision")
            inside = {row.player.number: row.points for row in await w.director.standings(event_id)}
            raise Undone
    assert inside[board.white.number] == before[board.white.number] - 1  # its own write, not the file's state
    assert {row.player.number: row.points for row in await w.director.standings(event_id)} == before
