"""The games-by-ids stream on the local Lichess: current state, start and finish events, /add, keep-alive, cuts."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import berserk
import pytest

from sandbox.lichess import Sandbox, run_sandbox
from tests.sandbox.lichess.helpers import call, control, personal_token

READ_TIMEOUT = 10.0  # generous: a missing line fails the test rather than hanging it


class Lines:
    """An open stream, read line by line."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.response = response

    async def raw(self) -> bytes:
        """The next line as sent (a keep-alive is a bare newline)."""
        return await asyncio.wait_for(self.response.content.readline(), READ_TIMEOUT)

    async def next(self) -> dict[str, Any]:
        """The next game line, skipping keep-alives."""
        while True:
            line = await self.raw()
            assert line, "the stream ended"
            if line.strip():
                found: dict[str, Any] = json.loads(line)
                return found


@asynccontextmanager
async def stream(sandbox: Sandbox, stream_id: str, ids: list[str], token: str | None = None) -> AsyncIterator[Lines]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{sandbox.url}/api/stream/games/{stream_id}", data=",".join(ids), headers=headers) as resp,
    ):
        assert resp.status == 200, await resp.text()
        assert resp.content_type == "application/x-ndjson"
        yield Lines(resp)


async def bulk_of(sandbox: Sandbox, *pairs: tuple[str, str], **fields: Any) -> dict[str, Any]:
    """A bulk of these pairs (personal tokens), through raw HTTP."""
    players = []
    for white, black in pairs:
        players.append(f"{await personal_token(sandbox, white)}:{await personal_token(sandbox, black)}")
    form = {"players": ",".join(players), "clock.limit": "300", "clock.increment": "0"} | {
        k: str(v) for k, v in fields.items()
    }
    status, bulk = await call(sandbox, "POST", "/api/bulk-pairing", token=sandbox.bot_token, data=form)
    assert status == 200, bulk
    await control(sandbox, "GET", "/sandbox/games")  # a request: the sandbox ticks, due bulks pair
    found: dict[str, Any] = bulk
    return found


async def play(sandbox: Sandbox, gid: str, ending: dict[str, Any]) -> None:
    await control(sandbox, "POST", f"/sandbox/games/{gid}/play", ending)


async def test_current_state_then_finish_events(sandbox: Sandbox) -> None:
    bulk = await bulk_of(sandbox, ("alice", "bob"), ("carol", "dave"))
    first, second = (g["id"] for g in bulk["games"])
    async with stream(sandbox, "round-1", [first, second, "notagame"]) as lines:
        started = [await lines.next(), await lines.next()]
        assert [(s["id"], s["status"], s["statusName"]) for s in started] == [
            (first, 20, "started"),
            (second, 20, "started"),
        ]
        white, black = {"userId": "alice", "rating": 1850}, {"userId": "bob", "rating": 1720}
        assert started[0]["players"] == {"white": white, "black": black}
        await play(sandbox, second, {"status": "resign", "winner": "black", "plies": 20})
        finished = await lines.next()
        assert (finished["id"], finished["status"], finished["statusName"], finished["winner"]) == (
            second,
            31,
            "resign",
            "black",
        )
        assert "moves" not in finished and "lastMoveAt" not in finished
        await play(sandbox, first, {"status": "draw", "plies": 70})
        finished = await lines.next()
        assert (finished["id"], finished["statusName"]) == (first, "draw") and "winner" not in finished


async def test_a_start_event_when_a_watched_id_becomes_a_game(sandbox: Sandbox) -> None:
    pair_at = round((sandbox.state.now() + 60) * 1000)
    bulk = await bulk_of(sandbox, ("alice", "bob"), pairAt=pair_at)
    gid = bulk["games"][0]["id"]
    async with stream(sandbox, "later", [gid]) as lines:
        await control(sandbox, "POST", "/sandbox/clock", {"advance": 61})
        event = await lines.next()
        assert (event["id"], event["statusName"]) == (gid, "started")
        path = f"/api/bulk-pairing/{bulk['id']}/start-clocks"
        assert (await call(sandbox, "POST", path, token=sandbox.bot_token))[0] == 200
        # white never moved: white's clock runs out
        await control(sandbox, "POST", "/sandbox/clock", {"advance": 301})
        event = await lines.next()
        assert (event["id"], event["status"], event["statusName"], event["winner"]) == (gid, 35, "outoftime", "black")


async def test_add_watches_more_ids_and_sends_existing_games_at_once(sandbox: Sandbox) -> None:
    bulk = await bulk_of(sandbox, ("alice", "bob"), ("carol", "dave"))
    first, second = (g["id"] for g in bulk["games"])
    await play(sandbox, second, {"status": "mate", "winner": "white", "plies": 30})
    async with stream(sandbox, "grow", [first]) as lines:
        assert (await lines.next())["id"] == first
        status, reply = await call(sandbox, "POST", "/api/stream/games/grow/add", data=second)
        assert (status, reply) == (200, {"ok": True})
        added = await lines.next()
        assert (added["id"], added["statusName"], added["winner"]) == (second, "mate", "white")
        opened = await control(sandbox, "GET", "/sandbox/streams")
        assert opened == [{"id": "grow", "watching": [first]}]  # a finished game is no longer watched
    status, reply = await call(sandbox, "POST", "/api/stream/games/nobody-listens/add", data=first)
    assert (status, reply) == (200, {"ok": True})


