"""Fixtures for the local Discord's tests: a sandbox with one guild, and the toy bot logged into it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord.gateway import DiscordWebSocket
from discord.http import Route

from sandbox.discord import DiscordSandbox, run_discord_sandbox
from tests.sandbox.discord.toy_bot import ToyBot, point_discord_py_at

GUILD = 700000000000000001
GENERAL = 700000000000000011
ROUNDS = 700000000000000012
ORGANISER_ROLE = 700000000000000021
PLAYER_ROLE = 700000000000000022
ALICE = 800000000000000001
BOB = 800000000000000002
ORGANISER = 800000000000000003
MANAGE_GUILD = 1 << 5
START_TIMEOUT = 10.0
HTTP_TIMEOUT = aiohttp.ClientTimeout(total=20)  # no control call may hang a test


async def control(sandbox: DiscordSandbox, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """Call the control API (or any path) and decode the JSON answer."""
    async with (
        aiohttp.ClientSession(timeout=HTTP_TIMEOUT) as http,
        http.request(method, sandbox.url + path, json=body) as resp,
    ):
        text = await resp.text()
        return resp.status, (await resp.json(content_type=None)) if text else None


async def populate(sandbox: DiscordSandbox) -> None:
    """One guild with two channels, an organiser role with Manage Server, and three members."""
    guild = {
        "id": str(GUILD),
        "name": "Chess Club",
        "channels": [{"id": str(GENERAL), "name": "general"}, {"id": str(ROUNDS), "name": "rounds"}],
        "roles": [
            {"id": str(ORGANISER_ROLE), "name": "Organiser", "permissions": str(MANAGE_GUILD)},
            {"id": str(PLAYER_ROLE), "name": "Player"},
        ],
    }
    status, _ = await control(sandbox, "POST", "/sandbox/guilds", guild)
    assert status == 201
    for user_id, name, roles in (
        (ALICE, "alice", [PLAYER_ROLE]),
        (BOB, "bob", [PLAYER_ROLE]),
        (ORGANISER, "olga", [ORGANISER_ROLE]),
    ):
        body = {"guild_id": str(GUILD), "user": {"id": str(user_id), "name": name}, "roles": [str(r) for r in roles]}
        status, _ = await control(sandbox, "POST", "/sandbox/members", body)
        assert status == 201


@pytest.fixture
async def discord_sandbox(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[DiscordSandbox]:
    """A local Discord with the club guild; discord.py's class-level URLs are restored afterwards."""
    monkeypatch.setattr(Route, "BASE", Route.BASE)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", DiscordWebSocket.DEFAULT_GATEWAY)
    async with run_discord_sandbox(seed=3) as sandbox:
        point_discord_py_at(sandbox.url)
        await populate(sandbox)
        yield sandbox


@contextlib.asynccontextmanager
async def running_bot(sandbox: DiscordSandbox) -> AsyncIterator[ToyBot]:
    """Start the toy bot against the sandbox, wait until it is ready, close it afterwards."""
    bot = ToyBot(GUILD)
    task = asyncio.create_task(bot.start(sandbox.token))
    try:
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait({ready, task}, timeout=START_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            if task in done:
                task.result()  # the login or connection error
            raise AssertionError("the bot did not become ready")
        yield bot
    finally:
        await asyncio.wait_for(bot.close(), START_TIMEOUT)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, discord.DiscordException, OSError):
            await task


@pytest.fixture
async def bot(discord_sandbox: DiscordSandbox) -> AsyncIterator[ToyBot]:
    """The toy bot, logged into the sandbox and ready."""
    async with running_bot(discord_sandbox) as client:
        yield client


async def run_command(
    sandbox: DiscordSandbox, command: str, options: dict[str, Any] | None = None, *, user: int = ALICE, **extra: Any
) -> tuple[int, Any]:
    """A member runs a slash command in #general."""
    body = {
        "guild_id": str(GUILD),
        "channel_id": str(GENERAL),
        "user_id": str(user),
        "command": command,
        "options": options or {},
    } | extra
    return await control(sandbox, "POST", "/sandbox/interactions", body)
