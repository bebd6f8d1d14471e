"""A /link is completed only by the member who asked: the forwarded-link attack through the bot's real web endpoint,
the local Lichess's OAuth page and (where the bot has Discord OAuth2 credentials) the local Discord's sign-in.

Mallory runs /link and forwards the button's URL to Victor, who has a Lichess account. Without Discord sign-in
Victor is plainly shown, before and after Lichess, that the link is Mallory's; with it the link cannot complete in
Victor's browser, nor in any browser that did not sign in to Discord as Mallory."""

from __future__ import annotations

import contextlib
import html
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from bot.assembly import Services, build
from bot.config import Config, DiscordConfig, WebConfig
from bot.director.api import Director
from bot.director.models import Actor
from bot.director.tokens import valid_tokens
from bot.lichess.gateway import LichessGateway
from bot.token_vault import TokenVault
from bot.web.app import WebServer
from sandbox.discord import DiscordSandbox, run_discord_sandbox
from sandbox.discord.oauth2 import CLIENT_SECRET
from sandbox.discord.state import User
from sandbox.lichess.server import Sandbox, run_sandbox
from storage import players as storage_players
from storage.db import open_database
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock
from tests.support.lichess_sandbox import gateway_kwargs
from tests.support.processes import free_port

MALLORY = Actor(810_000_000_000_000_066, "mallory")
VICTOR_ID = 810_000_000_000_000_077


@dataclass
class Bot:
    """The bot's director and web endpoint, the two local services, what the bot sent members."""

    director: Director
    web: WebServer
    lichess: Sandbox
    discord: DiscordSandbox | None
    announcer: RecordingAnnouncer
    vault_key: str


@contextlib.asynccontextmanager
async def running_bot(tmp_path: Path, *, signin: bool) -> AsyncIterator[Bot]:
    """The bot with its web endpoint public; `signin`: with the local Discord's OAuth2 application's credentials."""
    async with run_sandbox(seed=4) as lichess, run_discord_sandbox(seed=2) as discord_sandbox:
        for user_id, name in ((MALLORY.discord_id, "mallory"), (VICTOR_ID, "victor")):
            discord_sandbox.state.users[user_id] = User(user_id, name)
        lichess.add_user("Victor", rating=1900)
        lichess.add_user("Mallory", rating=1200)
        port = free_port()
        discord = DiscordConfig(
            api_url=discord_sandbox.url, oauth_client_id=discord_sandbox.application_id if signin else 0
        )
        config = Config(
            database=tmp_path / "swiss.sqlite3",
            discord=discord,
            web=WebConfig(host="127.0.0.1", port=port, public_url=f"http://127.0.0.1:{port}"),
        )
        db = await open_database(config.database)
        gateway = LichessGateway(lichess.url, lichess.bot_token, **gateway_kwargs())
        announcer = RecordingAnnouncer()
        secret = CLIENT_SECRET if signin else None
        key = TokenVault.new_key()
        services = Services(db, gateway, announcer, TokenVault(key), lichess.bot_token, discord_client_secret=secret)
        app = await build(config, ManualClock(), services, scheduled=False)
        assert app.web is not None
        await app.start()
        try:
            yield Bot(app.director, app.web, lichess, discord_sandbox if signin else None, announcer, key)
        finally:
            await app.close()


@pytest.fixture(params=[False, True], ids=["names-only", "discord-sign-in"])
async def bot(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Bot]:
    async with running_bot(tmp_path, signin=request.param) as running:
        yield running


@pytest.fixture
async def signing_bot(tmp_path: Path) -> AsyncIterator[Bot]:
    async with running_bot(tmp_path, signin=True) as running:
        assert running.discord is not None
        yield running


class Browser:
    """One person's browser: its own cookies, following nothing by itself."""

    def __init__(self) -> None:
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    async def get(self, url: str) -> tuple[int, str, str]:
        """Status, body and where it redirects (if it does)."""
        async with self.http.get(url, allow_redirects=False) as reply:
            return reply.status, await reply.text(), reply.headers.get("Location", "")

    async def close(self) -> None:
        await self.http.close()


def next_link(page: str) -> str:
    found = re.search(r'id="next" href="([^"]+)"', page)
    assert found is not None, page
    return html.unescape(found.group(1))


async def through_lichess(browser: Browser, lichess_url: str, lichess_user: str) -> tuple[int, str]:
    """The browser approves on Lichess's page as `lichess_user`, then follows the redirect to the bot's callback."""
    status, _, callback = await browser.get(f"{lichess_url}&sandbox_user={lichess_user}")
    assert status == 302, status
    status, page, _ = await browser.get(callback)
    return status, page


async def linked_account(bot: Bot, discord_id: int) -> str | None:
    player = await storage_players.player_by_discord(bot.director.ctx.db, discord_id)
    return player.lichess_id if player is not None else None


