"""An event's settings, and every rule they must meet (`EventSettings.problems`)."""

from __future__ import annotations

import enum
import re
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from domain.fide import TrfHeader
from pairing import acceleration, systems
from pairing.model import Colour
from pairing.tiebreaks.codes import DEFAULT_TIEBREAKS, parse_tiebreak


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


# The Lichess rules every event game is created with (the gateway's default too).
DEFAULT_RULES = ("noEarlyDraw", "noRematch", "noGiveTime", "noClaimWin")
DEFAULT_ROUND_INTERVAL = 300  # seconds from the end of a round to the start of the next
MAX_ROUNDS = 50
MAX_TEAM_BOARDS = 20
TEAM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,59}")  # the part after lichess.org/team/
SHORT_CLOCK_LIMITS = frozenset({0, 15, 30, 45, 60, 90})  # seconds; above these Lichess takes whole minutes
MAX_CLOCK_LIMIT = 180 * 60
MAX_CLOCK_INCREMENT = 180
MAX_PAIRING_REVIEW = 24 * 60  # minutes
# Unicode's bidirectional embeddings, overrides and isolates (and the marks): they reorder the text after them.
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")  # Hangul fillers and the blank Braille pattern
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def lichess_takes_clock(limit: int, increment: int) -> bool:
    """Lichess creates a game with this clock (limit and increment in seconds)."""
    limit_ok = limit in SHORT_CLOCK_LIMITS or (limit % 60 == 0 and 0 < limit <= MAX_CLOCK_LIMIT)
    return limit_ok and 0 <= increment <= MAX_CLOCK_INCREMENT


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
    team_boards: int = 4  # boards a match in a Team Swiss event
    # The arbiter's report's TRF header; the event is FIDE-rated when it names a rating type.
    trf_header: TrfHeader = field(default_factory=TrfHeader)
    pairing_review: int = 0  # minutes a round's pairing is held for organisers' corrections before its games (0: none)

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
    def first_round_at(self) -> datetime | None:
        """When round 1 is due: the start time, or with fixed times and no start, the first fixed time."""
        if self.start_at is None and self.round_times:
            return self.round_times[0]
        return self.start_at

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
    def pairing_system(self) -> systems.PairingSystem:
        """The registered system `system` names, whose nature (team, two-game matches, ...) the event has;
        for `auto`, the system it picks for the fewest players (`pairing.systems.of_choice`)."""
        return systems.of_choice(self.system)

    @property
    def late_join_last_round(self) -> int:
        """The last round before which joining is still allowed (more than half started closes it)."""
        return self.rounds // 2 + 1

    def problems(self, now: datetime | None = None, before: EventSettings | None = None, played: int = 0) -> list[str]:
        """Every reason these settings cannot describe an event, one sentence each (none: they can). With `now`, a
        start or fixed time in the past is one, unless `before` (the settings being edited) had it already or it is
        the time of one of the `played` rounds already paired."""
        return [
            *self._name_and_rounds_problems(),
            *self._clock_problems(),
            *self._schedule_problems(),
            *self._past_problems(now, before, played),
            *self._entry_problems(),
            *self._game_problems(),
            *self._pairing_problems(),
            *self.trf_header.problems(),
        ]

    def _name_and_rounds_problems(self) -> list[str]:
        problems = []
        if not self.name.strip():
            problems.append("the name is empty")
        elif any(unicodedata.category(c) == "Cc" for c in self.name):
            problems.append("the name has a control character or a line break")
        elif any(c in BIDI_CONTROLS for c in self.name):
            problems.append("the name has a bidirectional override, which would turn the text around it")
        elif not any(unicodedata.category(c)[0] not in "CZ" and c not in BLANK_LETTERS for c in self.name):
            problems.append("the name has no visible character")
        if not 1 <= self.rounds <= MAX_ROUNDS:
            problems.append(f"rounds must be between 1 and {MAX_ROUNDS}")
        return problems

    def _clock_problems(self) -> list[str]:
        limit, increment = self.clock_limit, self.clock_increment
        if limit < 0 or increment < 0:
            return ["the clock cannot be negative"]
        if limit == 0 and increment == 0:
            return ["the clock needs a limit or an increment"]
        if not lichess_takes_clock(limit, increment):
            return [
                f"Lichess refuses a {limit} s + {increment} s clock: the time is 0, 15, 30, 45, 60 or 90 seconds or "
                f"a whole number of minutes up to {MAX_CLOCK_LIMIT // 60}, and the increment 0 to "
                f"{MAX_CLOCK_INCREMENT} seconds"
            ]
        return []

    def _schedule_problems(self) -> list[str]:
        problems = []
        if self.round_interval is not None and self.round_interval <= 0:
            problems.append("the round interval must be positive")
        if self.round_interval is not None and self.round_times:
            problems.append("give a round interval or fixed round times, not both")
        if self.round_times and len(self.round_times) != self.rounds:
            problems.append(f"{len(self.round_times)} fixed round times for {self.rounds} rounds")
        problems.extend(
            f"the time {moment.isoformat()} has no timezone (times are UTC-aware)"
            for moment in (self.start_at, *self.round_times)
            if moment is not None and moment.utcoffset() is None
        )
        aware = all(moment.utcoffset() is not None for moment in self.round_times)
        twice = sorted({t for t in self.round_times if self.round_times.count(t) > 1}) if aware else []
        problems.extend(f"the fixed time {_shown(moment)} is given twice" for moment in twice)
        if aware and not twice and list(self.round_times) != sorted(self.round_times):
            problems.append("the fixed round times are not in order")
        if self.reminder_seconds is not None and self.reminder_seconds < 0:
            problems.append("the reminder cannot come after the round's start")
        return problems

    def _past_problems(self, now: datetime | None, before: EventSettings | None, played: int) -> list[str]:
        if now is None:
            return []
        kept = () if before is None else (before.start_at, *before.round_times)
        named = [("start", self.start_at)] if not played else []
        named += [("fixed time", moment) for moment in self.round_times[played:]]
        return [
            f"the {what} {_shown(moment)} is in the past (it is {_shown(now)} now)"
            for what, moment in named
            if moment is not None and moment.utcoffset() is not None and moment < now and moment not in kept
        ]

    def _entry_problems(self) -> list[str]:
        problems = []
        if self.team is not None and TEAM_ID.fullmatch(self.team) is None:
            shown = self.team if len(self.team) <= 40 else self.team[:39] + "…"
            problems.append(f"'{shown}' is not a Lichess team id (the part after lichess.org/team/)")
        if self.rating_min is not None and self.rating_max is not None and self.rating_min > self.rating_max:
            problems.append("the minimum rating is above the maximum")
        if self.max_byes < 0:
            problems.append("the bye limit cannot be negative")
        return problems

    def _game_problems(self) -> list[str]:
        problems = []
        if self.early_draw_moves < 0:
            problems.append("the early-draw move count cannot be negative")
        if self.no_show_seconds <= 0:
            problems.append("the no-show deadline must be positive")
        return problems

    def _pairing_problems(self) -> list[str]:
        problems = []
        try:
            system = self.pairing_system
        except ValueError as exc:
            problems.append(str(exc))
        else:
            if system.two_game_matches and self.rounds % 2:
                problems.append(
                    f"a {system.label} event plays two games a match, so its rounds count games and must be even "
                    f"(not {self.rounds})"
                )
            if self.acceleration and not system.accelerable:
                problems.append(f"acceleration is not available for {system.label} events")
            if self.pairing_review and (system.two_game_matches or system.team):
                problems.append(f"a {system.label} event's pairing cannot be held for corrections")
        if self.acceleration_method not in acceleration.METHODS:
            problems.append(f"unknown acceleration {self.acceleration_method!r}")
        if not 0 <= self.pairing_review <= MAX_PAIRING_REVIEW:
            problems.append(f"the pairing review lasts 0 to {MAX_PAIRING_REVIEW} minutes")
        if not 1 <= self.team_boards <= MAX_TEAM_BOARDS:
            problems.append(f"a team match has 1 to {MAX_TEAM_BOARDS} boards")
        problems.extend(
            f"the tie-break {code} is listed twice"
            for code in dict.fromkeys(c for c in self.tiebreaks if self.tiebreaks.count(c) > 1)
        )
        for code in self.tiebreaks:
            try:
                parse_tiebreak(code)
            except ValueError as exc:
                problems.append(str(exc))
        return problems


def _shown(moment: datetime) -> str:
    """A moment as the organisers read it: "2026-03-02 19:00 UTC"."""
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
