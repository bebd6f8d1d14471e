"""The gateway protocol byte by byte: zlib-stream frames, HELLO, IDENTIFY, READY, heartbeats, RESUME, close codes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import zlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from sandbox.discord import DiscordSandbox, serve
from tests.sandbox.discord.conftest import ALICE, GENERAL, GUILD, HTTP_TIMEOUT, ORGANISER_ROLE, control

WAIT = 5.0
GUILDS_INTENT = 1


class Socket:
    """A raw gateway client that inflates zlib-stream frames and checks each ends with Z_SYNC_FLUSH."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.inflater = zlib.decompressobj()

    async def receive(self) -> dict[str, Any]:
        message = await self.ws.receive(timeout=WAIT)
        assert message.type == aiohttp.WSMsgType.BINARY, message
        assert message.data.endswith(b"\x00\x00\xff\xff")
        payload: dict[str, Any] = json.loads(self.inflater.decompress(message.data))
        return payload

    async def send(self, op: int, data: Any) -> None:
        await self.ws.send_str(json.dumps({"op": op, "d": data}))

    async def closed_with(self) -> int | None:
        message = await self.ws.receive(timeout=WAIT)
        assert message.type == aiohttp.WSMsgType.CLOSE, message
        code: int = message.data
        return code


@contextlib.asynccontextmanager
async def connect(sandbox: DiscordSandbox, url: str | None = None) -> AsyncIterator[Socket]:
    async with aiohttp.ClientSession(timeout=HTTP_TIMEOUT) as http:
        target = url or sandbox.url.replace("http", "ws", 1) + "/gateway"
        async with http.ws_connect(target + "?v=10&encoding=json&compress=zlib-stream") as ws:
            yield Socket(ws)


async def identify(socket: Socket, token: str) -> dict[str, Any]:
    hello = await socket.receive()
    assert hello["op"] == 10 and hello["d"]["heartbeat_interval"] > 0
    await socket.send(2, {"token": token, "intents": GUILDS_INTENT, "properties": {"os": "linux"}})
    ready = await socket.receive()
    assert (ready["op"], ready["t"], ready["s"]) == (0, "READY", 1)
    return ready


async def test_hello_identify_ready_and_guild_create(discord_sandbox: DiscordSandbox) -> None:
    async with connect(discord_sandbox) as socket:
        ready = (await identify(socket, discord_sandbox.token))["d"]
        assert ready["user"]["id"] == str(discord_sandbox.state.bot.id) and ready["user"]["bot"] is True
        assert ready["application"]["id"] == str(discord_sandbox.application_id)
        assert ready["guilds"] == [{"id": str(GUILD), "unavailable": True}]
        assert ready["resume_gateway_url"].startswith("ws://")
        created = await socket.receive()
        assert (created["t"], created["s"]) == ("GUILD_CREATE", 2)
        guild = created["d"]
        assert guild["id"] == str(GUILD) and guild["unavailable"] is False
        assert [c["id"] for c in guild["channels"]][:1] == [str(GENERAL)]
        assert str(ORGANISER_ROLE) in [r["id"] for r in guild["roles"]]
        assert str(ALICE) in [m["user"]["id"] for m in guild["members"]]
        await socket.send(1, 2)
        assert (await socket.receive()) == {"op": 11}


async def test_a_wrong_token_is_closed_with_4004(discord_sandbox: DiscordSandbox) -> None:
    async with connect(discord_sandbox) as socket:
        await socket.receive()
        await socket.send(2, {"token": "wrong", "intents": GUILDS_INTENT, "properties": {}})
        assert await socket.closed_with() == 4004


async def test_an_unknown_opcode_is_closed_with_4001(discord_sandbox: DiscordSandbox) -> None:
    async with connect(discord_sandbox) as socket:
        await socket.receive()
        await socket.send(42, None)
        assert await socket.closed_with() == 4001


async def test_resume_replays_what_was_missed(discord_sandbox: DiscordSandbox) -> None:
    async with connect(discord_sandbox) as socket:
        ready = (await identify(socket, discord_sandbox.token))["d"]
        await socket.receive()  # GUILD_CREATE, seq 2
        status, _ = await control(discord_sandbox, "POST", "/sandbox/gateway/disconnect", {"code": 4000})
        assert status == 200
        assert await socket.closed_with() == 4000
    # a channel created while the bot was away
    guild = {"id": str(GUILD), "name": "Chess Club", "channels": [{"id": "700000000000000013", "name": "results"}]}
    await control(discord_sandbox, "POST", "/sandbox/guilds", guild)
    async with connect(discord_sandbox, ready["resume_gateway_url"]) as socket:
        await socket.receive()  # HELLO
        await socket.send(6, {"token": discord_sandbox.token, "session_id": ready["session_id"], "seq": 2})
        missed = await socket.receive()
        assert (missed["t"], missed["s"], missed["d"]["name"]) == ("CHANNEL_CREATE", 3, "results")
        resumed = await socket.receive()
        assert (resumed["t"], resumed["s"]) == ("RESUMED", 4)


async def test_resuming_an_unknown_session_is_invalid(discord_sandbox: DiscordSandbox) -> None:
    async with connect(discord_sandbox) as socket:
        await socket.receive()
        await socket.send(6, {"token": discord_sandbox.token, "session_id": "nope", "seq": 1})
        assert await socket.receive() == {"op": 9, "d": False}


async def test_a_client_closing_with_1000_ends_its_session(discord_sandbox: DiscordSandbox) -> None:
    async with connect(discord_sandbox) as socket:
        await identify(socket, discord_sandbox.token)
        await socket.ws.close(code=1000)
    async with asyncio.timeout(WAIT):
        while discord_sandbox.gateway.sessions:
            await asyncio.sleep(0.01)


async def test_serve_prints_its_url_token_and_application_id(capsys: pytest.CaptureFixture[str]) -> None:
    task = asyncio.create_task(serve("127.0.0.1", 0, seed=1, token="custom-token"))
    printed = ""
    try:
        async with asyncio.timeout(WAIT):
            while "Application id" not in printed:
                await asyncio.sleep(0.01)
                printed += capsys.readouterr().out
                if task.done():
                    task.result()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert "Local Discord at http://127.0.0.1:" in printed
    assert "Bot token: custom-token" in printed
    assert "Application id: 1100000000000000002" in printed
