"""The FIDE Swiss Team Pairing System (C.04.6, 2026 text), after `../shared/reference/fide-other-systems.md` §6.

A team event is the players' tournament (every board game as an ordinary `001` record) plus the teams: their
pairing numbers, names, rosters in board order and ranking strength, and the event's team rules (boards, the
match-point scale, the PAB's points, the colour-preference type, which score is primary). Everything a round
needs about a team -- its opponent, its colour (that of its first board), its game and match points -- is
derived from its players' records, so the players' tournament stays the one source of truth and a TRF file
with team records (310, 013, 192, 320, 330, 352, 362) reads and writes without loss.

The pairing (Art. 3): the PAB first (an eligible team whose absence leaves a complete pairing: lowest score,
most matches played, largest number); then, while teams remain, the top scoregroup plus the fewest
upfloaters ([C4]) of the best score profile ([C5]), the set chosen by [C6], [C7] and set order; the
bracket's pairing is the first in identifier order among those best on [C8] > [C9] > [C10]. Colours are
allocated after the round is paired (Art. 4) and give board 1's colour; the other boards follow the
event's pattern (record 352, alternating by default).

Readings where the text leaves room (§6.9): [C6] is pass/fail (the following scoregroup can be paired with
its parity minimum of upfloaters, as Gacrux reads it); top and bottom of a pair are by pairing number as
3.6.1 says (Gacrux seats by score first); "matches played" for the PAB counts matches played over the
board; a floater is a team paired with an opponent of a different score in the previous round (a forfeited
pairing included, a PAB not); an upfloater's opponent is the higher-scored team of a pair with different
scores; rule 6 of Art. 4 compares the compressed histories (pairing-core compares round by round).
"""

from __future__ import annotations

import enum
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property

from pairing.errors import NoValidPairing, TeamError
from pairing.matching import max_weight_perfect_matching
from pairing.model import (
    Board,
    Colour,
    Outcome,
    Pairing,
    Player,
    Points,
    RecordKind,
    RoundRecord,
    Scoring,
    Tournament,
    exact_sum,
    format_points,
    result_records,
)

TEAM_TAGS = frozenset({"192", "310", "013", "320", "330", "352", "362"})
"""TRF header records this module reads and writes (the others are kept as they are)."""


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


# --- pure helpers ----------------------------------------------------------------------------------------------


def boards(
    team_a: Sequence[int], team_b: Sequence[int], first_board_white: bool, pattern: str = "WB"
) -> list[tuple[int, int]]:
    """The games of a match, board by board, as (White, Black): `team_a` has White on board 1 when
    `first_board_white`, and the colours follow `pattern` (alternating by default)."""
    if len(team_a) != len(team_b):
        raise TeamError(f"the two line-ups have {len(team_a)} and {len(team_b)} players; a match needs as many")
    rules = TeamRules(boards=max(len(team_a), 1), pattern=pattern)
    first = Colour.WHITE if first_board_white else Colour.BLACK
    out = []
    for board, (a, b) in enumerate(zip(team_a, team_b, strict=True), start=1):
        out.append((a, b) if rules.board_colour(board, first) is Colour.WHITE else (b, a))
    return out


@dataclass(frozen=True)
class MatchResult:
    """A match's result for its two teams: game points and match points of each."""

    game_points: tuple[Points, Points]
    match_points: tuple[Points, Points]


def match_result(
    board_points: Iterable[tuple[Points | int, Points | int]], rules: TeamRules | None = None
) -> MatchResult:
    """The match result from each board's points (team A's, team B's), forfeited boards included: more game
    points wins the match."""
    rules = rules or TeamRules()
    items = list(board_points)
    a = exact_sum(Fraction(p) for p, _ in items)
    b = exact_sum(Fraction(q) for _, q in items)
    if a > b:
        mp = (rules.match_win, rules.match_loss)
    elif a < b:
        mp = (rules.match_loss, rules.match_win)
    else:
        mp = (rules.match_draw, rules.match_draw)
    return MatchResult((a, b), mp)


