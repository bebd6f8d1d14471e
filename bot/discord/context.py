"""What the cogs and components use of the running bot, as a protocol, so they need not import the bot's module."""

from __future__ import annotations

from typing import Protocol

from bot.config import Config
from bot.director.api import Director
from bot.discord.autocomplete import EventCache


class BotContext(Protocol):
    """The club configuration, the director and the event-name cache (`SwissBot` provides them)."""

    config: Config
    events: EventCache

    @property
    def director(self) -> Director:
        """The director of the club's events."""
        ...
