"""A Swiss Team event (C.04.6): the players' tournament (every board game as an ordinary `001` record) plus the
teams: their pairing numbers, names, rosters in board order and ranking strength, and the event's team rules
(boards, the match-point scale, the PAB's points, the colour-preference type, which score is primary).

Everything a round needs about a team -- its opponent, its colour (that of its first board), its game and match
points -- is derived from its players' records, so the players' tournament stays the one source of truth and a
TRF file with team records (310, 013, 192, 320, 330, 352, 362) reads and writes without loss.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property

from pairing.errors import TeamError
from pairing.model import (
    Colour,
    Outcome,
    Player,
    Points,
    RecordKind,
    RoundRecord,
    Scoring,
    Tournament,
    exact_sum,
)


class ColourType(enum.Enum):
    """Which colour preferences the event uses (Art. 1.7)."""

    A = "A"
    B = "B"
    NONE = "none"


class Primary(enum.Enum):
    """The score teams are ranked and paired by."""

    MP = "MP"
    GP = "GP"


@dataclass(frozen=True)
class TeamRules:
    """The team settings of an event: boards, match points, the PAB, colours, the primary score."""

    boards: int = 4
    match_win: Points = Fraction(2)
    match_draw: Points = Fraction(1)
    match_loss: Points = Fraction(0)
    pab_match: Points | None = None
    """Match points of a PAB; a drawn match's by default (Art. 1.4)."""
    pab_game: Points | None = None
    """Game points of a PAB; a drawn match's (half the boards' wins) by default."""
    colours: ColourType = ColourType.A
    primary: Primary = Primary.MP
    secondary_for_colours: bool = True
    """Whether the secondary score decides the first-team of Art. 4 (after the primary score)."""
    pattern: str = "WB"
    """Colours of the boards of the team that has White on board 1, repeated over the boards (record 352)."""

    def __post_init__(self) -> None:
        if self.boards < 1:
            raise TeamError(f"a team event needs at least one board, got {self.boards}")
        if not self.pattern or set(self.pattern.upper()) - {"W", "B"} or self.pattern.upper()[0] != "W":
            raise TeamError(f"the board colour pattern must be W and B letters starting with W, got {self.pattern!r}")
        # One letter per board, so that equal rules compare equal however the pattern was given.
        object.__setattr__(self, "pattern", (self.pattern.upper() * self.boards)[: self.boards])

    @property
    def pab_match_points(self) -> Points:
        """Match points of a pairing-allocated bye."""
        return self.match_draw if self.pab_match is None else self.pab_match

    def pab_game_points(self, game: Scoring) -> Points:
        """Game points of a pairing-allocated bye, under the event's game scoring."""
        return game.draw * self.boards if self.pab_game is None else self.pab_game

    def board_colour(self, board: int, first_board: Colour) -> Colour:
        """The colour on a 1-based board of the team that has `first_board` on board 1."""
        letter = self.pattern.upper()[(board - 1) % len(self.pattern)]
        colour = Colour.WHITE if letter == "W" else Colour.BLACK
        return colour if first_board is Colour.WHITE else colour.opposite


@dataclass(frozen=True)
class Team:
    """A team: pairing number, name, roster in board order, ranking strength (e.g. its top boards' average)."""

    number: int
    name: str = ""
    players: tuple[int, ...] = ()
    rating: int = 0


@dataclass(frozen=True)
class TeamRecord:
    """What one team did in one round; `colour` is its first board's colour."""

    kind: RecordKind
    opponent: int | None = None
    colour: Colour | None = None
    game_points: Points = Fraction(0)
    opponent_game_points: Points = Fraction(0)
    match_points: Points = Fraction(0)

    @property
    def is_played(self) -> bool:
        """True for a match with at least one game played over the board (a forfeited match is not)."""
        return self.kind is RecordKind.PLAYED


