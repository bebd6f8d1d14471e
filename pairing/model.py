"""Players, round records, scoring and every derived view the pairing rules use."""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property

Points = Fraction
# Zero points, made once (Fractions are immutable; pairing asks for virtual points hundreds of times a round).
NO_POINTS = Fraction(0)


def exact_sum(values: Iterable[Fraction]) -> Fraction:
    """The exact sum of fractions in one pass: numerators over a running common denominator, reduced once (much
    faster than `sum(values, Fraction(0))`, which reduces after every addition)."""
    numerator, denominator = 0, 1
    for value in values:
        top, bottom = value.as_integer_ratio()
        if bottom == denominator:
            numerator += top
        elif denominator % bottom == 0:
            numerator += top * (denominator // bottom)
        else:
            common = math.lcm(denominator, bottom)
            numerator = numerator * (common // denominator) + top * (common // bottom)
            denominator = common
    return Fraction(numerator, denominator)


class Colour(enum.Enum):
    """A colour in a played game."""

    WHITE = "w"
    BLACK = "b"

    @property
    def opposite(self) -> Colour:
        """The other colour."""
        return Colour.BLACK if self is Colour.WHITE else Colour.WHITE


class Outcome(enum.Enum):
    """The result of a game for one side."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


class RecordKind(enum.Enum):
    """What happened to one player in one round (fide-swiss.md §1.2)."""

    PLAYED = "played"
    FORFEIT_WIN = "forfeit_win"
    FORFEIT_LOSS = "forfeit_loss"
    PAB = "pab"
    FULL_BYE = "full_bye"
    HALF_BYE = "half_bye"
    ZERO_BYE = "zero_bye"
    NOT_PAIRED = "not_paired"


BYE_KINDS = frozenset(
    {RecordKind.PAB, RecordKind.FULL_BYE, RecordKind.HALF_BYE, RecordKind.ZERO_BYE, RecordKind.NOT_PAIRED}
)


class PreferenceStrength(enum.IntEnum):
    """How strongly a player wants a colour; higher is stronger."""

    NONE = 0
    MILD = 1
    STRONG = 2
    ABSOLUTE = 3


class FloatDirection(enum.Enum):
    """A float received in one round."""

    NONE = "none"
    DOWN = "down"
    UP = "up"


@dataclass(frozen=True)
class Scoring:
    """Points for every kind of round record; 1/½/0 by default."""

    win: Points = Fraction(1)
    draw: Points = Fraction(1, 2)
    loss: Points = Fraction(0)
    pab: Points | None = None
    full_bye: Points | None = None
    half_bye: Points | None = None
    zero_bye: Points = Fraction(0)
    forfeit_win: Points | None = None
    forfeit_loss: Points = Fraction(0)

    @property
    def pab_points(self) -> Points:
        """Points of a pairing-allocated bye (a win unless set)."""
        return self.win if self.pab is None else self.pab

    @property
    def full_bye_points(self) -> Points:
        """Points of a full-point bye."""
        return self.win if self.full_bye is None else self.full_bye

    @property
    def half_bye_points(self) -> Points:
        """Points of a requested half-point bye."""
        return self.draw if self.half_bye is None else self.half_bye

    @property
    def forfeit_win_points(self) -> Points:
        """Points of a forfeit win."""
        return self.win if self.forfeit_win is None else self.forfeit_win

    def points(self, record: RoundRecord) -> Points:
        """The points a record scores."""
        kind = record.kind
        if kind is RecordKind.PLAYED:
            if record.outcome is Outcome.WIN:
                return self.win
            if record.outcome is Outcome.DRAW:
                return self.draw
            return self.loss
        if kind is RecordKind.FORFEIT_WIN:
            return self.forfeit_win_points
        if kind is RecordKind.FORFEIT_LOSS:
            return self.forfeit_loss
        if kind is RecordKind.PAB:
            return self.pab_points
        if kind is RecordKind.FULL_BYE:
            return self.full_bye_points
        if kind is RecordKind.HALF_BYE:
            return self.half_bye_points
        if kind is RecordKind.ZERO_BYE:
            return self.zero_bye
        return Fraction(0)

    @property
    def is_default(self) -> bool:
        """True for plain 1/½/0 scoring with default byes and forfeits."""
        return self == Scoring()


@dataclass(frozen=True)
class RoundRecord:
    """One player's record in one round."""

    kind: RecordKind
    opponent: int | None = None
    colour: Colour | None = None
    outcome: Outcome | None = None
    rated: bool = True

    @property
    def is_played(self) -> bool:
        """True when a game was played over the board (forfeits are not)."""
        return self.kind is RecordKind.PLAYED

    @staticmethod
    def played(opponent: int, colour: Colour, outcome: Outcome, rated: bool = True) -> RoundRecord:
        """A game played over the board."""
        return RoundRecord(RecordKind.PLAYED, opponent, colour, outcome, rated)

    @staticmethod
    def forfeit(opponent: int, colour: Colour | None, won: bool) -> RoundRecord:
        """A scheduled game decided by forfeit (a double forfeit is a loss on both sides)."""
        kind = RecordKind.FORFEIT_WIN if won else RecordKind.FORFEIT_LOSS
        return RoundRecord(kind, opponent, colour)

    @staticmethod
    def bye(kind: RecordKind) -> RoundRecord:
        """A round without an opponent."""
        if kind not in BYE_KINDS:
            raise ValueError(f"{kind.value} is not a bye")
        return RoundRecord(kind)


NOT_PAIRED = RoundRecord(RecordKind.NOT_PAIRED)


@dataclass(frozen=True)
class Player:
    """A participant: identity by starting number, and one record per round so far."""

    number: int
    name: str = ""
    rating: int = 0
    title: str = ""
    sex: str = ""
    federation: str = ""
    fide_id: str = ""
    birth_date: str = ""
    rounds: tuple[RoundRecord, ...] = ()
    declared_points: Points | None = None
    rank: int | None = None

    def record(self, round_number: int) -> RoundRecord:
        """The record of a 1-based round; rounds not written are 'not paired'."""
        if 1 <= round_number <= len(self.rounds):
            return self.rounds[round_number - 1]
        return NOT_PAIRED

    def records(self, before_round: int) -> tuple[RoundRecord, ...]:
        """The records of rounds 1 .. before_round - 1, padded with 'not paired'."""
        count = before_round - 1
        got = self.rounds[:count]
        return got + (NOT_PAIRED,) * (count - len(got))


@dataclass(frozen=True)
class Tournament:
    """A tournament: players with their histories, and the settings that pairing needs."""

    players: tuple[Player, ...]
    total_rounds: int
    scoring: Scoring = field(default_factory=Scoring)
    initial_colour: Colour | None = None
    acceleration: Mapping[int, tuple[Points, ...]] = field(default_factory=dict)
    forbidden: tuple[frozenset[int], ...] = ()
    name: str = ""
    header: tuple[str, ...] = ()

    @cached_property
    def by_number(self) -> dict[int, Player]:
        """Players keyed by starting number."""
        return {p.number: p for p in self.players}

    def player(self, number: int) -> Player:
        """The player with that starting number."""
        return self.by_number[number]

    @cached_property
    def rounds_completed(self) -> int:
        """The last round that has a pairing (an opponent or a PAB) for anyone."""
        last = 0
        for p in self.players:
            for index, rec in enumerate(p.rounds, start=1):
                if index > last and (rec.opponent is not None or rec.kind is RecordKind.PAB):
                    last = index
        return last

    @property
    def round_to_pair(self) -> int:
        """The next round to pair."""
        return self.rounds_completed + 1

    def virtual_points(self, number: int, round_number: int) -> Points:
        """Acceleration points a player carries when round `round_number` is paired."""
        values = self.acceleration.get(number, ())
        if 1 <= round_number <= len(values):
            return values[round_number - 1]
        return NO_POINTS

    def is_forbidden(self, a: int, b: int) -> bool:
        """True when the two players must not be paired together."""
        return any(a in group and b in group for group in self.forbidden)

    def views(self, round_number: int | None = None) -> RoundViews:
        """Every derived view for pairing `round_number` (the next round by default)."""
        return RoundViews(self, self.round_to_pair if round_number is None else round_number)

    def with_round(self, round_number: int, records: Mapping[int, RoundRecord]) -> Tournament:
        """A copy where the given players have these records in that round."""
        players = []
        for p in self.players:
            rec = records.get(p.number)
            if rec is None:
                players.append(p)
                continue
            rounds = list(p.records(round_number + 1)) if len(p.rounds) < round_number else list(p.rounds)
            rounds[round_number - 1] = rec
            players.append(_replace_rounds(p, tuple(rounds)))
        return _replace_players(self, tuple(players))

    def truncated(self, rounds: int) -> Tournament:
        """The tournament as it stood after `rounds` rounds."""
        players = tuple(_replace_rounds(p, p.rounds[:rounds]) for p in self.players)
        return _replace_players(self, players)


def _replace_rounds(player: Player, rounds: tuple[RoundRecord, ...]) -> Player:
    return replace(player, rounds=rounds, declared_points=None)


def _replace_players(tournament: Tournament, players: tuple[Player, ...]) -> Tournament:
    return replace(tournament, players=players)


@dataclass(frozen=True)
class ColourPreference:
    """A colour preference and how strong it is (fide-swiss.md §3.2.4)."""

    colour: Colour | None
    strength: PreferenceStrength


class RoundViews:
    """Derived per-player values for pairing one round, computed once and cached."""

    def __init__(self, tournament: Tournament, round_number: int) -> None:
        self.tournament = tournament
        self.round = round_number
        self.scoring = tournament.scoring
        self._score_cache: dict[tuple[int, int], Points] = {}
        self._colours_cache: dict[int, tuple[Colour, ...]] = {}

    @property
    def is_last_round(self) -> bool:
        """True when the round being paired is the tournament's final round."""
        return self.round >= self.tournament.total_rounds

    def history(self, number: int) -> tuple[RoundRecord, ...]:
        """The records of rounds before the round being paired."""
        return self.tournament.player(number).records(self.round)

    def score(self, number: int, before_round: int | None = None) -> Points:
        """Standings points from the rounds before `before_round` (default: this round)."""
        upto = self.round if before_round is None else before_round
        key = (number, upto)
        cached = self._score_cache.get(key)
        if cached is None:
            player = self.tournament.player(number)
            later = self._score_cache.get((number, upto + 1)) if upto >= 1 else None
            if later is not None:
                # One round short of a score already summed (floats look back round by round): subtract that round.
                cached = later - self.scoring.points(player.record(upto))
            else:
                cached = exact_sum(self.scoring.points(r) for r in player.records(upto))
            self._score_cache[key] = cached
        return cached

    def pairing_score(self, number: int, round_number: int | None = None) -> Points:
        """Score plus acceleration virtual points when pairing `round_number`."""
        upto = self.round if round_number is None else round_number
        score, virtual = self.score(number, upto), self.tournament.virtual_points(number, upto)
        return score + virtual if virtual else score

    def colours(self, number: int) -> tuple[Colour, ...]:
        """The colours of played games, in round order (unplayed rounds dropped)."""
        cached = self._colours_cache.get(number)
        if cached is None:
            cached = tuple(r.colour for r in self.history(number) if r.is_played and r.colour is not None)
            self._colours_cache[number] = cached
        return cached

    def preference(self, number: int) -> ColourPreference:
        """The colour preference of fide-swiss.md §3.2.4."""
        colours = self.colours(number)
        if not colours:
            return ColourPreference(None, PreferenceStrength.NONE)
        cd = sum(1 if c is Colour.WHITE else -1 for c in colours)
        if cd > 1:
            return ColourPreference(Colour.BLACK, PreferenceStrength.ABSOLUTE)
        if cd < -1:
            return ColourPreference(Colour.WHITE, PreferenceStrength.ABSOLUTE)
        if len(colours) >= 2 and colours[-1] is colours[-2]:
            return ColourPreference(colours[-1].opposite, PreferenceStrength.ABSOLUTE)
        if cd == 1:
            return ColourPreference(Colour.BLACK, PreferenceStrength.STRONG)
        if cd == -1:
            return ColourPreference(Colour.WHITE, PreferenceStrength.STRONG)
        return ColourPreference(colours[-1].opposite, PreferenceStrength.MILD)

    def opponents(self, number: int) -> frozenset[int]:
        """Opponents met over the board (forfeited pairings are not meetings)."""
        return frozenset(r.opponent for r in self.history(number) if r.is_played and r.opponent is not None)

    def have_met(self, a: int, b: int) -> bool:
        """True when the two players already played each other."""
        return b in self.opponents(a)

    def pab_eligible(self, number: int) -> bool:
        """May receive the pairing-allocated bye (edition B: no PAB, no unplayed win-value round)."""
        win = self.scoring.win
        for rec in self.history(number):
            if rec.kind is RecordKind.PAB:
                return False
            if not rec.is_played and rec.kind is not RecordKind.NOT_PAIRED and self.scoring.points(rec) >= win:
                return False
        return True

    def float_in(self, number: int, round_number: int) -> FloatDirection:
        """The float received in a past round (edition B rules, pairing scores of that round)."""
        rec = self.tournament.player(number).record(round_number)
        if rec.kind is RecordKind.PAB:
            return FloatDirection.DOWN
        if not rec.is_played:
            return FloatDirection.DOWN if self.scoring.points(rec) > self.scoring.loss else FloatDirection.NONE
        assert rec.opponent is not None
        mine = self.pairing_score(number, round_number)
        theirs = self.pairing_score(rec.opponent, round_number)
        if mine > theirs:
            return FloatDirection.DOWN
        if mine < theirs:
            return FloatDirection.UP
        return FloatDirection.NONE

    def floats(self, number: int) -> tuple[FloatDirection, ...]:
        """Floats of rounds 1 .. round-1, indexed by tournament round."""
        return tuple(self.float_in(number, r) for r in range(1, self.round))

    def unplayed_rounds(self, number: int) -> int:
        """Rounds before this one without a game played over the board."""
        return sum(1 for r in self.history(number) if not r.is_played)

    def is_topscorer(self, number: int) -> bool:
        """A player over 50 % of the maximum score, when pairing the final round."""
        if not self.is_last_round:
            return False
        best = max(self.scoring.win, self.scoring.draw)
        return self.pairing_score(number) * 2 > (self.round - 1) * best

    def to_pair(self) -> tuple[int, ...]:
        """Players to pair this round: everyone without a record for it yet."""
        return tuple(
            p.number
            for p in self.tournament.players
            if len(p.rounds) < self.round or p.rounds[self.round - 1].kind is RecordKind.NOT_PAIRED
        )


@dataclass(frozen=True)
class Board:
    """One pairing: White against Black, by starting number."""

    white: int
    black: int


@dataclass(frozen=True)
class Pairing:
    """A round's pairing: the boards in published order, and the pairing-allocated bye."""

    boards: tuple[Board, ...]
    bye: int | None = None

    def lines(self) -> list[str]:
        """The engine output format: pair count, `white black` lines, the bye as `id 0` last."""
        out = [str(len(self.boards) + (1 if self.bye is not None else 0))]
        out.extend(f"{b.white} {b.black}" for b in self.boards)
        if self.bye is not None:
            out.append(f"{self.bye} 0")
        return out

    def players(self) -> frozenset[int]:
        """Everyone the pairing places, the bye included."""
        placed = {n for b in self.boards for n in (b.white, b.black)}
        if self.bye is not None:
            placed.add(self.bye)
        return frozenset(placed)


def board_order(views: RoundViews, boards: Iterable[Board]) -> tuple[Board, ...]:
    """Sort boards as published (C.04.2): higher score, then lower score, then the higher-ranked player's number.

    Standings scores are used, without acceleration virtual points (as the reference engine does, checked
    on the accelerated corpus cases); the higher-ranked player of a board is the one with the higher
    score, or the smaller number on equal scores.
    """

    def key(board: Board) -> tuple[Points, Points, int]:
        sw, sb = views.score(board.white), views.score(board.black)
        top = min((-sw, board.white), (-sb, board.black))[1]
        return (-max(sw, sb), -min(sw, sb), top)

    return tuple(sorted(boards, key=key))


def format_points(points: Points, width: int = 4) -> str:
    """Points as TRF writes them: one decimal, right-aligned."""
    tenths = points * 10
    if tenths.denominator != 1:
        tenths = Fraction(round(tenths))
    sign = "-" if tenths < 0 else ""
    whole, rest = divmod(abs(int(tenths)), 10)
    return f"{sign}{whole}.{rest}".rjust(width)


def result_records(
    white: int, black: int, outcome_white: Outcome, *, forfeit: bool = False, double_forfeit: bool = False
) -> Mapping[int, RoundRecord]:
    """The two records of a decided board."""
    if double_forfeit:
        return {
            white: RoundRecord(RecordKind.FORFEIT_LOSS, black, Colour.WHITE),
            black: RoundRecord(RecordKind.FORFEIT_LOSS, white, Colour.BLACK),
        }
    if forfeit:
        if outcome_white is Outcome.DRAW:
            raise ValueError("a forfeit has a winner")
        white_won = outcome_white is Outcome.WIN
        return {
            white: RoundRecord.forfeit(black, Colour.WHITE, white_won),
            black: RoundRecord.forfeit(white, Colour.BLACK, not white_won),
        }
    outcome_black = {Outcome.WIN: Outcome.LOSS, Outcome.LOSS: Outcome.WIN, Outcome.DRAW: Outcome.DRAW}[outcome_white]
    return {
        white: RoundRecord.played(black, Colour.WHITE, outcome_white),
        black: RoundRecord.played(white, Colour.BLACK, outcome_black),
    }
