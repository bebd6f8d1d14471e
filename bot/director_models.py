"""The director's public values: what the Discord layer and the demo receive and pass."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction

from storage.records import DEFAULT_TIEBREAKS


@dataclass(frozen=True)
class Actor:
    """Who calls a use case: a Discord user, with the organiser role resolved by the caller."""

    discord_id: int
    name: str
    is_organiser: bool = False


SYSTEM_ACTOR = Actor(0, "swissbot", True)


class EventStatus(enum.Enum):
    """Where an event is in its life."""

    DRAFT = "draft"
    OPEN = "open"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class RoundSchedule(enum.Enum):
    """How rounds after the first start."""

    INTERVAL = "interval"
    FIXED = "fixed"
    MANUAL = "manual"


class EarlyDrawPolicy(enum.Enum):
    """What a draw before `early_draw_moves` counts as (noEarlyDraw only blocks agreed and claimed draws)."""

    REPLAY = "replay"  # a new game for the board
    FORFEIT = "forfeit"  # a double forfeit
    REVIEW = "review"  # the board waits for an organiser's result


@dataclass(frozen=True)
class EventSettings:
    """Everything an organiser sets for an event."""

    name: str
    rounds: int
    clock_limit: int = 180
    clock_increment: int = 2
    rated: bool = True
    system: str = "dutch"
    start_at: datetime | None = None
    schedule: RoundSchedule = RoundSchedule.INTERVAL
    round_interval_minutes: float = 5.0
    fixed_times: tuple[datetime, ...] = ()
    rating_min: int | None = None
    rating_max: int | None = None
    team: str | None = None
    tiebreaks: tuple[str, ...] = DEFAULT_TIEBREAKS
    max_byes: int = 1
    accelerated: bool = False
    early_draw: EarlyDrawPolicy = EarlyDrawPolicy.REPLAY
    early_draw_moves: int = 30
    noshow_minutes: float = 10.0

    @property
    def speed(self) -> str:
        """The Lichess speed of the time control (the rating the limits apply to)."""
        estimate = self.clock_limit + 40 * self.clock_increment
        if estimate < 30:
            return "ultraBullet"
        if estimate < 180:
            return "bullet"
        if estimate < 480:
            return "blitz"
        if estimate < 1500:
            return "rapid"
        return "classical"

    @property
    def late_join_last_round(self) -> int:
        """The last round before which joining is still allowed (more than half started closes it)."""
        return self.rounds // 2 + 1


@dataclass(frozen=True)
class Event:
    """An event as the director shows it."""

    id: int
    guild_id: int
    channel_id: int
    settings: EventSettings
    status: EventStatus
    current_round: int = 0
    created_at: datetime | None = None
    finish_reason: str | None = None

    @property
    def name(self) -> str:
        """The event's name."""
        return self.settings.name


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


class EntryStatus(enum.Enum):
    """A player's state in an event."""

    ACTIVE = "active"
    WITHDRAWN = "withdrawn"  # by the player; may rejoin while joining is open
    ABSENT = "absent"  # withdrawn automatically after a no-show
    BANNED = "banned"  # removed by an organiser
    DISQUALIFIED = "disqualified"  # out of the ranking


@dataclass(frozen=True)
class Entry:
    """A player in an event."""

    event_id: int
    number: int
    discord_id: int
    lichess_id: str
    name: str
    rating: int
    status: EntryStatus
    joined_round: int = 1


class BoardResult(enum.Enum):
    """A board's result as recorded (TRF-like notation)."""

    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"
    WHITE_FORFEIT_WIN = "+/-"
    BLACK_FORFEIT_WIN = "-/+"
    DOUBLE_FORFEIT = "-/-"

    @property
    def is_forfeit(self) -> bool:
        """True when no game counted over the board."""
        return self in (BoardResult.WHITE_FORFEIT_WIN, BoardResult.BLACK_FORFEIT_WIN, BoardResult.DOUBLE_FORFEIT)


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
    result: BoardResult | None
    detail: str = ""


class ByeKind(enum.Enum):
    """A round without an opponent."""

    PAB = "pab"
    HALF = "half"
    ZERO = "zero"


@dataclass(frozen=True)
class ByeView:
    """A player who has no game this round."""

    player: PlayerRef
    kind: ByeKind


class RoundStatus(enum.Enum):
    """Where a round is."""

    PAIRED = "paired"
    PLAYING = "playing"
    FINISHED = "finished"


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
class MyGame:
    """A player's board in the current round."""

    event: Event
    round_number: int
    board: BoardView
    colour: str
    opponent: PlayerRef


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
    """Per player, one cell per round (e.g. '12w1', '-', '½')."""

    rounds: int
    rows: tuple[tuple[PlayerRef, tuple[str, ...], Fraction], ...]


@dataclass(frozen=True)
class Correction:
    """What an organiser's result correction changed, and what it could not."""

    event_id: int
    round_number: int
    board: int
    old: BoardResult | None
    new: BoardResult
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