def team_strength(ratings: Iterable[int], boards: int) -> int:
    """A team's ranking strength: the average of its `boards` highest ratings (unrated count as 0), .5 up."""
    top = sorted(ratings, reverse=True)[:boards]
    if not top:
        return 0
    return int(Fraction(sum(top), len(top)) + Fraction(1, 2))


def seeded(teams: Sequence[Team], players: Mapping[int, Player], boards: int) -> tuple[Team, ...]:
    """The teams numbered 1.. by strength (highest first), then name: the default order when the competition
    rules give none (the rules' own order, when given, is kept by numbering the teams before)."""
    rated = [replace(t, rating=team_strength((players[p].rating for p in t.players), boards)) for t in teams]
    ordered = sorted(rated, key=lambda t: (-t.rating, t.name, t.number))
    return tuple(replace(t, number=i) for i, t in enumerate(ordered, start=1))


def new_event(
    players: Sequence[Player],
    rosters: Sequence[tuple[str, Sequence[int]]],
    rounds: int,
    rules: TeamRules | None = None,
    *,
    initial_colour: Colour = Colour.WHITE,
    by_strength: bool = True,
) -> TeamEvent:
    """A team event before round 1: teams named with their players' numbers in board order, numbered by
    strength (`seeded`) or, with `by_strength=False`, in the order given (the competition rules' order)."""
    rules = rules or TeamRules()
    teams = [Team(i, name, tuple(members)) for i, (name, members) in enumerate(rosters, start=1)]
    tournament = Tournament(tuple(players), rounds, initial_colour=initial_colour)
    known = tournament.by_number
    unknown = sorted(pid for t in teams for pid in t.players if pid not in known)
    if unknown:
        raise TeamError(f"player {unknown[0]} is in a team but not a player of the event")
    if by_strength:
        ordered = seeded(teams, known, rules.boards)
    else:
        ordered = tuple(
            replace(t, rating=team_strength((known[p].rating for p in t.players), rules.boards)) for t in teams
        )
    return TeamEvent(tournament, ordered, rules)


_RESULT_CODES: dict[str, tuple[Outcome, bool, bool]] = {
    "1": (Outcome.WIN, False, False),
    "=": (Outcome.DRAW, False, False),
    "0": (Outcome.LOSS, False, False),
    "+": (Outcome.WIN, True, False),
    "-": (Outcome.LOSS, True, False),
    "--": (Outcome.LOSS, True, True),
}


def record_match(
    event: TeamEvent,
    round_number: int,
    first: int,
    second: int,
    results: Sequence[str],
    *,
    line_ups: tuple[Sequence[int], Sequence[int]] | None = None,
) -> TeamEvent:
    """The event with a match written: team `first` has White on board 1; `results` are `first`'s board
    results ('1', '=', '0', '+' and '-' forfeits, '--' both forfeit); line-ups default to the first boards
    of each roster."""
    rules = event.rules
    if len(results) != rules.boards:
        raise TeamError(f"a match has {rules.boards} board results, got {len(results)}")
    a_players, b_players = line_ups or (
        event.team(first).players[: rules.boards],
        event.team(second).players[: rules.boards],
    )
    changes: dict[int, RoundRecord] = {}
    for board, (a, b, code) in enumerate(zip(a_players, b_players, results, strict=True), start=1):
        if code not in _RESULT_CODES:
            raise TeamError(f"board {board}: unknown result {code!r} (known: {', '.join(_RESULT_CODES)})")
        outcome, forfeit, double = _RESULT_CODES[code]
        a_white = rules.board_colour(board, Colour.WHITE) is Colour.WHITE
        white, black = (a, b) if a_white else (b, a)
        outcome_white = (
            outcome if a_white else {Outcome.WIN: Outcome.LOSS, Outcome.LOSS: Outcome.WIN}.get(outcome, Outcome.DRAW)
        )
        changes.update(result_records(white, black, outcome_white, forfeit=forfeit, double_forfeit=double))
    return replace(event, tournament=event.tournament.with_round(round_number, changes))


