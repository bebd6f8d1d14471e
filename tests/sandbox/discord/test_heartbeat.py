"""The real discord.py client against the local Discord's heartbeats: every ACK in time, never a warning."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from sandbox.discord import DiscordSandbox
from sandbox.discord.gateway import HEARTBEAT_ACK_DELAY
from tests.sandbox.discord.conftest import running_bot
from tests.sandbox.discord.test_discord_gateway import connect, identify

INTERVAL_MS = 300  # a short heartbeat interval so a few seconds see several heartbeats


async def test_discord_py_sees_each_ack_a_round_trip_after_its_heartbeat(
    discord_sandbox: DiscordSandbox, caplog: pytest.LogCaptureFixture
) -> None:
    discord_sandbox.gateway.heartbeat_interval_ms = INTERVAL_MS
    latencies: list[float] = []
    with caplog.at_level(logging.DEBUG, logger="discord"):
        async with running_bot(discord_sandbox) as bot:
            for _ in range(10):  # about ten heartbeat intervals
                await asyncio.sleep(INTERVAL_MS / 1000)
                latencies.append(bot.latency)
    # An ACK measured against the previous heartbeat (one interval ago) is what makes discord.py warn
    # "Can't keep up" at Discord's 41.25 s interval: each must be measured against its own heartbeat.
    assert all(HEARTBEAT_ACK_DELAY * 0.5 < latency < INTERVAL_MS / 1000 * 0.6 for latency in latencies), latencies
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("discord") and r.levelno >= logging.WARNING]
    assert not [w for w in warnings if "keep up" in w or "heartbeat blocked" in w or "stopped responding" in w]


async def test_the_ack_comes_a_round_trip_after_the_heartbeat_without_holding_up_other_payloads(
    discord_sandbox: DiscordSandbox,
) -> None:
    async with connect(discord_sandbox) as socket:
        await identify(socket, discord_sandbox.token)
        assert (await socket.receive())["t"] == "GUILD_CREATE"
        sent = time.monotonic()
        await socket.send(1, 2)
        assert (await socket.receive()) == {"op": 11}
        assert time.monotonic() - sent >= HEARTBEAT_ACK_DELAY * 0.9
