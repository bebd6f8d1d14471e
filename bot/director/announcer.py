"""Where the director's announcements go: the `Announcer` protocol (Discord's and the console's implement it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.director.models import RoundView, StandingRow
from domain.event import Event


class AnnouncementFailed(Exception):
    """A post that must reach the channel (pairings, results, standings, the end, a bulletin) did not; the director
    tries it again later."""


class Announcer(Protocol):
    """What an event's channel (and its organisers) are told.

    Every channel post (`event_opened`, `round_paired`, `results_updated`, `standings`, `event_finished`,
    `bulletin`) raises `AnnouncementFailed` when it did not reach the channel: the director marks it announced (or
    its outbox row sent) only when it returns, and tries again later. A post tried again must land once (Discord's
    announcer records each post with a nonce before sending it). Only `notice` and `dm` are best-effort and never
    raise.
    """

    async def event_opened(self, event: Event) -> None:
        """The event accepts entries."""
        ...

    async def round_paired(self, event: Event, round: RoundView) -> None:
        """A round's pairings, with the game links."""
        ...

    async def results_updated(self, event: Event, round: RoundView) -> None:
        """New results in a round (the Discord one edits its round message in place)."""
        ...

    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        """The standings after a round."""
        ...

    async def event_finished(self, event: Event, rows: Sequence[StandingRow], reason: str) -> None:
        """The event is over: final standings and why it ended."""
        ...

    async def bulletin(self, event: Event, text: str) -> None:
        """A line for everyone in the event's channel (a cancellation, a disqualification), sent through the outbox."""
        ...

    async def notice(self, event: Event, text: str) -> None:
        """Something an organiser should know (Lichess trouble, a correction's consequences)."""
        ...

    async def dm(self, discord_id: int, text: str) -> None:
        """A private message to a player (optional)."""
        ...
