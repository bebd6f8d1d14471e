"""The web tests' fixture: the bot's real web endpoint and director against the local Lichess, OAuth on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.config import WebConfig
from bot.director.api import Director
from bot.lichess.gateway import LichessGateway
from bot.token_vault import TokenVault
from bot.web.app import WebServer
from sandbox.lichess.server import Sandbox, run_sandbox
from storage.db import Database, open_database
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock
from tests.support.lichess_sandbox import gateway_kwargs


@dataclass
class Site:
    """A bot with its web endpoint public at `web.local_url`."""

    sandbox: Sandbox
    db: Database
    db_path: Path
    gateway: LichessGateway
    clock: ManualClock
    announcer: RecordingAnnouncer
    director: Director
    web: WebServer


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[Site]:
    """A fresh bot whose /link goes through the sandbox's OAuth page."""
    async with run_sandbox(seed=3) as sandbox:
        path = tmp_path / "swiss.sqlite3"
        db = await open_database(path)
        gateway = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs())
        clock = ManualClock()
        announcer = RecordingAnnouncer()
        director = Director(db, gateway, announcer, clock)
        web = WebServer(WebConfig(host="127.0.0.1", port=0, public_url="http://placeholder"), director)
        await web.start()
        director.ctx.public_url = web.local_url
        director.ctx.vault = TokenVault(TokenVault.new_key())
        try:
            yield Site(sandbox, db, path, gateway, clock, announcer, director, web)
        finally:
            await web.close()
            await gateway.close()
            await db.close()
