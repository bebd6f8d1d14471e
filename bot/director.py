"""The tournament director: every use case of an event, combining pairing, storage and Lichess.

`Director` is the one entry point: it holds what the use cases share (the database, the Lichess gateway, the
announcer, the clock, the settings, one lock per event and the scheduler's `on_change`) and hands each call
to the module that holds the use case, where its docstring is:

- `director_members`: linking a Lichess account, joining, withdrawing, byes;
- `director_organiser`: creating, editing and running an event, corrections, sanctions, export;
- `director_rounds`: a round's start (pair, store, create the games, announce);
- `director_polling`: a round in play (read the games back, adjudicate, no-shows and bans);
- `director_endings`: the end of a round and of an event, announced once;
- `director_jobs`: the jobs the database implies, running one, the reminder;
- `director_views`: the queries; `director_storage`: the storage reads they all share.

Nothing here knows Discord, and nothing here runs SQL: every read and write goes through `storage`'s
repository functions (several of them in one `db.transaction()` when they belong together). Each
scheduler-driven use case re-reads the database and does only what is still missing, so a restart at any
moment (or a job run twice) changes nothing that was already done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from bot import (
    director_endings,
    director_jobs,
    director_members,
    director_organiser,
    director_polling,
    director_rounds,
    director_views,
)
from bot.announce import Announcer
from bot.clock import Clock
from bot.director_models import (
    Actor,
    Correction,
    Crosstable,
    Job,
    LinkChallenge,
    LinkedAccount,
    MyGame,
    RoundView,
    StandingRow,
)
from bot.director_storage import get_event
from bot.lichess import LichessGateway
from bot.settings import DirectorSettings
from storage.db import Database
from storage.records import Entry, Event, EventSettings, EventStatus

BeforePairingHook = Callable[[int, int], Awaitable[None]]


class Director:
    """The use cases of events; the Discord cogs, the scheduler and the demo all call these.

    Each use case runs the function of the same name in the module its section names (`event` is
    `director_storage.get_event`).
    """

    def __init__(
        self,
        db: Database,
        lichess: LichessGateway,
        announcer: Announcer,
        clock: Clock,
        settings: DirectorSettings | None = None,
    ) -> None:
        self.db = db
        self.lichess = lichess
        self.announcer = announcer
        self.clock = clock
        self.settings = settings or DirectorSettings()
        self.on_change: Callable[[], None] | None = None
        self.before_pairing: BeforePairingHook | None = None
        self._locks: dict[int, asyncio.Lock] = {}

    # -- shared by the use cases -------------------------------------------------------------------

    def lock(self, event_id: int) -> asyncio.Lock:
        """The event's lock: the use cases that change its rounds run one at a time."""
        return self._locks.setdefault(event_id, asyncio.Lock())

    def changed(self) -> None:
        """Tell the scheduler (`on_change`) that the jobs may have changed."""
        if self.on_change is not None:
            self.on_change()

    # -- members (bot.director_members) ----------------------------------------------------------

    async def start_link(self, actor: Actor, lichess_username: str) -> LinkChallenge:
        return await director_members.start_link(self, actor, lichess_username)

    async def complete_link(self, actor: Actor) -> LinkedAccount:
        return await director_members.complete_link(self, actor)

    async def linked_account(self, discord_id: int) -> LinkedAccount | None:
        return await director_members.linked_account(self, discord_id)

    async def join(self, actor: Actor, event_id: int) -> Entry:
        return await director_members.join(self, actor, event_id)

    async def withdraw(self, actor: Actor, event_id: int) -> Entry:
        return await director_members.withdraw(self, actor, event_id)

    async def request_bye(self, actor: Actor, event_id: int, round_number: int | None = None) -> int:
        return await director_members.request_bye(self, actor, event_id, round_number)

    # -- queries (bot.director_views) -----------------------------------------------------------

    async def list_events(self, guild_id: int, statuses: Sequence[EventStatus] | None = None) -> list[Event]:
        return await director_views.list_events(self, guild_id, statuses)

    async def event(self, event_id: int) -> Event:
        return await get_event(self.db, event_id)

    async def entries(self, event_id: int) -> list[Entry]:
        return await director_views.entries(self, event_id)

    async def standings(self, event_id: int) -> list[StandingRow]:
        return await director_views.standings(self, event_id)

    async def pairings(self, event_id: int, round_number: int | None = None) -> RoundView:
        return await director_views.pairings(self, event_id, round_number)

    async def my_game(self, actor: Actor, event_id: int | None = None) -> MyGame | None:
        return await director_views.my_game(self, actor, event_id)

    async def crosstable(self, event_id: int) -> Crosstable:
        return await director_views.crosstable(self, event_id)

    # -- organisers (bot.director_organiser) ------------------------------------------------------

    @property
    def default_round_interval(self) -> int:
        """Seconds between rounds when an organiser asks for the interval schedule without a length."""
        return round(self.settings.default_round_interval_minutes * 60)

    def new_event_settings(self, name: str, rounds: int) -> EventSettings:
        return director_organiser.new_event_settings(self, name, rounds)

    async def create_event(self, actor: Actor, guild_id: int, channel_id: int, settings: EventSettings) -> Event:
        return await director_organiser.create_event(self, actor, guild_id, channel_id, settings)

    async def edit_event(self, actor: Actor, event_id: int, settings: EventSettings) -> Event:
        return await director_organiser.edit_event(self, actor, event_id, settings)

    async def open_event(self, actor: Actor, event_id: int) -> Event:
        return await director_organiser.open_event(self, actor, event_id)

    async def start_event(self, actor: Actor, event_id: int) -> Event:
        return await director_organiser.start_event(self, actor, event_id)

    async def pause(self, actor: Actor, event_id: int) -> Event:
        return await director_organiser.pause(self, actor, event_id)

    async def resume(self, actor: Actor, event_id: int) -> Event:
        return await director_organiser.resume(self, actor, event_id)

    async def next_round(self, actor: Actor, event_id: int) -> RoundView:
        return await director_organiser.next_round(self, actor, event_id)

    async def set_result(
        self, actor: Actor, event_id: int, round_number: int, board: int, result: str, reason: str
    ) -> Correction:
        return await director_organiser.set_result(self, actor, event_id, round_number, board, result, reason)

    async def forbid(self, actor: Actor, event_id: int, a: str, b: str) -> None:
        await director_organiser.forbid(self, actor, event_id, a, b)

    async def remove(self, actor: Actor, event_id: int, player: str) -> Entry:
        return await director_organiser.remove(self, actor, event_id, player)

    async def disqualify(self, actor: Actor, event_id: int, player: str, reason: str) -> Entry:
        return await director_organiser.disqualify(self, actor, event_id, player, reason)

    async def unban(self, actor: Actor, guild_id: int, player: str) -> None:
        await director_organiser.unban(self, actor, guild_id, player)

    async def finish(self, actor: Actor, event_id: int) -> Event:
        return await director_organiser.finish(self, actor, event_id)

    async def cancel(self, actor: Actor, event_id: int) -> Event:
        return await director_organiser.cancel(self, actor, event_id)

    async def export(self, event_id: int, fmt: str) -> bytes:
        return await director_organiser.export(self, event_id, fmt)

    # -- the round cycle, driven by the scheduler (bot.director_rounds, _polling, _endings, _jobs) -----

    async def start_round(self, event_id: int, round_number: int) -> None:
        await director_rounds.start_round(self, event_id, round_number)

    async def poll_round(self, event_id: int) -> None:
        await director_polling.poll_round(self, event_id)

    async def noshow_deadline(self, event_id: int, round_number: int) -> None:
        await director_polling.noshow_deadline(self, event_id, round_number)

    async def announce_results(self, event_id: int, number: int) -> None:
        await director_endings.announce_results(self, event_id, number)

    async def announce_end(self, event_id: int) -> None:
        await director_endings.announce_end(self, event_id)

    async def remind(self, event_id: int, round_number: int) -> None:
        await director_jobs.remind(self, event_id, round_number)

    async def due_jobs(self, now: datetime | None = None) -> list[Job]:
        return await director_jobs.due_jobs(self, now)

    async def run_job(self, job: Job) -> None:
        await director_jobs.run_job(self, job)


__all__ = ["Director"]
