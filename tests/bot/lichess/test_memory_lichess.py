"""The in-memory Lichess on its own: its game stream feeds the director, faults and the request log behave as the
local Lichess's over HTTP."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.director.streaming import StreamFeeder
from bot.lichess.errors import LichessBadRequest, LichessRateLimited, LichessUnavailable
from bot.lichess.memory import MemoryGameStream, MemoryLichess
from bot.lichess.payloads import Challenge
from domain.result import Result
from sandbox.lichess.state import Fault
from tests.bot.director.director_world import make_world


async def test_a_result_arrives_through_the_in_memory_stream_without_a_poll(tmp_path: Path) -> None:
    async with make_world(tmp_path / "swiss.sqlite3", autoplay=False) as world:
        event_id, _ = await world.event(players=2, rounds=1)
        await world.start(event_id)
        feeder = StreamFeeder(world.director.ctx, world.sandbox.bot_token, sync_interval=0.05)
        assert isinstance(feeder.stream, MemoryGameStream)
        await feeder.start()
        try:
            view = await world.director.pairings(event_id, 1)
            await asyncio.sleep(0.2)  # the feeder adds the round's game to the stream
            await world.play(event_id, 1, "black")  # no scheduler job runs from here

            async def recorded() -> None:
                while (await world.director.pairings(event_id, 1)).boards[0].result is None:
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(recorded(), 10)
        finally:
            await feeder.close()
        assert feeder.finished == [view.boards[0].game_id]
        assert (await world.director.pairings(event_id, 1)).boards[0].result is Result.BLACK_WINS


async def test_faults_end_as_the_gateway_ends_them_once_its_retries_are_spent() -> None:
    lichess = MemoryLichess(seed=3)
    for name in ("alice", "bob"):
        lichess.state.add_user(name)

    async def create(name: str) -> Challenge:
        return await lichess.create_game("alice", "bob", clock_limit=180, clock_increment=2, name=name, rated=True)

    lichess.state.faults.append(Fault("/api/challenge/open", 429, 1))
    with pytest.raises(LichessRateLimited):
        await create("R1 B1")
    lichess.state.faults.append(Fault("/api/challenge/open", 502, 1))
    with pytest.raises(LichessUnavailable):
        await create("R1 B1")
    assert lichess.state.games == {}
    lichess.state.faults.append(Fault("/api/challenge/open", 502, 1, after=True))
    made = await create("R1 B1")  # the reply lost, the game found
    assert list(lichess.state.games) == [made.game_id]
    lichess.state.faults.append(Fault("/api/challenge/open", 400, 1))
    with pytest.raises(LichessBadRequest, match=r"refused creating the game 'R1 B2' \(400\): Sandbox fault 400"):
        await create("R1 B2")
    logged = [(r.method, r.path, r.user, r.status) for r in lichess.state.requests]
    assert logged == [
        ("POST", "/api/challenge/open", "swissbot", 429),
        ("POST", "/api/challenge/open", "swissbot", 502),
        ("POST", "/api/challenge/open", "swissbot", 502),
        ("POST", "/api/challenge/open", "swissbot", 400),
    ]
