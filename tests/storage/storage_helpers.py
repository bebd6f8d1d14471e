"""Shared builders for the storage tests (real SQLite files under pytest's tmp_path)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from domain.entry import Entry, PlayerRow
from domain.event import Event, EventStatus
from domain.settings import EventSettings
from storage.db import Database, open_database
from storage.entries import join_event, start_event
from storage.events import create_event
from storage.players import ensure_player

T0 = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
ORGANISER = 9000
ACTOR = f"discord:{ORGANISER}"


def at(minutes: float) -> datetime:
    """A moment `minutes` after T0."""
    return T0 + timedelta(minutes=minutes)


def settings(**changes: Any) -> EventSettings:
    """Plain test settings: 5 rounds of 3+2, manual schedule."""
    base = EventSettings(
        name="Club Swiss", guild_id=1, channel_id=2, rounds=5, clock_limit=180, clock_increment=2, round_interval=None
    )
    return replace(base, **changes)


async def open_db(tmp_path: Path, name: str = "swiss.db") -> Database:
    """A fresh database file."""
    return await open_database(tmp_path / name)


async def add_players(db: Database, ratings: list[int], *, first_discord_id: int = 100) -> list[PlayerRow]:
    """Players named P1, P2, ... with linked Lichess-like names."""
    players = []
    for index, _ in enumerate(ratings, start=1):
        players.append(await ensure_player(db, first_discord_id + index, f"P{index}", at=T0))
    return players


async def open_event(db: Database, ratings: list[int], **changes: Any) -> tuple[Event, list[PlayerRow], list[Entry]]:
    """An open event with one entry per rating (players P1.. in that order)."""
    event = await create_event(db, settings(**changes), created_by=ORGANISER, at=T0, status=EventStatus.OPEN)
    players = await add_players(db, ratings)
    entries = [
        await join_event(db, event.id, p.id, rating, at=at(1), actor=f"discord:{p.discord_id}")
        for p, rating in zip(players, ratings, strict=True)
    ]
    return event, players, entries


async def started(db: Database, count: int, **changes: Any) -> int:
    """A running event with `count` players numbered 1..count (ratings descending)."""
    event, _, _ = await open_event(db, [2000 - 10 * i for i in range(count)], **changes)
    await start_event(db, event.id, at=at(5), actor=ACTOR)
    return event.id
