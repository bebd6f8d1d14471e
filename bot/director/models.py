"""The director's own values: who calls it, and the views of rounds, standings and jobs it returns.

The domain values it also passes (Event, EventSettings, Entry, Result and the status enums) are
`domain`'s; import them from there.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Literal

from domain.entry import EntryStatus
from domain.event import Event
from domain.result import Result
from domain.rounds import RoundStatus
from pairing.model import RecordKind

__all__ = [
    "SYSTEM_ACTOR",
    "Actor",
    "BoardView",
    "ByeView",
    "Correction",
    "Crosstable",
    "Job",
    "JobKind",
    "LinkChallenge",
    "LinkedAccount",
    "MyGame",
    "PlayerRef",
    "RoundView",
    "ShownBye",
    "StandingRow",
    "TeamGame",
    "TeamPlayerLine",
    "TeamStandingView",
    "TeamView",
    "shown_bye",
]


@dataclass(frozen=True)
class Actor:
    """Who calls a use case: a Discord user, with the organiser role resolved by the caller."""

    discord_id: int
    name: str
    is_organiser: bool = False

    @property
    def audit_name(self) -> str:
        """The actor as the audit log names them: 'name (Discord id)', the name alone for the bot itself."""
        return f"{self.name} ({self.discord_id})" if self.discord_id else self.name


SYSTEM_ACTOR = Actor(0, "swissbot", True)


@dataclass(frozen=True)
class LinkChallenge:
    """A one-time code to put in the Lichess profile bio, valid until `expires_at`."""

    code: str
    lichess_username: str
    expires_at: datetime


@dataclass(frozen=True)
class LinkedAccount:
    """A verified link between a Discord user and a Lichess account."""

    discord_id: int
    lichess_id: str
    lichess_username: str
    verified_at: datetime


@dataclass(frozen=True)
class PlayerRef:
    """A player as boards and standings show them."""

    number: int
    name: str
    discord_id: int | None
    rating: int


@dataclass(frozen=True)
class BoardView:
    """One board of a round."""

    number: int
    white: PlayerRef
    black: PlayerRef
    game_id: str | None
    url: str | None
    result: Result | None
    detail: str = ""
    bulk: bool = False  # its game is a bulk pairing: the clocks start by themselves (else an open challenge)


# The byes a round view lists: the pairing-allocated bye and half-point byes (requested, or a late joiner's).
ShownBye = Literal[RecordKind.PAB, RecordKind.HALF_BYE]


def shown_bye(kind: RecordKind) -> ShownBye | None:
    """A round bye's kind as its view lists it (None: not listed, e.g. an inactive player's zero-point bye)."""
    if kind is RecordKind.PAB or kind is RecordKind.HALF_BYE:
        return kind
    return None


@dataclass(frozen=True)
class ByeView:
    """A player who has no game this round."""

    player: PlayerRef
    kind: ShownBye


@dataclass(frozen=True)
class RoundView:
    """A round's pairing with names, links and results."""

    event_id: int
    number: int
    status: RoundStatus
    started_at: datetime | None
    boards: tuple[BoardView, ...]
    byes: tuple[ByeView, ...] = ()

    @property
    def decided(self) -> bool:
        """Every board has a result."""
        return all(b.result is not None for b in self.boards)


@dataclass(frozen=True)
class TeamView:
    """A team as commands show it: pairing number, name, roster in board order (reserves after the boards)."""

    number: int
    name: str
    players: tuple[PlayerRef, ...]
    boards: int
    role_id: int | None = None


@dataclass(frozen=True)
class TeamPlayerLine:
    """A team player's event: each round's board and result (`3:1`, `1:½`, `-` when not on a board), points."""

    player: PlayerRef
    cells: tuple[str, ...]
    points: Fraction


@dataclass(frozen=True)
class TeamStandingView:
    """One line of the team standings, with the team's players' board results."""

    rank: int
    number: int
    name: str
    match_points: Fraction
    game_points: Fraction
    tiebreaks: dict[str, Fraction]
    players: tuple[TeamPlayerLine, ...]


@dataclass(frozen=True)
class TeamGame:
    """A member's match in a team event: their team, the opposing team, the match and their board in it."""

    team: str
    opponent_team: str
    match: int
    board: int


@dataclass(frozen=True)
class MyGame:
    """A player's board in the current round (`team`: their match, in a team event)."""

    event: Event
    round_number: int
    board: BoardView
    colour: str
    opponent: PlayerRef
    team: TeamGame | None = None


@dataclass(frozen=True)
class StandingRow:
    """One line of the standings: rank (shared when tied on everything), points and tie-break values."""

    rank: int | None
    player: PlayerRef
    points: Fraction
    tiebreaks: dict[str, Fraction] = field(default_factory=dict)
    status: EntryStatus = EntryStatus.ACTIVE


@dataclass(frozen=True)
class Crosstable:
    """Per player, one cell per round as `pairing.standings.crosstable` writes it (e.g. `12w1`, `12+`, `H`, `Z`)."""

    rounds: int
    rows: tuple[tuple[PlayerRef, tuple[str, ...], Fraction], ...]


@dataclass(frozen=True)
class Correction:
    """What an organiser's result correction changed, and what it could not."""

    event_id: int
    round_number: int
    board: int
    old: Result | None
    new: Result
    later_round_paired: int | None

    @property
    def message(self) -> str:
        """A line for the organiser."""
        old = self.old.value if self.old else "no result"
        text = f"Round {self.round_number} board {self.board}: {old} → {self.new.value}."
        if self.later_round_paired is not None:
            text += f" Round {self.later_round_paired} was already paired and is not re-paired."
        return text


class JobKind(enum.Enum):
    """What a scheduler job does."""

    START_ROUND = "start_round"
    POLL = "poll"
    NOSHOW = "noshow"
    REMIND = "remind"
    ANNOUNCE = "announce"  # a finished round's results and standings, not announced yet
    ANNOUNCE_END = "announce_end"  # a finished event's end and final standings, not announced yet
    POSTS = "posts"  # posts in the outbox Discord has not taken yet (results, corrected standings)


@dataclass(frozen=True)
class Job:
    """A job derived from the database: run `kind` for the event (and round) at `due_at` (event time)."""

    kind: JobKind
    event_id: int
    round_number: int
    due_at: datetime

    @property
    def id(self) -> str:
        """A deterministic id, so rebuilding replaces rather than duplicates."""
        return f"{self.kind.value}:{self.event_id}:{self.round_number}"
