"""What the use cases share: the database, the Lichess gateway, the announcer, the clock, settings and locks.

This module imports no use case, so every use case can take a `Context` without an import circle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.clock import Clock
from bot.director.announcer import Announcer
from bot.lichess.gateway import LichessGateway
from bot.settings import DirectorSettings
from bot.token_vault import TokenVault
from storage.db import Database

BeforePairingHook = Callable[[int, int], Awaitable[None]]


@dataclass
class Context:
    """The director's collaborators; `on_change` tells the scheduler, `before_pairing` lets the demo act."""

    db: Database
    lichess: LichessGateway
    announcer: Announcer
    clock: Clock
    settings: DirectorSettings = field(default_factory=DirectorSettings)
    on_change: Callable[[], None] | None = None
    before_pairing: BeforePairingHook | None = None
    # OAuth linking and bulk pairing (bot.director.oauth, bot.director.bulk): the web endpoint's public
    # address, the key that seals members' tokens, and whether the bot's token may create bulk pairings.
    public_url: str | None = None
    vault: TokenVault | None = None
    bulk_pairing: bool = False
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict, repr=False)

    def lock(self, event_id: int) -> asyncio.Lock:
        """The event's lock: the use cases that change its rounds run one at a time."""
        return self._locks.setdefault(event_id, asyncio.Lock())

    def changed(self) -> None:
        """Tell the scheduler (`on_change`) that the jobs may have changed."""
        if self.on_change is not None:
            self.on_change()

    @property
    def default_round_interval(self) -> int:
        """Seconds between rounds when an organiser asks for the interval schedule without a length."""
        return round(self.settings.default_round_interval_minutes * 60)