def record_bye(event: TeamEvent, round_number: int, team: int, kind: RecordKind) -> TeamEvent:
    """The event with a team's bye written: the PAB on its first boards, a requested bye on every player."""
    members = event.team(team).players
    chosen = members[: event.rules.boards] if kind is RecordKind.PAB else members
    records = {pid: RoundRecord.bye(kind) for pid in chosen}
    return replace(event, tournament=event.tournament.with_round(round_number, records))


def record_pairing(
    event: TeamEvent, round_number: int, pairing: Pairing, results: Mapping[tuple[int, int], Sequence[str]]
) -> TeamEvent:
    """The event with a paired round's results: `results[(white team, black team)]` per board, the PAB written."""
    for board in pairing.boards:
        event = record_match(event, round_number, board.white, board.black, results[(board.white, board.black)])
    if pairing.bye is not None:
        event = record_bye(event, round_number, pairing.bye, RecordKind.PAB)
    return event


# --- colour preferences (Art. 1.6-1.7) ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Preference:
    """A team's colour preference; `strong` only in Type B."""

    colour: Colour | None
    strong: bool = False


def colour_preference(colours: Sequence[Colour], kind: ColourType, last_round: bool = False) -> Preference:
    """The preference of a team whose played matches had these first-board colours (Art. 1.7)."""
    if not colours or kind is ColourType.NONE:
        return Preference(None)
    cd = sum(1 if c is Colour.WHITE else -1 for c in colours)
    last_two = colours[-1] if len(colours) >= 2 and colours[-1] is colours[-2] else None
    strong = kind is ColourType.B
    if cd <= -2 or (cd in (0, -1) and last_two is Colour.BLACK):
        return Preference(Colour.WHITE, strong)
    if cd >= 2 or (cd in (0, 1) and last_two is Colour.WHITE):
        return Preference(Colour.BLACK, strong)
    if kind is ColourType.A:
        return Preference(None)
    if cd == -1:
        return Preference(Colour.WHITE)
    if cd == 1:
        return Preference(Colour.BLACK)
    if last_round:
        return Preference(None)
    return Preference(colours[-1].opposite)


# --- one round's view -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TeamState:
    """What the pairing rules read of one team before a round."""

    number: int
    score: Points
    secondary: Points
    matches: int
    colours: tuple[Colour, ...]
    preference: Preference
    opponents: frozenset[int]
    pab_eligible: bool
    floated: bool

    @property
    def colour_difference(self) -> int:
        """Matches with White minus matches with Black (played matches only)."""
        return sum(1 if c is Colour.WHITE else -1 for c in self.colours)


def team_states(event: TeamEvent, round_number: int) -> dict[int, TeamState]:
    """Every team's state before a round."""
    last_round = round_number >= event.total_rounds
    out = {}
    for team in event.teams:
        number = team.number
        history = event.history(number, round_number)
        colours = tuple(r.colour for r in history if r.is_played and r.colour is not None)
        floated = False
        if round_number > 1:
            prev = history[-1]
            if prev.opponent is not None:
                floated = event.score(number, round_number - 1) != event.score(prev.opponent, round_number - 1)
        out[number] = TeamState(
            number=number,
            score=event.score(number, round_number),
            secondary=event.secondary(number, round_number),
            matches=sum(1 for r in history if r.is_played),
            colours=colours,
            preference=colour_preference(colours, event.rules.colours, last_round),
            opponents=frozenset(r.opponent for r in history if r.is_played and r.opponent is not None),
            pab_eligible=not any(
                r.kind in (RecordKind.PAB, RecordKind.FORFEIT_WIN, RecordKind.FULL_BYE) for r in history
            ),
            floated=floated,
        )
    return out


# --- the pairing ---------------------------------------------------------------------------------------------


def pair(tournament: Tournament, round_number: int | None = None) -> Pairing:
    """Pair a round of the team event in a TRF-read tournament (its team records): boards are teams, White is
    the first-board colour; raise NoValidPairing when no legal pairing exists, TeamError on bad team data."""
    return pair_event(event_from_tournament(tournament), round_number)


