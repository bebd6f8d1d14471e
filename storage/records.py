"""Frozen dataclasses for stored rows, and the enums the schema's text columns hold."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from pairing.model import Colour, Outcome, RecordKind, RoundRecord, result_records
from pairing.systems import TWO_GAME_MATCHES
from pairing.tiebreaks.codes import DEFAULT_TIEBREAKS as DEFAULT_TIEBREAKS


class EventStatus(enum.Enum):
    """Where an event is in its life."""

    DRAFT = "draft"
    OPEN = "open"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class EarlyDrawPolicy(enum.Enum):
    """What happens to a draw agreed before the minimum number of moves."""

    REPLAY = "replay"
    FORFEIT = "forfeit"
    REVIEW = "review"


class Schedule(enum.Enum):
    """How the next round's start is decided."""

    INTERVAL = "interval"
    FIXED = "fixed"
    MANUAL = "manual"


class EntryStatus(enum.Enum):
    """A player's standing in one event."""

    ACTIVE = "active"
    WITHDRAWN = "withdrawn"
    ABSENT = "absent"
    BANNED = "banned"
    DISQUALIFIED = "disqualified"


class RoundStatus(enum.Enum):
    """A paired round: stored, games under way, or every board decided."""

    PAIRED = "paired"
    PLAYING = "playing"
    FINISHED = "finished"


class ResultKind(enum.Enum):
    """How a board was decided."""

    PLAYED = "played"
    FORFEIT = "forfeit"
    DOUBLE_FORFEIT = "double_forfeit"


class Result(enum.Enum):
    """A board's result, from White's side (the TRF-like notation the boards table stores)."""

    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"
    WHITE_WINS_FORFEIT = "+/-"
    BLACK_WINS_FORFEIT = "-/+"
    DOUBLE_FORFEIT = "-/-"

    @property
    def kind(self) -> ResultKind:
        """Played, forfeit or double forfeit."""
        if self in (Result.WHITE_WINS_FORFEIT, Result.BLACK_WINS_FORFEIT):
            return ResultKind.FORFEIT
        if self is Result.DOUBLE_FORFEIT:
            return ResultKind.DOUBLE_FORFEIT
        return ResultKind.PLAYED

    @property
    def white_outcome(self) -> Outcome:
        """White's outcome (a loss for both in a double forfeit)."""
        if self in (Result.WHITE_WINS, Result.WHITE_WINS_FORFEIT):
            return Outcome.WIN
        if self is Result.DRAW:
            return Outcome.DRAW
        return Outcome.LOSS

    @property
    def pgn(self) -> str:
        """The PGN Result tag value."""
        return {
            Result.WHITE_WINS: "1-0",
            Result.BLACK_WINS: "0-1",
            Result.DRAW: "1/2-1/2",
            Result.WHITE_WINS_FORFEIT: "1-0",
            Result.BLACK_WINS_FORFEIT: "0-1",
            Result.DOUBLE_FORFEIT: "0-0",
        }[self]

    def records(self, white: int, black: int) -> Mapping[int, RoundRecord]:
        """The two round records this result gives the players numbered `white` and `black`."""
        return result_records(
            white,
            black,
            self.white_outcome,
            forfeit=self.kind is ResultKind.FORFEIT,
            double_forfeit=self.kind is ResultKind.DOUBLE_FORFEIT,
        )


class GameStatus(enum.Enum):
    """One Lichess game attempt for a board."""

    CREATING = "creating"  # written before asking Lichess; resolved by challenge name after a restart
    CREATED = "created"
    FINISHED = "finished"
    ABORTED = "aborted"
    REPLACED = "replaced"  # e.g. an early draw replayed under the `replay` policy
    FAILED = "failed"  # Lichess refused or the request never reached it


# The Lichess rules every event game is created with (the gateway's default too).
DEFAULT_RULES = ("noEarlyDraw", "noRematch", "noGiveTime", "noClaimWin")


DEFAULT_ROUND_INTERVAL = 300  # seconds from the end of a round to the start of the next


