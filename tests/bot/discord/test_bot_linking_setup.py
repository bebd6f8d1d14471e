"""What the assembly sets up at start for OAuth linking and bulk pairing, and what it says when it cannot."""

from __future__ import annotations

import logging
from pathlib import Path

import aiohttp
import pytest

from bot.assembly import App, build, open_services
from bot.config import Config, ConfigError, LichessConfig, Secrets, WebConfig
from bot.discord.bot import SwissBot
from bot.token_vault import TOKEN_KEY_ENV, TokenVault
from tests.bot.discord.discord_fakes import Env
from tests.support.announcer import RecordingAnnouncer

# `swissbot run`'s own gateway talks to the local Lichess over HTTP.
pytestmark = pytest.mark.lichess_http


def _config(env: Env, public_url: str | None) -> Config:
    return Config(
        database=Path(env.db.path),
        lichess=LichessConfig(base_url=env.sandbox.url),
        web=WebConfig(port=0, public_url=public_url),
    )


async def _app(env: Env, token: str, public_url: str | None) -> App:
    """The application `swissbot run` builds (its own database connection and gateway), jobs run by hand."""
    config = _config(env, public_url)
    services = await open_services(config, Secrets("discord", token), lambda db: RecordingAnnouncer())
    return await build(config, env.clock, services, scheduled=False)


async def test_with_a_key_and_an_address_oauth_and_bulk_pairing_are_on(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_KEY_ENV, TokenVault.new_key())
    app = await _app(env, env.sandbox.bot_token, "https://swiss.example.org")
    ctx = app.director.ctx
    assert ctx.vault is not None and ctx.public_url == "https://swiss.example.org"
    assert ctx.bulk_pairing and app.director.oauth_enabled
    await app.close()


async def test_without_a_key_no_token_is_stored_and_the_log_says_why(
    env: Env, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv(TOKEN_KEY_ENV, raising=False)
    app = await _app(env, env.sandbox.bot_token, "https://swiss.example.org")
    assert app.director.ctx.vault is None and not app.director.oauth_enabled
    assert not app.director.ctx.bulk_pairing
    assert f"{TOKEN_KEY_ENV} is not set" in caplog.text
    await app.close()


async def test_a_bot_token_without_challenge_bulk_turns_bulk_pairing_off(
    env: Env, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    monkeypatch.setenv(TOKEN_KEY_ENV, TokenVault.new_key())
    env.sandbox.add_user("LesserBot", title="BOT", token="lip_lesser", scopes=frozenset({"challenge:write"}))
    app = await _app(env, "lip_lesser", None)
    assert not app.director.ctx.bulk_pairing
    assert "lacks the challenge:bulk scope" in caplog.text
    await app.close()


async def test_a_key_that_is_not_a_fernet_key_stops_the_start(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_KEY_ENV, "not-a-key")
    with pytest.raises(ConfigError, match="is not a Fernet key"):
        await _app(env, env.sandbox.bot_token, None)


async def test_the_web_endpoint_starts_and_stops_with_the_bot(env: Env) -> None:
    app = await _app(env, env.sandbox.bot_token, "https://swiss.example.org")
    bot = SwissBot(_config(env, "https://swiss.example.org"), app=app, clock=env.clock)
    await bot.setup_hook()
    assert app.web is not None
    url = app.web.local_url
    async with aiohttp.ClientSession() as http, http.get(f"{url}/oauth/callback?state=nope") as reply:
        assert reply.status == 400  # the callback answers (here: a state it never issued)
    await bot.close()
    with pytest.raises(aiohttp.ClientConnectionError):
        async with aiohttp.ClientSession() as http, http.get(f"{url}/oauth/callback"):
            pass
