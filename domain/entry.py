"""A player in an event: the entry, its status, starting order, and the late-join rules."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from domain.event import STARTED, Event, match_of
from domain.fide import FideProfile
from pairing import acceleration
from pairing.model import RecordKind


class EntryStatus(enum.Enum):
    """A player's standing in one event."""

    ACTIVE = "active"
    WITHDRAWN = "withdrawn"
    ABSENT = "absent"
    BANNED = "banned"
    DISQUALIFIED = "disqualified"


BARRED = frozenset({EntryStatus.BANNED, EntryStatus.DISQUALIFIED})  # may not rejoin the event
# A status by its stored value: a dict look-up, cheaper than the enum's call for the thousands of rows a read makes.
STATUS_OF_VALUE = {status.value: status for status in EntryStatus}


@dataclass(frozen=True)
class PlayerRow:
    """A Discord user known to the bot, with the Lichess account linked to it (if any)."""

    id: int
    discord_id: int
    display_name: str
    lichess_id: str | None
    lichess_name: str | None
    linked_at: datetime | None
    created_at: datetime
    fide: FideProfile = field(default_factory=FideProfile)  # shown only in the organisers' TRF export

    @property
    def name(self) -> str:
        """The name shown in pairings: the Lichess name once linked."""
        return self.lichess_name or self.display_name


@dataclass(frozen=True)
class Entry:
    """A player in an event.

    `number` is the starting number (None until the event starts); `joined_round` is the first
    round the player could be paired in; `late_bye_round` is the round of a late joiner's half-point
    bye, if one was given.
    """

    event_id: int
    player: PlayerRow
    number: int | None
    rating: int
    status: EntryStatus
    joined_round: int
    late_bye_round: int | None
    accelerated: bool
    joined_at: datetime

    @property
    def player_id(self) -> int:
        """The player's row id."""
        return self.player.id

    @property
    def discord_id(self) -> int:
        """The player's Discord user id."""
        return self.player.discord_id

    @property
    def lichess_id(self) -> str | None:
        """The player's Lichess account id (lower case), once linked."""
        return self.player.lichess_id

    @property
    def name(self) -> str:
        """The name shown in pairings and standings."""
        return self.player.name


@dataclass(frozen=True)
class ByeRequest:
    """A requested half-point bye."""

    event_id: int
    player_id: int
    round: int
    requested_at: datetime


@dataclass(frozen=True)
class Ban:
    """A temporary ban from a club's events."""

    guild_id: int
    player_id: int
    until: datetime
    count: int
    reason: str
    created_at: datetime

    def active(self, at: datetime) -> bool:
        """True while the ban runs."""
        return at < self.until


def starting_order_key(entry: Entry) -> tuple[int, str, int]:
    """Rating at entry descending, then name, then the player's row id."""
    return (-entry.rating, entry.player.name.casefold(), entry.player.id)


def accelerated_group_size(players: int, method: str = "baku") -> int:
    """Group A of an accelerated event (Baku: 2·⌈N/4⌉; US Chess 28R: the top half)."""
    return acceleration.group_a_size(method, players)


def numbered_entries(event: Event, entries: Sequence[Entry]) -> dict[int, Entry]:
    """Entries by starting number; before the start, provisional numbers in starting order."""
    if event.status in STARTED or any(e.number is not None for e in entries):
        return {e.number: e for e in entries if e.number is not None}
    active = sorted((e for e in entries if e.status is EntryStatus.ACTIVE), key=starting_order_key)
    return dict(enumerate(active, start=1))


def first_round_open(event: Event) -> int:
    """The first round a player joining now can be paired in: the next one, or with two-game matches
    (Double-Swiss) the first game of the next match, since a match is one pairing."""
    next_round = event.current_round + 1
    if event.settings.pairing_system.two_game_matches and next_round % 2 == 0:
        next_round += 1
    return next_round


def late_join_records(event: Event, first_round: int, late_bye_round: int | None) -> dict[int, RecordKind]:
    """A late joiner's records of the rounds before `first_round`: not paired, but a half-point bye in
    `late_bye_round` (with two-game matches, in both games of its match)."""

    def late_bye(r: int) -> bool:
        if late_bye_round is None or not event.settings.pairing_system.two_game_matches:
            return r == late_bye_round
        return match_of(r) == match_of(late_bye_round)

    return {r: RecordKind.HALF_BYE if late_bye(r) else RecordKind.NOT_PAIRED for r in range(1, first_round)}