@dataclass(frozen=True)
class TeamEvent:
    """A team event: the players' tournament (board games, rounds, game scoring), the teams and the team rules."""

    tournament: Tournament
    teams: tuple[Team, ...]
    rules: TeamRules = field(default_factory=TeamRules)

    def __post_init__(self) -> None:
        known = self.tournament.by_number
        seen: dict[int, int] = {}
        numbers: set[int] = set()
        for team in self.teams:
            if team.number in numbers:
                raise TeamError(f"team number {team.number} is used twice")
            numbers.add(team.number)
            if len(team.players) < self.rules.boards:
                raise TeamError(
                    f"team {team.number} ({team.name or 'no name'}) has {len(team.players)} players, "
                    f"fewer than the event's {self.rules.boards} boards"
                )
            for pid in team.players:
                if pid not in known:
                    raise TeamError(f"team {team.number} lists player {pid}, who is not a player of the event")
                if pid in seen:
                    raise TeamError(f"player {pid} is in two teams ({seen[pid]} and {team.number})")
                seen[pid] = team.number

    @cached_property
    def by_number(self) -> dict[int, Team]:
        """Teams keyed by pairing number."""
        return {t.number: t for t in self.teams}

    @cached_property
    def team_of(self) -> dict[int, int]:
        """The team number of every player in a team."""
        return {pid: t.number for t in self.teams for pid in t.players}

    def team(self, number: int) -> Team:
        """The team with that pairing number."""
        return self.by_number[number]

    @property
    def total_rounds(self) -> int:
        """The number of rounds of the event."""
        return self.tournament.total_rounds

    @property
    def rounds_completed(self) -> int:
        """The last round with a pairing."""
        return self.tournament.rounds_completed

    @property
    def round_to_pair(self) -> int:
        """The next round to pair."""
        return self.tournament.round_to_pair

    @property
    def initial_colour(self) -> Colour:
        """Board 1's colour for the first-team of a pair of teams that never played (by lot; White if unset)."""
        return self.tournament.initial_colour or Colour.WHITE

    def record(self, number: int, round_number: int) -> TeamRecord:
        """A team's record in a 1-based round, derived from its players' records."""
        return self._records[number][round_number - 1] if round_number <= self._derived_rounds else _NOT_PAIRED

    @cached_property
    def _derived_rounds(self) -> int:
        return max((len(p.rounds) for p in self.tournament.players), default=0)

    @cached_property
    def _records(self) -> dict[int, tuple[TeamRecord, ...]]:
        rounds = self._derived_rounds
        return {t.number: tuple(self._derive(t, r) for r in range(1, rounds + 1)) for t in self.teams}

    def _derive(self, team: Team, round_number: int) -> TeamRecord:
        tournament, scoring, rules = self.tournament, self.tournament.scoring, self.rules
        records = [tournament.player(pid).record(round_number) for pid in team.players]
        if any(rec.kind is RecordKind.PAB for rec in records):
            return TeamRecord(
                RecordKind.PAB,
                game_points=rules.pab_game_points(scoring),
                match_points=rules.pab_match_points,
            )
        boards = [rec for rec in records if rec.opponent is not None]
        if boards:
            opponents = {self.team_of.get(rec.opponent) for rec in boards if rec.opponent is not None}
            if len(opponents) != 1 or None in opponents:
                names = ", ".join(str(o) for o in sorted(o or 0 for o in opponents))
                raise TeamError(f"round {round_number}: the players of team {team.number} meet teams {names}")
            opponent = opponents.pop()
            assert opponent is not None
            mine = exact_sum(scoring.points(rec) for rec in boards)
            theirs = exact_sum(
                scoring.points(rec)
                for pid in self.team(opponent).players
                for rec in (tournament.player(pid).record(round_number),)
                if rec.opponent is not None and self.team_of.get(rec.opponent) == team.number
            )
            if any(rec.is_played for rec in boards):
                kind = RecordKind.PLAYED
            else:
                kind = RecordKind.FORFEIT_WIN if mine > theirs else RecordKind.FORFEIT_LOSS
            if mine == theirs and kind is RecordKind.PLAYED:
                mp = rules.match_draw
            else:
                mp = rules.match_win if mine > theirs else rules.match_loss
            return TeamRecord(kind, opponent, boards[0].colour, mine, theirs, mp)
        kinds = {rec.kind for rec in records}
        if RecordKind.NOT_PAIRED in kinds:
            return _NOT_PAIRED
        if kinds == {RecordKind.FULL_BYE}:
            return TeamRecord(RecordKind.FULL_BYE, game_points=scoring.win * rules.boards, match_points=rules.match_win)
        if kinds == {RecordKind.HALF_BYE}:
            return TeamRecord(
                RecordKind.HALF_BYE, game_points=scoring.draw * rules.boards, match_points=rules.match_draw
            )
        return TeamRecord(RecordKind.ZERO_BYE)

    def history(self, number: int, before_round: int) -> tuple[TeamRecord, ...]:
        """A team's records of rounds 1 .. before_round - 1."""
        return tuple(self.record(number, r) for r in range(1, before_round))

    def match_points(self, number: int, before_round: int | None = None) -> Points:
        """Match points from the rounds before `before_round` (default: all)."""
        upto = self._derived_rounds + 1 if before_round is None else before_round
        return exact_sum(rec.match_points for rec in self.history(number, upto))

    def game_points(self, number: int, before_round: int | None = None) -> Points:
        """Game points from the rounds before `before_round` (default: all)."""
        upto = self._derived_rounds + 1 if before_round is None else before_round
        return exact_sum(rec.game_points for rec in self.history(number, upto))

    def score(self, number: int, before_round: int | None = None) -> Points:
        """The primary score (match points by default)."""
        if self.rules.primary is Primary.GP:
            return self.game_points(number, before_round)
        return self.match_points(number, before_round)

    def secondary(self, number: int, before_round: int | None = None) -> Points:
        """The secondary score (game points when match points are primary)."""
        if self.rules.primary is Primary.GP:
            return self.match_points(number, before_round)
        return self.game_points(number, before_round)

    def to_pair(self, round_number: int) -> tuple[int, ...]:
        """The teams to pair in a round: those without a record for it."""
        return tuple(t.number for t in self.teams if self.record(t.number, round_number).kind is RecordKind.NOT_PAIRED)

    def truncated(self, rounds: int) -> TeamEvent:
        """The event as it stood after `rounds` rounds."""
        return replace(self, tournament=self.tournament.truncated(rounds))

    def match_tournament(self) -> Tournament:
        """The event with the teams as players: match records (first board's colour), match-point scoring.

        The Swiss model's rules (no rematch, the PAB's eligibility, Art. 16 of the tie-breaks) then read the
        teams as they read players.
        """
        rules = self.rules
        scoring = Scoring(
            win=rules.match_win,
            draw=rules.match_draw,
            loss=rules.match_loss,
            pab=rules.pab_match_points,
            full_bye=rules.match_win,
            half_bye=rules.match_draw,
            forfeit_win=rules.match_win,
            forfeit_loss=rules.match_loss,
        )
        players = []
        for team in self.teams:
            rounds = []
            for r in range(1, self._derived_rounds + 1):
                rec = self.record(team.number, r)
                rounds.append(_match_record(rec, rules))
            players.append(Player(team.number, team.name, team.rating, rounds=tuple(rounds)))
        return Tournament(
            players=tuple(players),
            total_rounds=self.total_rounds,
            scoring=scoring,
            initial_colour=self.initial_colour,
            name=self.tournament.name,
        )


_NOT_PAIRED = TeamRecord(RecordKind.NOT_PAIRED)


def _match_record(rec: TeamRecord, rules: TeamRules) -> RoundRecord:
    if rec.kind is RecordKind.PLAYED:
        assert rec.opponent is not None and rec.colour is not None
        if rec.game_points == rec.opponent_game_points:
            outcome = Outcome.DRAW
        else:
            outcome = Outcome.WIN if rec.game_points > rec.opponent_game_points else Outcome.LOSS
        return RoundRecord.played(rec.opponent, rec.colour, outcome)
    if rec.kind in (RecordKind.FORFEIT_WIN, RecordKind.FORFEIT_LOSS):
        assert rec.opponent is not None
        return RoundRecord.forfeit(rec.opponent, rec.colour, rec.kind is RecordKind.FORFEIT_WIN)
    return RoundRecord(rec.kind)