def pair_event(event: TeamEvent, round_number: int | None = None) -> Pairing:
    """Pair a round of a team event by C.04.6; the boards name teams, White being board 1's colour."""
    round_number = event.round_to_pair if round_number is None else round_number
    numbers = event.to_pair(round_number)
    if not numbers:
        return Pairing(())
    return _Round(event, round_number, numbers).run()


class _Round:
    """One round's pairing by the team rules."""

    def __init__(self, event: TeamEvent, round_number: int, numbers: Sequence[int]) -> None:
        self.event = event
        self.rules = event.rules
        self.round = round_number
        states = team_states(event, round_number)
        self.teams = {n: states[n] for n in numbers}
        # [C7] and [C10] are not applied in the last two rounds.
        self.float_rules = round_number < event.total_rounds - 1
        self.type_b = event.rules.colours is ColourType.B

    def legal(self, a: int, b: int) -> bool:
        """[C1]: the teams have not played each other (forfeited matches do not count)."""
        return b not in self.teams[a].opponents

    def completable(self, numbers: Iterable[int]) -> bool:
        """[C3]: these teams can all be paired among themselves."""
        group = sorted(numbers)
        if len(group) % 2:
            return False
        if not group:
            return True
        edges = [(i, j, 1) for i, j in itertools.combinations(range(len(group)), 2) if self.legal(group[i], group[j])]
        return max_weight_perfect_matching(len(group), edges) is not None

    def run(self) -> Pairing:
        remaining = set(self.teams)
        bye = None
        if len(remaining) % 2:
            bye = self.choose_bye(remaining)
            remaining.discard(bye)
        elif not self.completable(remaining):
            raise NoValidPairing("no pairing of every team satisfies C1-C3")
        pairs: list[tuple[int, int]] = []
        while remaining:
            bracket, upfloaters = self.next_bracket(remaining)
            pairs.extend(self.pair_bracket(sorted(bracket), upfloaters))
            remaining -= bracket
        return Pairing(self.board_order([self.colours(a, b) for a, b in pairs]), bye)

    def choose_bye(self, remaining: set[int]) -> int:
        """Art. 3.4: an eligible team whose absence leaves a complete pairing: lowest score, most matches
        played, largest number."""
        eligible = [n for n in remaining if self.teams[n].pab_eligible and self.completable(remaining - {n})]
        if not eligible:
            raise NoValidPairing("no team can take the pairing-allocated bye and leave a complete pairing")
        return min(eligible, key=lambda n: (self.teams[n].score, -self.teams[n].matches, -n))

    # -- choosing a bracket (3.2, 3.5) -----------------------------------------------------------------------

    def next_bracket(self, remaining: set[int]) -> tuple[set[int], set[int]]:
        """The top scoregroup plus its upfloaters: fewest ([C4]), best profile ([C5]), then [C6], [C7], set order."""
        score = {n: self.teams[n].score for n in remaining}
        top = max(score.values())
        residents = {n for n in remaining if score[n] == top}
        pool = sorted((n for n in remaining if score[n] < top), key=lambda n: (-score[n], n))
        following = max((score[n] for n in pool), default=None)
        for k in range(len(residents) % 2, len(pool) + 1, 2):
            for sets in self._profiles(pool, k):
                best: tuple[tuple[int, int, int], set[int]] | None = None
                for index, upfloaters in enumerate(sets):
                    bracket = residents | set(upfloaters)
                    rest = remaining - bracket
                    if not (self.completable(bracket) and self.completable(rest)):
                        continue
                    c6 = 0 if self._following_pairs(rest, following) else 1
                    c7 = sum(1 for n in upfloaters if self.teams[n].floated) if self.float_rules else 0
                    key = (c6, c7, index)
                    if best is None or key < best[0]:
                        best = (key, set(upfloaters))
                    if c6 == 0 and c7 == 0:
                        break
                if best is not None:
                    return residents | best[1], best[1]
        raise NoValidPairing(f"the teams on {top} points cannot be paired with any upfloaters")

    def _profiles(self, pool: Sequence[int], k: int) -> Iterator[Iterator[tuple[int, ...]]]:
        return (sets for _, sets in upfloater_sets({n: self.teams[n].score for n in pool}, k))

    def _following_pairs(self, rest: set[int], following: Points | None) -> bool:
        """[C6]: the following scoregroup, unless emptied, can be paired in its own bracket with its parity
        minimum of upfloaters, the other teams staying pairable."""
        if following is None:
            return True
        group = {n for n in rest if self.teams[n].score == following}
        if not group:
            return True
        others = rest - group
        if len(group) % 2 == 0:
            return self.completable(group) and self.completable(others)
        lower = sorted(others, key=lambda n: (-self.teams[n].score, n))
        return any(self.completable(group | {u}) and self.completable(others - {u}) for u in lower)

    # -- pairing a bracket (3.6) -----------------------------------------------------------------------------

    def pair_bracket(self, bracket: Sequence[int], upfloaters: set[int]) -> list[tuple[int, int]]:
        """The first pairing in identifier order among the legal ones best on [C8] > [C9] > [C10]."""
        scale = len(bracket) + 1
        costs = {}
        for a, b in itertools.combinations(sorted(bracket), 2):
            if self.legal(a, b):
                c8, c9, c10 = self._pair_quality(a, b)
                costs[(a, b)] = c8 * scale * scale + c9 * scale + c10
        pairs = first_best(bracket, costs)
        if pairs is None:
            raise NoValidPairing("a chosen bracket has no legal pairing")  # next_bracket checked it: a bug
        return pairs

    def _pair_quality(self, a: int, b: int) -> tuple[int, int, int]:
        """[C8] a team denied its preference, [C9] (Type B) a strong one denied, [C10] the upfloater's
        opponent floated in the previous round."""
        pa, pb = self.teams[a].preference, self.teams[b].preference
        same = pa.colour is not None and pa.colour is pb.colour
        c8 = 1 if same else 0
        c9 = 1 if same and self.type_b and pa.strong and pb.strong else 0
        c10 = 0
        if self.float_rules and self.teams[a].score != self.teams[b].score:
            higher = a if self.teams[a].score > self.teams[b].score else b
            c10 = 1 if self.teams[higher].floated else 0
        return c8, c9, c10

    # -- colours (Art. 4) and board order ---------------------------------------------------------------------

    def first_team_key(self, number: int) -> tuple[Points, Points, int]:
        """Higher primary score, then higher secondary score (unless the rules drop it), then smaller number."""
        team = self.teams[number]
        secondary = team.secondary if self.rules.secondary_for_colours else Fraction(0)
        return (-team.score, -secondary, number)

    def colours(self, a: int, b: int) -> Board:
        """Art. 4: the first rule that decides the first board's colours."""
        first, other = sorted((a, b), key=self.first_team_key)
        colour = allocate(self.teams[first], self.teams[other], self.event.initial_colour, self.type_b)
        return Board(first, other) if colour is Colour.WHITE else Board(other, first)

    def board_order(self, pairs: Iterable[Board]) -> tuple[Board, ...]:
        """Matches as published: higher score, then lower score, then the first-team's number."""

        def key(board: Board) -> tuple[Points, Points, int]:
            sw, sb = self.teams[board.white].score, self.teams[board.black].score
            first = min((board.white, board.black), key=self.first_team_key)
            return (-max(sw, sb), -min(sw, sb), first)

        return tuple(sorted(pairs, key=key))


