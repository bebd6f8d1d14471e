"""The pages' fixtures: a director world (local Lichess, SQLite, manual clock) served by the pages app on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import web

from bot.config import ClubConfig
from bot.pages.site import make_pages_app
from tests.bot.director.director_world import CHANNEL, GUILD, World, make_world

CLUBS = (ClubConfig(GUILD, "TD", CHANNEL, name="Test Chess Club", public=True), ClubConfig(7, "TD", 8, public=False))


@dataclass
class Served:
    """A world whose event pages are served at `url`."""

    world: World
    url: str


@pytest.fixture
async def served(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    """Autoplay off (tests play each game), pages refreshing every 0.3 s; the local Lichess over HTTP for a test
    marked `lichess_http`."""
    over_http = request.node.get_closest_marker("lichess_http") is not None
    async with make_world(tmp_path / "swiss.sqlite3", autoplay=False, http=over_http) as world:
        app = make_pages_app(world.director, CLUBS, refresh_seconds=0.3)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        try:
            yield Served(world, f"http://127.0.0.1:{port}")
        finally:
            await runner.cleanup()
