"""What the bot sets up at start for OAuth linking and bulk pairing, and what it says when it cannot."""

from __future__ import annotations

import logging
from pathlib import Path

import aiohttp
import pytest

from bot.config import Config, ConfigError, Secrets, WebConfig
from bot.discord.bot import SwissBot
from bot.token_vault import TOKEN_KEY_ENV, TokenVault
from tests.bot.discord.discord_fakes import Env


def _bot(env: Env, token: str, public_url: str | None) -> SwissBot:
    config = Config(database=Path(env.db.path), web=WebConfig(port=0, public_url=public_url))
    return SwissBot(config, Secrets("discord", token), director=env.director, clock=env.clock)


async def test_with_a_key_and_an_address_oauth_and_bulk_pairing_are_on(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_KEY_ENV, TokenVault.new_key())
    await _bot(env, env.sandbox.bot_token, "https://swiss.example.org").setup_linking(env.director)
    ctx = env.director.ctx
    assert ctx.vault is not None and ctx.public_url == "https://swiss.example.org"
    assert ctx.bulk_pairing and env.director.oauth_enabled


async def test_without_a_key_no_token_is_stored_and_the_log_says_why(
    env: Env, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv(TOKEN_KEY_ENV, raising=False)
    await _bot(env, env.sandbox.bot_token, "https://swiss.example.org").setup_linking(env.director)
    assert env.director.ctx.vault is None and not env.director.oauth_enabled
    assert f"{TOKEN_KEY_ENV} is not set" in caplog.text


async def test_a_bot_token_without_challenge_bulk_turns_bulk_pairing_off(
    env: Env, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    monkeypatch.setenv(TOKEN_KEY_ENV, TokenVault.new_key())
    env.sandbox.add_user("LesserBot", title="BOT", token="lip_lesser", scopes=frozenset({"challenge:write"}))
    await _bot(env, "lip_lesser", None).setup_linking(env.director)
    assert not env.director.ctx.bulk_pairing
    assert "lacks the challenge:bulk scope" in caplog.text


async def test_a_key_that_is_not_a_fernet_key_stops_the_start(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_KEY_ENV, "not-a-key")
    with pytest.raises(ConfigError, match="is not a Fernet key"):
        await _bot(env, env.sandbox.bot_token, None).setup_linking(env.director)


async def test_the_web_endpoint_starts_and_stops_with_the_bot(env: Env) -> None:
    bot = _bot(env, env.sandbox.bot_token, "https://swiss.example.org")
    await bot.setup_hook()
    assert bot.web is not None
    url = bot.web.local_url
    async with aiohttp.ClientSession() as http, http.get(f"{url}/oauth/callback?state=nope") as reply:
        assert reply.status == 400  # the callback answers (here: a state it never issued)
    await bot.close()
    assert bot.web is None
    with pytest.raises(aiohttp.ClientConnectionError):
        async with aiohttp.ClientSession() as http, http.get(f"{url}/oauth/callback"):
            pass
