"""The game stream against the local Lichess: finished games reported, ids added, reconnection after a cut."""

from __future__ import annotations

import asyncio

import aiohttp

from bot.lichess.gateway import LichessGateway
from bot.lichess.stream import GameStream
from domain.settings import DEFAULT_RULES
from sandbox.lichess import Sandbox


async def control(sandbox: Sandbox, path: str, body: object) -> object:
    async with aiohttp.ClientSession() as http, http.post(sandbox.url + path, json=body) as reply:
        assert reply.status < 300, await reply.text()
        return await reply.json()


async def new_game(gateway: LichessGateway, white: str, black: str, name: str) -> str:
    challenge = await gateway.create_game(
        white, black, clock_limit=300, clock_increment=3, name=name, rated=False, rules=DEFAULT_RULES
    )
    return challenge.game_id


class Finished:
    """Collects what the stream reports."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.arrived = asyncio.Event()

    async def __call__(self, game_id: str) -> None:
        self.ids.append(game_id)
        self.arrived.set()

    async def next(self) -> str:
        await asyncio.wait_for(self.arrived.wait(), 10)
        self.arrived.clear()
        return self.ids[-1]


async def test_the_stream_reports_each_finished_game_once_and_takes_new_ids(
    sandbox: Sandbox, gateway: LichessGateway
) -> None:
    first = await new_game(gateway, "alice", "bob", "S R1 B1")
    done = Finished()
    stream = GameStream(sandbox.url, sandbox.bot_token, done, pause=gateway.pause, backoff=0.05)
    await stream.watch([first])
    await stream.start()
    try:
        await asyncio.wait_for(stream.connected.wait(), 10)
        await control(sandbox, f"/sandbox/games/{first}/play", {"winner": "white", "status": "resign", "plies": 40})
        assert await done.next() == first
        second = await new_game(gateway, "carol", "dave", "S R1 B2")
        await stream.watch([second])  # sent to /add on the open stream
        await control(sandbox, f"/sandbox/games/{second}/play", {"winner": None, "status": "draw", "plies": 70})
        assert await done.next() == second
        assert done.ids == [first, second] and stream.connections == 1
        assert stream.watching == {}
    finally:
        await stream.close()


async def test_the_stream_reconnects_after_a_cut_and_misses_nothing(sandbox: Sandbox, gateway: LichessGateway) -> None:
    game = await new_game(gateway, "alice", "bob", "S R2 B1")
    done = Finished()
    stream = GameStream(sandbox.url, sandbox.bot_token, done, pause=gateway.pause, backoff=0.05)
    await stream.watch([game])
    await stream.start()
    try:
        await asyncio.wait_for(stream.connected.wait(), 10)
        await control(sandbox, f"/sandbox/streams/{stream.stream_id}/cut", {})
        # the game ends while the stream is down: the new connection gets its state at once
        await control(sandbox, f"/sandbox/games/{game}/play", {"winner": "black", "status": "mate", "plies": 20})
        assert await done.next() == game
        assert stream.connections >= 2
    finally:
        await stream.close()


async def test_a_refused_stream_is_retried_with_backoff(sandbox: Sandbox, gateway: LichessGateway) -> None:
    await control(sandbox, "/sandbox/faults", {"path": "/api/stream/games/", "status": 429, "count": 2})
    done = Finished()
    stream = GameStream(sandbox.url, sandbox.bot_token, done, pause=gateway.pause, backoff=0.05)
    await stream.start()
    try:
        await asyncio.wait_for(stream.connected.wait(), 10)
        assert stream.connections == 1
        refused = [r.status for r in sandbox.state.requests if r.path.startswith("/api/stream/games/")]
        assert refused == [429, 429]  # the open stream is logged once it ends
    finally:
        await stream.close()


async def test_a_429_on_the_stream_pauses_every_call_of_the_token(sandbox: Sandbox, gateway: LichessGateway) -> None:
    """The README's promise: after a 429 nothing goes to Lichess for the pause, the stream's reconnection included."""
    await control(sandbox, "/sandbox/faults", {"path": "/api/stream/games/", "status": 429, "count": 1})
    done = Finished()
    stream = GameStream(sandbox.url, sandbox.bot_token, done, pause=gateway.pause, backoff=0.01)
    await stream.start()
    try:
        while not [r for r in sandbox.state.requests if r.status == 429]:
            await asyncio.sleep(0.01)
        me = await gateway.whoami()  # asked during the pause: it waits
        await asyncio.wait_for(stream.connected.wait(), 10)
    finally:
        await stream.close()
    limited = next(r for r in sandbox.state.requests if r.status == 429)
    after = [r for r in sandbox.state.requests if r.started > limited.at]
    assert me.id == "swissbot" and gateway.pause.limited_count == 1
    assert {r.path for r in after} >= {"/api/account"}
    assert all(r.started - limited.at >= gateway.pause.base * 0.95 for r in after)
