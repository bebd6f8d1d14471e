"""The director tests' fixture: a world on the sandbox, a real SQLite file, the real gateway, a manual clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot.director.director_world import World, make_world


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    """A fresh world with autoplay on (the simulated players play every game as soon as it is created)."""
    async with make_world(tmp_path / "swiss.sqlite3") as w:
        yield w


@pytest.fixture
async def quiet_world(tmp_path: Path) -> AsyncIterator[World]:
    """A fresh world with autoplay off: tests play each game through the sandbox's control API."""
    async with make_world(tmp_path / "swiss.sqlite3", autoplay=False) as w:
        yield w
