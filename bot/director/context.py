"""What the use cases share: the database, Lichess (the port), the announcer, the clock, settings and locks.

This module imports no use case, so every use case can take a `Context` without an import circle.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot.clock import Clock
from bot.director.announcer import AnnouncementFailed, Announcer
from bot.director.lichess_port import LichessPort
from bot.director.tables import TablesCache
from bot.settings import DirectorSettings
from bot.token_vault import TokenVault
from bot.workers import Workers
from storage.db import Database

log = logging.getLogger(__name__)
BeforePairingHook = Callable[[int, int], Awaitable[None]]
ChangeListener = Callable[[], None]


@dataclass(frozen=True)
class Context:
    """The director's collaborators, complete at construction (`bot.assembly.build` makes it); `listeners` are
    told of every change (the scheduler, the bot's event cache), `before_pairing` lets the demo act."""

    db: Database
    lichess: LichessPort
    announcer: Announcer
    clock: Clock
    settings: DirectorSettings = field(default_factory=DirectorSettings)
    before_pairing: BeforePairingHook | None = None
    # OAuth linking and bulk pairing (bot.director.oauth, bot.director.bulk): the web endpoint's public
    # address, the key that seals members' tokens, and whether the bot's token may create bulk pairings.
    public_url: str | None = None
    vault: TokenVault | None = None
    bulk_pairing: bool = False
    # clubs with their own Lichess account (`[[clubs]] lichess_token_env`): their gateway by guild id (one per
    # token, so each token keeps its own limits), and the guilds whose own token may create bulk pairings
    club_lichess: Mapping[int, LichessPort] = field(default_factory=dict)
    club_bulk_pairing: frozenset[int] = frozenset()
    listeners: list[ChangeListener] = field(default_factory=list, repr=False)
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict, repr=False)
    _announce_after: dict[int, datetime] = field(default_factory=dict, repr=False)
    tables: TablesCache = field(default_factory=TablesCache, repr=False)  # standings and crosstables by version
    workers: Workers = field(default_factory=Workers, repr=False)  # CPU work off the loop (pairing; `bot.workers`)

    def lichess_of(self, guild_id: int) -> LichessPort:
        """The gateway of the club's own Lichess token, else the bot's."""
        return self.club_lichess.get(guild_id, self.lichess)

    def bulk_pairing_of(self, guild_id: int) -> bool:
        """Whether the club's events may create bulk pairings (with the club's own token when it has one)."""
        return guild_id in self.club_bulk_pairing if guild_id in self.club_lichess else self.bulk_pairing

    def lock(self, event_id: int) -> asyncio.Lock:
        """The event's lock: the use cases that change its rounds run one at a time."""
        return self._locks.setdefault(event_id, asyncio.Lock())

    async def announced(self, event_id: int, post: Awaitable[None]) -> bool:
        """Run an announcement that must reach the channel; False (and a pause before the event's next try) when
        the announcer says it did not, so the caller leaves it unmarked for the retry."""
        try:
            await post
        except AnnouncementFailed as exc:
            log.warning("event %s: %s; trying again later", event_id, exc)
            self._announce_after[event_id] = self.clock.now() + timedelta(seconds=self.settings.poll_interval)
            return False
        self._announce_after.pop(event_id, None)
        return True

    def announce_due(self, event_id: int, now: datetime) -> datetime:
        """When the event's pending announcements are next tried (later than now after a failure)."""
        return max(now, self._announce_after.get(event_id, now))

    def add_listener(self, listener: ChangeListener) -> None:
        """Tell `listener` of every change from now on."""
        self.listeners.append(listener)

    def changed(self) -> None:
        """Tell every listener that the events and their jobs may have changed."""
        for listener in self.listeners:
            listener()

    @property
    def default_round_interval(self) -> int:
        """Seconds between rounds when an organiser asks for the interval schedule without a length."""
        return round(self.settings.default_round_interval_minutes * 60)