def allocate(first: TeamState, other: TeamState, initial: Colour, type_b: bool = False) -> Colour:
    """The first-team's first-board colour by Art. 4.3's rules 1-9."""
    if not first.colours and not other.colours:
        return initial if first.number % 2 else initial.opposite
    pf, po = first.preference, other.preference
    if pf.colour is not None and po.colour is None:
        return pf.colour
    if pf.colour is None and po.colour is not None:
        return po.colour.opposite
    if pf.colour is not None and po.colour is not None and pf.colour is not po.colour:
        return pf.colour
    if type_b and pf.colour is not None and po.colour is not None and pf.strong != po.strong:
        return pf.colour if pf.strong else po.colour.opposite
    if first.colour_difference != other.colour_difference:
        return Colour.WHITE if first.colour_difference < other.colour_difference else Colour.BLACK
    for mine, theirs in zip(reversed(first.colours), reversed(other.colours), strict=False):
        if mine is not theirs:
            return mine.opposite
    if pf.colour is not None:
        return pf.colour
    if first.colours:
        return first.colours[-1].opposite
    return other.colours[-1]


def identifier(pairs: Iterable[tuple[int, int]]) -> tuple[int, ...]:
    """A pairing's identifier (3.6.2): the smaller number of each pair ascending, then the larger ones in the
    same pair order."""
    ordered = sorted((min(a, b), max(a, b)) for a, b in pairs)
    return tuple(top for top, _ in ordered) + tuple(bottom for _, bottom in ordered)


