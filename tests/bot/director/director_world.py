"""Helpers for director tests: the local Lichess (in memory, or over HTTP on loopback), a real SQLite file, a manual
clock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp

from bot.assembly import App, Services, build
from bot.clock import Clock
from bot.config import Config
from bot.director.announcer import Announcer
from bot.director.api import Director
from bot.director.lichess_port import LichessPort
from bot.director.models import Actor
from bot.lichess.gateway import LichessGateway
from bot.lichess.memory import MemoryLichess
from bot.scheduling import Scheduler
from bot.settings import DirectorSettings
from domain.settings import EventSettings
from sandbox.lichess.control import play_to
from sandbox.lichess.games import Color
from sandbox.lichess.server import Sandbox, run_sandbox
from sandbox.lichess.state import BOT_TOKEN, SandboxState, User
from storage.db import Database, open_database
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock

ORGANISER = Actor(1, "org", True)
GUILD = 1000
CHANNEL = 2000


@dataclass(frozen=True)
class InMemorySandbox:
    """The local Lichess of an in-memory world: its state, no server (`url` is only the game links' address)."""

    url: str
    state: SandboxState
    bot_token: str = BOT_TOKEN

    def add_user(self, username: str, **kwargs: object) -> User:
        """Create an account directly."""
        return self.state.add_user(username, **kwargs)  # type: ignore[arg-type]


@dataclass
class World:
    """Everything a scenario needs."""

    sandbox: Sandbox | InMemorySandbox
    db: Database
    gateway: LichessPort
    clock: ManualClock
    announcer: RecordingAnnouncer
    director: Director
    scheduler: Scheduler

    async def with_announcer(self, announcer: Announcer) -> None:
        """From now on the world's bot posts through `announcer` (another process on the same database and Lichess)."""
        app = await another_process(self, self.clock, announcer)
        self.director, self.scheduler = app.director, app.scheduler

    async def member(self, name: str, rating: int = 1500, discord_id: int | None = None, **extra: Any) -> Actor:
        """A Discord member with a Lichess account, linked through the bio code."""
        actor = Actor(discord_id or 10_000 + len(self.sandbox.state.users), name)
        self.sandbox.add_user(name, rating=rating, **extra)
        challenge = await self.director.start_link(actor, name)
        self.sandbox.state.users[name.lower()].bio = f"chess fan {challenge.code}"
        await self.director.complete_link(actor)
        return actor

    async def event(self, players: int = 0, **settings: Any) -> tuple[int, list[Actor]]:
        """An open event with `players` members joined (ratings descending)."""
        base = EventSettings(
            name="Club Swiss",
            rounds=settings.pop("rounds", 3),
            clock_limit=180,
            clock_increment=2,
            start_at=self.clock.now() + timedelta(minutes=5),
            round_interval=120,
            no_show_seconds=300,
        )
        schedule = settings.pop("schedule", None)
        wanted = replace(base, **settings)
        if schedule is not None:
            wanted = wanted.with_schedule(schedule)
        event = await self.director.create_event(ORGANISER, GUILD, CHANNEL, wanted)
        await self.director.open_event(ORGANISER, event.id)
        actors = []
        for i in range(players):
            actor = await self.member(f"player{i + 1:02d}", rating=2000 - 10 * i)
            await self.director.join(actor, event.id)
            actors.append(actor)
        return event.id, actors

    async def run_until(self, done: Callable[[], Any], *, step: float = 30.0, limit: int = 400) -> None:
        """Advance the clock by `step` seconds and run the due jobs until `done()` is true (awaitable or not)."""
        for _ in range(limit):
            await self.scheduler.run_due()
            result = done()
            if hasattr(result, "__await__"):
                result = await result
            if result:
                return
            self.clock.advance(step)
        raise AssertionError("the event did not get there in time")

    async def control(self, path: str, body: dict[str, Any]) -> Any:
        """POST to the sandbox's control API (a world over HTTP only)."""
        assert isinstance(self.sandbox, Sandbox), "the control API needs make_world(..., http=True)"
        async with aiohttp.ClientSession() as http, http.post(f"{self.sandbox.url}{path}", json=body) as reply:
            assert reply.status < 300, await reply.text()
            return await reply.json()

    async def play(self, event_id: int, board: int, winner: Color | None, status: str = "", plies: int = 60) -> None:
        """Both players of a board of the current round play its game to this end."""
        view = await self.director.pairings(event_id)
        game_id = next(b.game_id for b in view.boards if b.number == board)
        assert game_id is not None
        game = self.sandbox.state.games[game_id]
        play_to(self.sandbox.state, game, winner=winner, status=status or ("resign" if winner else "draw"), plies=plies)

    async def play_all(self, event_id: int, winner: Color | None = "white") -> None:
        """Every undecided board of the current round ends the same way."""
        view = await self.director.pairings(event_id)
        for board in view.boards:
            if board.result is None and board.game_id and not self.sandbox.state.games[board.game_id].finished:
                await self.play(event_id, board.number, winner)

    async def start(self, event_id: int) -> None:
        """Let the clock reach the event's start and run the jobs (round 1 paired, games created)."""
        event = await self.director.event(event_id)
        assert event.settings.start_at is not None
        self.clock.set(event.settings.start_at)
        await self.scheduler.run_due()

    async def next_round(self, event_id: int) -> int:
        """Advance past the round interval and run the jobs; the current round number."""
        self.clock.advance(3 * 60)
        await self.scheduler.run_due()
        return (await self.director.event(event_id)).current_round

    async def finished(self, event_id: int) -> bool:
        """True once the event is over."""
        return (await self.director.event(event_id)).status.value == "finished"


async def another_process(world: World, clock: Clock, announcer: Announcer | None = None) -> App:
    """Another bot process on the world's database and Lichess, with its own clock and announcer (its jobs run by
    hand; never closed: the world closes the database and the gateway)."""
    config = Config(database=Path(world.db.path), director=world.director.settings)
    services = Services(world.db, world.gateway, announcer or RecordingAnnouncer())
    return await build(config, clock, services, scheduled=False)


@asynccontextmanager
async def make_world(
    path: Path, *, seed: int = 7, autoplay: bool = True, lichess_on_clock: bool = False, http: bool = False
) -> AsyncIterator[World]:
    """A world on a fresh local Lichess and database file (`lichess_on_clock`: Lichess's time is the manual clock's;
    `http`: the sandbox served on loopback and the real gateway, else the in-memory Lichess)."""
    clock = ManualClock()
    lichess_clock = (lambda: clock.now().timestamp()) if lichess_on_clock else None
    db = await open_database(path)
    try:
        if http:
            async with run_sandbox(seed=seed, autoplay=autoplay, clock=lichess_clock) as sandbox:
                gateway = LichessGateway(
                    sandbox.url, sandbox.bot_token, rate_limit_pause=0.05, retry_backoff=0.01, timeout=5.0
                )
                try:
                    yield await _world(sandbox, db, gateway, clock, path)
                finally:
                    await gateway.close()
        else:
            memory = MemoryLichess(seed=seed, autoplay=autoplay, clock=lichess_clock)
            try:
                yield await _world(InMemorySandbox(memory.base_url, memory.state), db, memory, clock, path)
            finally:
                await memory.close()
    finally:
        await db.close()


async def _world(
    sandbox: Sandbox | InMemorySandbox, db: Database, lichess: LichessPort, clock: ManualClock, path: Path
) -> World:
    announcer = RecordingAnnouncer()
    settings = DirectorSettings(poll_interval=20.0, reminder_before=60.0)
    app = await build(
        Config(database=path, director=settings), clock, Services(db, lichess, announcer), scheduled=False
    )
    return World(sandbox, db, lichess, clock, announcer, app.director, app.scheduler)
