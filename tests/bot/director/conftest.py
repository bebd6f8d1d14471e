"""The director tests' fixtures: a world on the in-memory Lichess (over HTTP for tests marked `lichess_http`), a real
SQLite file, a manual clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.bot.director.director_world import World, make_world


def over_http(request: pytest.FixtureRequest) -> bool:
    """The test is marked `lichess_http`: its world serves the local Lichess on loopback behind the real gateway."""
    return request.node.get_closest_marker("lichess_http") is not None


@pytest.fixture
async def world(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[World]:
    """A fresh world with autoplay on (the simulated players play every game as soon as it is created)."""
    async with make_world(tmp_path / "swiss.sqlite3", http=over_http(request)) as w:
        yield w


@pytest.fixture
async def quiet_world(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[World]:
    """A fresh world with autoplay off: tests play each game themselves."""
    async with make_world(tmp_path / "swiss.sqlite3", autoplay=False, http=over_http(request)) as w:
        yield w