@dataclass(frozen=True)
class EventSettings:
    """Everything an organiser sets for an event, and where it is announced (`guild_id`, `channel_id`).

    The schedule is one of: `round_interval` seconds after the previous round ends, the fixed
    `round_times` (one per round), or neither (manual: the organiser starts each round).
    `reminder_seconds` is how long before a round the players are reminded (None: the bot's default,
    0: no reminder).
    """

    name: str
    rounds: int
    clock_limit: int = 180
    clock_increment: int = 2
    guild_id: int = 0
    channel_id: int = 0
    rated: bool = True
    system: str = "auto"
    start_at: datetime | None = None
    round_interval: int | None = DEFAULT_ROUND_INTERVAL
    round_times: tuple[datetime, ...] = ()
    rating_min: int | None = None
    rating_max: int | None = None
    team: str | None = None
    tiebreaks: tuple[str, ...] = DEFAULT_TIEBREAKS
    rules: tuple[str, ...] = DEFAULT_RULES
    early_draw_policy: EarlyDrawPolicy = EarlyDrawPolicy.REPLAY
    early_draw_moves: int = 30
    no_show_seconds: int = 600
    reminder_seconds: int | None = None
    max_byes: int = 1
    late_join_bye: bool = True
    acceleration: bool = False
    acceleration_method: str = "baku"  # pairing.acceleration.METHODS: baku, us-28r1, us-28r2
    initial_colour: Colour = Colour.WHITE
    min_rated_games: int | None = None  # rated games at the event's speed a player needs to join (None: any)
    lichess_sb: bool = False  # SB as Lichess computes it (unplayed rounds against a virtual opponent)
    team_boards: int = 4  # boards a match in a Team Swiss event (system "team")

    @property
    def schedule(self) -> Schedule:
        """Interval, fixed times or manual."""
        if self.round_times:
            return Schedule.FIXED
        if self.round_interval is not None:
            return Schedule.INTERVAL
        return Schedule.MANUAL

    def with_schedule(self, schedule: Schedule, interval: int = DEFAULT_ROUND_INTERVAL) -> EventSettings:
        """These settings on another schedule (an interval keeps its length, or gets `interval` seconds)."""
        if schedule is Schedule.MANUAL:
            return replace(self, round_interval=None, round_times=())
        if schedule is Schedule.INTERVAL:
            kept = self.round_interval if self.round_interval is not None else interval  # 0 stays 0 (and is refused)
            return replace(self, round_interval=kept, round_times=())
        return replace(self, round_interval=None)

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
    """An event row: its settings and where it stands (`current_round`: the last round paired;
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
        if self.settings.system not in TWO_GAME_MATCHES:
            return f"round {number}"
        return f"round {number} (match {(number + 1) // 2}, game {2 - number % 2})"

    def bye_name(self, number: int) -> str:
        """What a bye asked for `number` covers: "round 3", or with two-game matches "match 2 (rounds 3 and 4)"."""
        if self.settings.system not in TWO_GAME_MATCHES:
            return f"round {number}"
        match = (number + 1) // 2
        return f"match {match} (rounds {2 * match - 1} and {2 * match})"


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

    @property
    def name(self) -> str:
        """The name shown in pairings: the Lichess name once linked."""
        return self.lichess_name or self.display_name


@dataclass(frozen=True)
class LinkCode:
    """A pending account-link code for a Discord user."""

    discord_id: int
    lichess_id: str
    code: str
    created_at: datetime
    expires_at: datetime


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
class RoundRow:
    """A paired round."""

    event_id: int
    number: int
    status: RoundStatus
    paired_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    pairings_announced_at: datetime | None = None
    results_announced_at: datetime | None = None
    system: str = "dutch"


@dataclass(frozen=True)
class BoardRow:
    """A board of a round: the two players (ids and starting numbers) and the result once decided."""

    id: int
    event_id: int
    round: int
    board_no: int
    white_id: int
    black_id: int
    white_number: int
    black_number: int
    result: Result | None
    game_id: str | None
    game_data: str | None
    decided_at: datetime | None

    @property
    def result_kind(self) -> ResultKind | None:
        """How the board was decided, if it was."""
        return None if self.result is None else self.result.kind


@dataclass(frozen=True)
class GameRow:
    """One attempt at a Lichess game for a board."""

    id: int
    board_id: int
    attempt: int
    challenge_name: str
    lichess_id: str | None
    status: GameStatus
    data: str | None
    created_at: datetime
    updated_at: datetime


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


@dataclass(frozen=True)
class MessageRef:
    """A Discord message the bot posted for an event (to edit in place after a restart)."""

    event_id: int
    kind: str
    round: int
    channel_id: int
    message_id: int


@dataclass(frozen=True)
class AuditEntry:
    """One line of the append-only audit log; `before` and `after` are JSON text."""

    id: int
    at: datetime
    actor: str
    action: str
    event_id: int | None
    subject: str
    before: str | None
    after: str | None
    reason: str | None


@dataclass(frozen=True)
class RoundSummary:
    """A round with its boards and non-board records (byes keyed by player id)."""

    round: RoundRow
    boards: tuple[BoardRow, ...]
    byes: Mapping[int, RecordKind] = field(default_factory=dict)
