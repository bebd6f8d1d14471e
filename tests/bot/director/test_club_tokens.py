"""A club that brings its own Lichess account: its events' games are its account's, and its token keeps its own
limits and pause; the other clubs go on with the bot's token."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.assembly import OwnLichess, Services, build, open_services
from bot.config import Config, Secrets
from bot.lichess.gateway import LichessGateway
from bot.settings import DirectorSettings
from bot.token_vault import TOKEN_KEY_ENV
from sandbox.lichess.server import run_sandbox
from storage.db import open_database
from tests.bot.director.director_world import CHANNEL, GUILD, ORGANISER, World
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock
from tests.support.lichess_sandbox import gateway_kwargs

OTHER_GUILD = 3000
CLUB_TOKEN = "lip_clubaccounttoken"


@pytest.fixture
async def two_clubs(tmp_path: Path) -> AsyncIterator[World]:
    """The bot's token for GUILD; OTHER_GUILD brings its own account, ClubBot."""
    clock = ManualClock()
    async with run_sandbox(seed=11, autoplay=False, clock=lambda: clock.now().timestamp()) as sandbox:
        sandbox.add_user("ClubBot", title="BOT", token=CLUB_TOKEN)
        db = await open_database(tmp_path / "swiss.sqlite3")
        gateway = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs())
        own = LichessGateway(sandbox.url, CLUB_TOKEN, **gateway_kwargs())
        announcer = RecordingAnnouncer()
        services = Services(db, gateway, announcer, club_lichess={OTHER_GUILD: OwnLichess(own, CLUB_TOKEN)})
        config = Config(database=tmp_path / "swiss.sqlite3", director=DirectorSettings(poll_interval=20.0))
        app = await build(config, clock, services, scheduled=False)
        try:
            yield World(sandbox, db, gateway, clock, announcer, app.director, app.scheduler)
        finally:
            await services.close()


async def test_each_club_pairs_with_its_own_account(two_clubs: World) -> None:
    world = two_clubs
    bots_event, _ = await world.event(players=4)
    base = await world.director.event(bots_event)
    clubs_event = (await world.director.create_event(ORGANISER, OTHER_GUILD, CHANNEL + 1, replace(base.settings))).id
    await world.director.open_event(ORGANISER, clubs_event)
    for i in range(4):
        await world.director.join(await world.member(f"member{i}", rating=1900 - 10 * i), clubs_event)
    await world.start(bots_event)
    await world.start(clubs_event)

    creators = {}
    for event_id in (bots_event, clubs_event):
        view = await world.director.pairings(event_id, 1)
        creators[event_id] = {world.sandbox.state.games[b.game_id].creator for b in view.boards if b.game_id}
    assert creators == {bots_event: {"swissbot"}, clubs_event: {"clubbot"}}
    club_requests = [r for r in world.sandbox.state.requests if r.user == "clubbot"]
    assert {r.path for r in club_requests} >= {"/api/users", "/api/challenge/open"}
    assert world.director.ctx.lichess_of(GUILD) is world.gateway
    assert world.director.ctx.lichess_of(OTHER_GUILD).bulk_ledger is not world.gateway.bulk_ledger


async def test_clubs_naming_the_same_token_share_one_gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_KEY_ENV, raising=False)
    config = Config(database=tmp_path / "swiss.sqlite3")
    secrets = Secrets("discord", "lip_bot", club_tokens={1: "lip_club", 2: "lip_club", 3: "lip_bot"})
    services = await open_services(config, secrets, lambda db: RecordingAnnouncer())
    try:
        assert set(services.club_lichess) == {1, 2}  # the bot's own token is no club's own account
        assert services.club_lichess[1].gateway is services.club_lichess[2].gateway
        assert services.club_lichess[1].gateway is not services.lichess
    finally:
        await services.close()