async def test_a_forwarded_link_is_shown_as_the_other_members_or_refused(bot: Bot) -> None:
    button = await bot.director.start_oauth_link(MALLORY)
    victor = Browser()
    try:
        status, page, _ = await victor.get(button)  # Victor opens the URL Mallory forwarded
        assert status == 200
        assert "the Discord member <strong>mallory</strong>" in page and "If someone sent you this" in page
        onward = next_link(page)
        if bot.discord is None:
            # names only: Victor is told whose link it is before Lichess, and again on the landing page
            status, landing = await through_lichess(victor, onward, "victor")
            assert status == 200 and "linked to the Discord member mallory" in landing
            assert "Not that Discord member?" in landing
            assert await linked_account(bot, MALLORY.discord_id) == "victor"
            return
        # Discord sign-in: Victor's browser signs in to Discord as Victor, which is not whom the link is for
        assert onward.startswith(f"{bot.discord.url}/oauth2/authorize?") and "scope=identify" in onward
        status, _, back = await victor.get(f"{onward}&sandbox_user={VICTOR_ID}")
        assert status == 302
        status, refused, _ = await victor.get(back)
        assert status == 403 and "nothing was linked" in refused
    finally:
        await victor.close()
    assert await linked_account(bot, MALLORY.discord_id) is None
    assert any(d == MALLORY.discord_id and "nothing was linked" in text for d, text in bot.announcer.of("dm"))
    # the link is used up: it cannot be tried again
    assert await bot.director.pending_link(button.split("state=")[1]) is None


async def test_with_discord_sign_in_a_link_signed_in_elsewhere_cannot_complete_in_another_browser(
    signing_bot: Bot,
) -> None:
    bot = signing_bot
    button = await bot.director.start_oauth_link(MALLORY)
    mallory, victor = Browser(), Browser()
    try:
        _, page, _ = await mallory.get(button)
        status, _, back = await mallory.get(f"{next_link(page)}&sandbox_user={MALLORY.discord_id}")
        assert status == 302
        status, _, lichess_url = await mallory.get(back)  # Mallory is Mallory on Discord: sent on to Lichess
        assert status == 302 and lichess_url.startswith(f"{bot.lichess.url}/oauth?")
        # ... and forwards Lichess's page to Victor, whose browser never signed in as Mallory
        status, landing = await through_lichess(victor, lichess_url, "victor")
        assert status == 400 and "nothing was linked" in landing
    finally:
        await mallory.close()
        await victor.close()
    assert await linked_account(bot, MALLORY.discord_id) is None


async def test_with_discord_sign_in_the_member_who_asked_links_their_account(signing_bot: Bot) -> None:
    bot = signing_bot
    button = await bot.director.start_oauth_link(MALLORY)
    mallory = Browser()
    try:
        _, page, _ = await mallory.get(button)
        assert "sign in with Discord" in page
        _, _, back = await mallory.get(f"{next_link(page)}&sandbox_user={MALLORY.discord_id}")
        _, _, lichess_url = await mallory.get(back)
        status, landing = await through_lichess(mallory, lichess_url, "mallory")
    finally:
        await mallory.close()
    assert status == 200 and "The Lichess account Mallory is now linked to the Discord member mallory" in landing
    assert await linked_account(bot, MALLORY.discord_id) == "mallory"


async def test_no_secret_reaches_the_log_of_a_debug_level_run(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with running_bot(tmp_path, signin=True) as bot:
        assert bot.discord is not None
        button = await bot.director.start_oauth_link(MALLORY)
        state = button.split("state=")[1]
        mallory, victor = Browser(), Browser()
        try:
            _, page, _ = await mallory.get(button)
            _, _, back = await mallory.get(f"{next_link(page)}&sandbox_user={MALLORY.discord_id}")
            codes = [back.split("code=")[1].split("&")[0]]
            _, _, lichess_url = await mallory.get(back)
            status, _, callback = await mallory.get(f"{lichess_url}&sandbox_user=mallory")
            codes.append(callback.split("code=")[1].split("&")[0])
            status, landing, _ = await mallory.get(callback)
            assert status == 200, landing
            # a refused attempt logs too: Victor signs in as himself on a fresh link
            _, page, _ = await victor.get(await bot.director.start_oauth_link(MALLORY))
            _, _, back = await victor.get(f"{next_link(page)}&sandbox_user={VICTOR_ID}")
            await victor.get(back)
        finally:
            await mallory.close()
            await victor.close()
        tokens = [*bot.lichess.state.tokens, *bot.discord.state.oauth_tokens]
        # the member's token is used for what the bot needs it for, with the logs on
        player = await storage_players.player_by_discord(bot.director.ctx.db, MALLORY.discord_id)
        assert player is not None and await valid_tokens(bot.director.ctx, [player.id])
    secrets = [bot.lichess.bot_token, CLIENT_SECRET, bot.vault_key, state, *codes, *tokens]
    assert any(t.startswith("lio_") for t in tokens)
    assert any(r.levelno == logging.DEBUG for r in caplog.records) and "linked the Lichess account" in caplog.text
    logged = caplog.text + "\n".join(str(r.args) for r in caplog.records)
    for secret in secrets:
        assert secret not in logged, f"a secret starting {secret[:6]!r} is in the log"