async def test_keep_alive_newlines() -> None:
    async with run_sandbox(seed=3, stream_keepalive=0.05) as sandbox, stream(sandbox, "quiet", ["abcdefgh"]) as lines:
        assert await lines.raw() == b"\n"
        assert await lines.raw() == b"\n"


async def test_too_many_ids(sandbox: Sandbox) -> None:
    ids = ",".join(f"id{i:06d}" for i in range(501))
    status, reply = await call(sandbox, "POST", "/api/stream/games/big", data=ids)
    assert (status, reply) == (400, {"error": "Too many ids: 501, expected up to 500"})
    status, reply = await call(sandbox, "POST", "/api/stream/games/big/add", data=ids)
    assert status == 400
    ids = ",".join(f"id{i:06d}" for i in range(1001))
    status, reply = await call(sandbox, "POST", "/api/stream/games/big", data=ids, token=sandbox.bot_token)
    assert (status, reply) == (400, {"error": "Too many ids: 1001, expected up to 1000"})


async def test_a_fault_cuts_the_stream_and_a_reconnection_sees_the_current_state(sandbox: Sandbox) -> None:
    bulk = await bulk_of(sandbox, ("alice", "bob"), ("carol", "dave"))
    first, second = (g["id"] for g in bulk["games"])
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/stream/games/", "cut": 1})
    async with stream(sandbox, "flaky", [first, second]) as lines:
        assert (await lines.next())["id"] == first
        with pytest.raises(aiohttp.ClientPayloadError):
            await lines.raw()  # the body ends without its last chunk: a lost connection, not a clean end
    await play(sandbox, first, {"status": "resign", "winner": "white", "plies": 40})
    async with stream(sandbox, "flaky", [first, second]) as lines:
        again = {line["id"]: line["statusName"] for line in [await lines.next(), await lines.next()]}
        assert again == {first: "resign", second: "started"}


async def test_an_error_fault_refuses_the_stream(sandbox: Sandbox) -> None:
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/stream/games/", "status": 429})
    status, reply = await call(sandbox, "POST", "/api/stream/games/s", data="abcdefgh")
    assert (status, reply) == (429, {"error": "Too many requests. Try again later."})


async def test_the_control_api_cuts_an_open_stream(sandbox: Sandbox) -> None:
    bulk = await bulk_of(sandbox, ("alice", "bob"))
    gid = bulk["games"][0]["id"]
    async with stream(sandbox, "to-cut", [gid]) as lines:
        assert (await lines.next())["id"] == gid
        assert await control(sandbox, "POST", "/sandbox/streams/to-cut/cut") == {"cut": 1}
        with pytest.raises(aiohttp.ClientPayloadError):
            await lines.raw()
    assert await control(sandbox, "GET", "/sandbox/streams") == []


async def test_berserk_reads_the_stream(sandbox: Sandbox) -> None:
    bulk = await bulk_of(sandbox, ("alice", "bob"), ("carol", "dave"))
    first, second = (g["id"] for g in bulk["games"])
    client = berserk.Client(session=berserk.TokenSession(sandbox.bot_token), base_url=sandbox.url)
    received: list[dict[str, Any]] = []
    got_two = threading.Event()

    def read() -> None:
        for game in client.games.stream_games_by_ids(first, second, stream_id="berserk"):
            received.append(game)
            if len(received) == 3:
                return
            if len(received) == 2:
                got_two.set()

    reader = asyncio.create_task(asyncio.to_thread(read))
    assert await asyncio.to_thread(got_two.wait, READ_TIMEOUT)
    await asyncio.to_thread(client.games.add_game_ids_to_stream, first, stream_id="berserk")
    await play(sandbox, first, {"status": "resign", "winner": "black", "plies": 22})
    await asyncio.wait_for(reader, READ_TIMEOUT)
    expected = [(first, "started"), (second, "started"), (first, "resign")]
    assert [(g["id"], g["statusName"]) for g in received] == expected
    assert received[0]["createdAt"].year >= 2020  # berserk turned createdAt into a datetime


async def test_a_stream_the_client_closed_is_forgotten(sandbox: Sandbox) -> None:
    async with stream(sandbox, "leaving", ["abcdefgh"]):
        assert await control(sandbox, "GET", "/sandbox/streams") == [{"id": "leaving", "watching": ["abcdefgh"]}]
    for _ in range(50):  # the server notices within about a second
        if await control(sandbox, "GET", "/sandbox/streams") == []:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the closed stream is still open on the server")


async def test_a_cut_at_zero_lines_drops_the_stream_at_once(sandbox: Sandbox) -> None:
    bulk = await bulk_of(sandbox, ("alice", "bob"))
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/stream/games/", "cut": 0})
    async with stream(sandbox, "zero", [bulk["games"][0]["id"]]) as lines:
        with pytest.raises(aiohttp.ClientPayloadError):
            await lines.raw()
