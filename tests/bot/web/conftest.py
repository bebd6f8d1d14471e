"""The web tests' fixture: the bot's real web endpoint and director against the local Lichess, OAuth on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.assembly import Services, build
from bot.config import Config, WebConfig
from bot.director.api import Director
from bot.lichess.gateway import LichessGateway
from bot.token_vault import TokenVault
from bot.web.app import WebServer
from sandbox.lichess.server import Sandbox, run_sandbox
from storage.db import Database, open_database
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock
from tests.support.lichess_sandbox import gateway_kwargs
from tests.support.processes import free_port


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
        port = free_port()
        config = Config(
            database=path, web=WebConfig(host="127.0.0.1", port=port, public_url=f"http://127.0.0.1:{port}")
        )
        services = Services(db, gateway, announcer, TokenVault(TokenVault.new_key()))
        app = await build(config, clock, services, scheduled=False)
        assert app.web is not None
        await app.start()
        try:
            yield Site(sandbox, db, path, gateway, clock, announcer, app.director, app.web)
        finally:
            await app.close()
