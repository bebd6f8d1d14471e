"""Fixtures of the Discord tests: a bot on a real director (SQLite file, Lichess sandbox, manual clock)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot.discord.discord_fakes import Env, make_env


@pytest.fixture
async def env(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Env]:
    """A fresh bot, director, database and local Lichess (served over HTTP for tests marked `lichess_http`)."""
    async with make_env(tmp_path, http=request.node.get_closest_marker("lichess_http") is not None) as built:
        yield built