def upfloater_sets(
    pool: Mapping[int, Points], k: int
) -> Iterator[tuple[tuple[Points, ...], Iterator[tuple[int, ...]]]]:
    """The k-sets of upfloaters from a pool (team -> score), by score profile, best [C5] first (the ascending
    scores compared, higher first); each profile's sets in the order of 3.5.4 (members by score then number,
    sets compared on those numbers)."""
    groups: list[list[int]] = []
    for number in sorted(pool, key=lambda n: (-pool[n], n)):
        if groups and pool[groups[-1][0]] == pool[number]:
            groups[-1].append(number)
        else:
            groups.append([number])
    counts = list(_compositions(k, [len(g) for g in groups]))

    def profile(count: tuple[int, ...]) -> tuple[Points, ...]:
        return tuple(sorted(pool[g[0]] for g, c in zip(groups, count, strict=True) for _ in range(c)))

    for count in sorted(counts, key=profile, reverse=True):
        choices = [itertools.combinations(g, c) for g, c in zip(groups, count, strict=True)]
        yield profile(count), (tuple(itertools.chain.from_iterable(p)) for p in itertools.product(*choices))


def first_best(members: Sequence[int], costs: Mapping[tuple[int, int], int]) -> list[tuple[int, int]] | None:
    """Among the perfect pairings of `members` over the allowed pairs (`costs` keys, smaller number first), the
    first in identifier order of those with the least total cost; None when there is none.

    A weighted matching gives the least cost; then the tops are fixed smallest first and each top's bottom
    smallest first, every choice kept only when some pairing of that least cost still completes it.
    """
    ordered = sorted(members)
    if not ordered:
        return []
    big = 1 + sum(costs.values())

    def best_cost(allowed: Iterable[tuple[int, int]], group: Sequence[int]) -> int | None:
        if not group:
            return 0
        local = {n: i for i, n in enumerate(group)}
        edges = [(local[a], local[b], big - costs[(a, b)]) for a, b in allowed]
        mate = max_weight_perfect_matching(len(group), edges)
        if mate is None:
            return None
        return sum(costs[(min(group[i], group[j]), max(group[i], group[j]))] for i, j in enumerate(mate) if i < j)

    target = best_cost(costs, ordered)
    if target is None:
        return None
    top: dict[int, bool] = {}

    def allowed(fixed: Mapping[int, int]) -> list[tuple[int, int]]:
        taken = set(fixed) | set(fixed.values())
        return [
            (a, b)
            for a, b in costs
            if top.get(a) is not False and top.get(b) is not True and a not in taken and b not in taken
        ]

    for number in ordered:
        top[number] = True
        if best_cost(allowed({}), ordered) != target:
            top[number] = False
    fixed: dict[int, int] = {}
    spent = 0
    for first in (n for n in ordered if top[n]):
        for second in ordered:
            if top[second] or second < first or second in fixed.values() or (first, second) not in costs:
                continue
            fixed[first] = second
            left = [n for n in ordered if n not in fixed and n not in fixed.values()]
            rest = best_cost(allowed(fixed), left)
            if rest is not None and spent + costs[(first, second)] + rest == target:
                spent += costs[(first, second)]
                break
            del fixed[first]
    return list(fixed.items())


