"""An event: where it stands in its life, what its status allows, and how members read its rounds."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from domain.settings import EventSettings


class EventStatus(enum.Enum):
    """Where an event is in its life."""

    DRAFT = "draft"
    OPEN = "open"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"
    CANCELLED = "cancelled"


# The statuses each status may become (`start` moves a draft or open event to running on its own path).
TRANSITIONS: dict[EventStatus, frozenset[EventStatus]] = {
    EventStatus.DRAFT: frozenset({EventStatus.OPEN, EventStatus.CANCELLED}),
    EventStatus.OPEN: frozenset({EventStatus.DRAFT, EventStatus.PAUSED, EventStatus.FINISHED, EventStatus.CANCELLED}),
    EventStatus.RUNNING: frozenset({EventStatus.PAUSED, EventStatus.FINISHED, EventStatus.CANCELLED}),
    EventStatus.PAUSED: frozenset({EventStatus.OPEN, EventStatus.RUNNING, EventStatus.FINISHED, EventStatus.CANCELLED}),
    EventStatus.FINISHED: frozenset(),
    EventStatus.CANCELLED: frozenset(),
}
EDITABLE = frozenset({EventStatus.DRAFT, EventStatus.OPEN})
JOINABLE = frozenset({EventStatus.OPEN, EventStatus.RUNNING, EventStatus.PAUSED})
STARTED = frozenset({EventStatus.RUNNING, EventStatus.PAUSED, EventStatus.FINISHED})
# Fixed once the first round is paired: changing them would change what was already paired.
PAIRING_SETTINGS = ("system", "acceleration", "acceleration_method", "initial_colour", "team_boards")


def match_of(round_number: int) -> int:
    """The two-game match a game round belongs to (rounds 2m-1 and 2m are match m)."""
    return (round_number + 1) // 2


@dataclass(frozen=True)
class Event:
    """An event: its settings and where it stands (`current_round`: the last round paired;
    `finish_announced_at`: when its end and final standings were announced)."""

    id: int
    settings: EventSettings
    status: EventStatus
    created_by: int
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    next_round_at: datetime | None = None
    current_round: int = 0
    finish_reason: str | None = None
    finish_announced_at: datetime | None = None

    @property
    def name(self) -> str:
        """The event's name."""
        return self.settings.name

    @property
    def guild_id(self) -> int:
        """The Discord server (club) the event belongs to."""
        return self.settings.guild_id

    @property
    def channel_id(self) -> int:
        """The channel its announcements go to."""
        return self.settings.channel_id

    def round_name(self, number: int) -> str:
        """How members read a round: "round 3", or with two-game matches "round 3 (match 2, game 1)"."""
        if not self.settings.pairing_system.two_game_matches:
            return f"round {number}"
        return f"round {number} (match {match_of(number)}, game {2 - number % 2})"

    def bye_name(self, number: int) -> str:
        """What a bye asked for `number` covers: "round 3", or with two-game matches "match 2 (rounds 3 and 4)"."""
        if not self.settings.pairing_system.two_game_matches:
            return f"round {number}"
        match = match_of(number)
        return f"match {match} (rounds {2 * match - 1} and {2 * match})"
