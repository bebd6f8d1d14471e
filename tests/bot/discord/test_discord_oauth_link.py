"""/link through Lichess's OAuth page when the bot has a public web address and a token key."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot.discord.discord_fakes import Env, make_env, member


@pytest.fixture
async def oauth_env(tmp_path: Path) -> AsyncIterator[Env]:
    """A bot with a public address and a token key: /link goes through Lichess's OAuth page."""
    async with make_env(tmp_path, oauth=True) as built:
        yield built


def _states(env: Env) -> list[tuple[int]]:
    with sqlite3.connect(env.db.path) as conn:
        return conn.execute("SELECT discord_id FROM oauth_states").fetchall()


async def test_link_without_a_username_answers_privately_with_lichess_s_page(oauth_env: Env) -> None:
    env = oauth_env
    alice = member("alice#1")
    reply = await env.run("link", alice)
    (answer,) = reply.answers
    assert answer.ephemeral and "Sign in on Lichess" in (answer.content or "")
    assert _states(env) == [(alice.id,)]


async def test_link_with_a_username_still_uses_the_bio_code(oauth_env: Env) -> None:
    env = oauth_env
    env.sandbox.add_user("Alice", rating=1800)
    reply = await env.run("link", member("alice#1"), username="Alice")
    (answer,) = reply.answers
    assert "Put this code in your Lichess profile bio" in (answer.content or "")
    assert _states(env) == []


async def test_without_oauth_link_finishes_the_bio_code_as_before(env: Env) -> None:
    reply = await env.run("link", member("alice#1"))
    assert "Sign in on Lichess" not in str(reply.calls)
    assert _states(env) == []
