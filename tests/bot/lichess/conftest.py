"""Fixtures for the Lichess tests: a sandbox on loopback, and a gateway pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from bot.lichess.gateway import LichessGateway
from sandbox.lichess import Sandbox
from tests.support.lichess_sandbox import gateway_kwargs, sandbox_fixture

sandbox = sandbox_fixture(seed=7, users={"Alice": 1850, "Bob": 1720, "Carol": 1600, "Dave": 1500})


@pytest_asyncio.fixture
async def gateway(sandbox: Sandbox) -> AsyncIterator[LichessGateway]:
    """A gateway with the bot's token, short pauses and timeouts."""
    gw = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs())
    yield gw
    await gw.close()
