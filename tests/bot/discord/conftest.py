"""Fixtures of the Discord tests: a bot on a real director (SQLite file, Lichess sandbox, manual clock)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot.discord.discord_fakes import Env, make_env


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    """A fresh bot, director, database and sandbox."""
    async with make_env(tmp_path) as built:
        yield built