def _compositions(total: int, limits: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every way to take `total` items from groups of these sizes."""
    if not limits:
        if total == 0:
            yield ()
        return
    for first in range(min(total, limits[0]), -1, -1):
        for rest in _compositions(total - first, limits[1:]):
            yield (first, *rest)


# --- TRF team records -------------------------------------------------------------------------------------------

_TYPE_192 = re.compile(r"FIDE_TEAM(?:_TYPE(?P<type>[AB]))?(?:_(?P<primary>MP|GP))?(?:_(?P<secondary>MP|GP))?(?:_BAKU)?")
_SCALE_362 = re.compile(r"T?([WDLP])\s*(-?\d+(?:\.\d*)?)")


def _number(text: str, tag: str, what: str) -> int:
    try:
        return int(text) if text.strip() else 0
    except ValueError:
        raise TeamError(f"record {tag}: {what} must be a whole number, got {text.strip()!r}") from None


def _points(text: str, tag: str, what: str) -> Points | None:
    if not text.strip():
        return None
    try:
        return Fraction(text.strip())
    except ValueError:
        raise TeamError(f"record {tag}: {what} must be a number like 1.5, got {text.strip()!r}") from None


def _col(line: str, first: int, last: int) -> str:
    return line[first - 1 : last]


def event_from_tournament(tournament: Tournament) -> TeamEvent:
    """The team event of a TRF-read tournament, from its team records (310, or TRF16's 013) and 192/320/352/362.

    TeamError when the file has no team records or they are inconsistent (a short roster, a player in two teams).
    """
    teams: list[Team] = []
    legacy: list[Team] = []
    pattern: str | None = None
    pab_points: tuple[Points | None, str] | None = None
    rules = TeamRules()
    for line in tournament.header:
        tag = line[:3]
        if tag == "310":
            teams.append(
                Team(
                    number=_number(_col(line, 5, 7), tag, "team number"),
                    name=_col(line, 9, 40).strip(),
                    players=_ids(line, 74, tag),
                    rating=_number(_col(line, 48, 53), tag, "strength"),
                )
            )
        elif tag == "013":
            legacy.append(Team(number=len(legacy) + 1, name=_col(line, 5, 36).strip(), players=_ids(line, 37, tag)))
        elif tag == "192":
            rules = _read_192(line[4:].strip().upper(), rules)
        elif tag == "352":
            pattern = line[4:].strip().upper()
        elif tag == "362":
            for letter, value in _SCALE_362.findall(line[4:].upper()):
                points = Fraction(value)
                if letter == "W":
                    rules = replace(rules, match_win=points)
                elif letter == "D":
                    rules = replace(rules, match_draw=points)
                elif letter == "L":
                    rules = replace(rules, match_loss=points)
                else:
                    rules = replace(rules, pab_match=points)
        elif tag == "320":
            pab_points = (_points(_col(line, 5, 8), tag, "PAB match points"), _col(line, 10, 13))
    chosen = teams or legacy
    if not chosen:
        raise TeamError("the file has no team records (310 or 013); a team event needs them")
    boards = len(pattern) if pattern else min(len(t.players) for t in chosen)
    rules = replace(rules, boards=boards, pattern=pattern or "WB")
    if pab_points is not None:
        # Values equal to the defaults (a drawn match) are read as the defaults, so the rules round-trip.
        pab_match = pab_points[0]
        pab_game = _points(pab_points[1], "320", "PAB game points")
        rules = replace(
            rules,
            pab_match=None if pab_match == rules.match_draw else pab_match,
            pab_game=None if pab_game == tournament.scoring.draw * boards else pab_game,
        )
    return TeamEvent(tournament, tuple(sorted(chosen, key=lambda t: t.number)), rules)


def _ids(line: str, first: int, tag: str) -> tuple[int, ...]:
    """The player ids of a team record: 4 columns each, from column `first`, one blank column apart."""
    ids = (_number(_col(line, start, start + 3), tag, "player id") for start in range(first, len(line) + 1, 5))
    return tuple(pid for pid in ids if pid > 0)


def _read_192(code: str, rules: TeamRules) -> TeamRules:
    """Record 192's FIDE_TEAM[_TYPEA|_TYPEB]_MP|GP[_GP|MP][_BAKU]: the colour type and the scores' roles."""
    match = _TYPE_192.fullmatch(code)
    if match is None:
        return rules
    if match["type"]:
        colours = ColourType(match["type"])
    else:
        colours = ColourType.A if match["primary"] is None else ColourType.NONE
    primary = Primary(match["primary"]) if match["primary"] else Primary.MP
    secondary = match["secondary"] is not None or match["primary"] is None
    return replace(rules, colours=colours, primary=primary, secondary_for_colours=secondary)


def team_records(event: TeamEvent) -> list[str]:
    """The TRF header records of a team event: 192, 352, 362, one 310 per team, 320 and 330."""
    rules, game = event.rules, event.tournament.scoring
    kind = {ColourType.A: "_TYPEA", ColourType.B: "_TYPEB", ColourType.NONE: ""}[rules.colours]
    secondary = Primary.GP if rules.primary is Primary.MP else Primary.MP
    code = f"FIDE_TEAM{kind}_{rules.primary.value}" + (f"_{secondary.value}" if rules.secondary_for_colours else "")
    scale = "    ".join(
        f"{letter}{format_points(value)}"
        for letter, value in (("W", rules.match_win), ("D", rules.match_draw), ("L", rules.match_loss))
    )
    lines = [f"192 {code}", f"352 {rules.pattern}", f"362  {scale}"]
    ranks = _ranks(event)
    for team in event.teams:
        head = (
            f"310 {team.number:3d} {team.name[:32]:<32} {'':5} {team.rating:6d} "
            f"{format_points(event.match_points(team.number), 6)} {format_points(event.game_points(team.number), 6)} "
            f"{ranks[team.number]:3d}"
        )
        lines.append(head + "  " + " ".join(f"{pid:4d}" for pid in team.players))
    rounds = event.rounds_completed
    byes = [
        next((t.number for t in event.teams if event.record(t.number, r).kind is RecordKind.PAB), 0)
        for r in range(1, rounds + 1)
    ]
    lines.append(
        f"320 {format_points(rules.pab_match_points)} {format_points(rules.pab_game_points(game))}"
        + "".join(f" {t:3d}" for t in byes)
    )
    for r in range(1, rounds + 1):
        for team in event.teams:
            rec = event.record(team.number, r)
            if rec.kind not in (RecordKind.FORFEIT_WIN, RecordKind.FORFEIT_LOSS) or rec.colour is not Colour.WHITE:
                continue
            assert rec.opponent is not None
            theirs = event.record(rec.opponent, r).kind
            mark = "+" if rec.kind is RecordKind.FORFEIT_WIN else "-"
            other = "+" if theirs is RecordKind.FORFEIT_WIN else "-"
            lines.append(f"330 {mark}{other} {r:3d} {team.number:3d} {rec.opponent:3d}")
    return lines


def _ranks(event: TeamEvent) -> dict[int, int]:
    """Ranks by primary then secondary score (ties share a rank) for record 310's informative column."""
    keyed = {t.number: (event.score(t.number), event.secondary(t.number)) for t in event.teams}
    ordered = sorted(keyed.values(), reverse=True)
    return {n: ordered.index(k) + 1 for n, k in keyed.items()}


def to_tournament(event: TeamEvent) -> Tournament:
    """The players' tournament with the team records in its header, ready for `trf.dumps`."""
    kept = tuple(line for line in event.tournament.header if line[:3] not in TEAM_TAGS)
    return replace(event.tournament, header=(*kept, *team_records(event)))
