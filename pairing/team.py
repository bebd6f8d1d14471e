"""The Swiss Team Pairing System (FIDE C.04.6, 2026): teams paired by match points, colours board 1's.

A team event is a `Tournament` whose players are the teams (number = TPN) and whose records are matches: the
opponent, the colour of the team's first board, and the match result scored in match points (2/1/0 by default:
`Scoring(win=2, draw=1, loss=0, pab=1)`, the PAB worth a drawn match, C.04.6 1.4). Game points, the secondary
score, are optional (`game_points`, by team before the round): they only choose the "first-team" of a pair
for colours; without them, match points then TPN decide. Forfeited matches are no meeting (GHR 3.5) and a
forfeit win blocks the PAB ([C2]). There are no colour limits (Preface).

The procedure is the Double-Swiss one (`pairing.double`, §6.6 of fide-other-systems.md): the PAB first (3.4),
then each top scoregroup plus the fewest and best upfloaters ([C4]-[C7]; [C7] except in the last two rounds), a
bracket paired by the first legal pairing in identifier order among those best on [C8] (teams whose colour
preference is not granted), [C9] (Type B: strong preferences not granted) and [C10] (upfloaters' opponents who
floated, except in the last two rounds), then colours by Art. 4's nine rules. Colour preferences are Type A by
default, Type B or none by the competition's rules (`preference`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from pairing.double import MatchRound
from pairing.model import Board, Colour, Pairing, Points, RecordKind, RoundViews, Tournament

PREFERENCE_TYPES = ("A", "B", "none")


@dataclass(frozen=True)
class TeamEntrant:
    """What the procedure needs of a team before a round."""

    number: int
    score: Points
    game_points: Points
    met: frozenset[int]
    pab_eligible: bool
    matches_played: int
    colours: tuple[Colour, ...]  # board-1 colours of the matches actually played, oldest first
    floated: bool
    preference: Colour | None
    strong: bool


def colour_preference(colours: tuple[Colour, ...], kind: str, last_round: bool) -> tuple[Colour | None, bool]:
    """C.04.6 1.7: the preferred colour and whether it is strong (Type B), from the played matches' colours."""
    if kind == "none" or not colours:
        return None, False
    cd = sum(1 if c is Colour.WHITE else -1 for c in colours)
    last_two = colours[-2:] if len(colours) >= 2 else ()
    two_black = len(last_two) == 2 and all(c is Colour.BLACK for c in last_two)
    two_white = len(last_two) == 2 and all(c is Colour.WHITE for c in last_two)
    strong = kind == "B"
    if cd <= -2 or (cd in (0, -1) and two_black):
        return Colour.WHITE, strong
    if cd >= 2 or (cd in (0, 1) and two_white):
        return Colour.BLACK, strong
    if kind == "A":
        return None, False
    if cd == -1:
        return Colour.WHITE, False
    if cd == 1:
        return Colour.BLACK, False
    return (None, False) if last_round else (colours[-1].opposite, False)


def entrant(views: RoundViews, number: int, kind: str, game_points: Mapping[int, Points] | None = None) -> TeamEntrant:
    """A team's score, meetings, PAB eligibility, colours, float and colour preference before the round."""
    met: set[int] = set()
    colours: list[Colour] = []
    played = 0
    eligible = True
    history = views.history(number)
    for rec in history:
        if rec.kind in (RecordKind.PAB, RecordKind.FULL_BYE, RecordKind.FORFEIT_WIN):
            eligible = False
        if rec.opponent is not None and rec.kind is RecordKind.PLAYED:
            met.add(rec.opponent)
            played += 1
            if rec.colour is not None:
                colours.append(rec.colour)
    floated = False
    if history and history[-1].opponent is not None and history[-1].kind is RecordKind.PLAYED:
        before = len(history)
        floated = views.score(number, before) != views.score(history[-1].opponent, before)
    preference, strong = colour_preference(tuple(colours), kind, views.is_last_round)
    gp = (game_points or {}).get(number, Fraction(0))
    return TeamEntrant(
        number, views.score(number), gp, frozenset(met), eligible, played, tuple(colours), floated, preference, strong
    )


def pair(
    tournament: Tournament,
    round_number: int | None = None,
    *,
    preference: str = "A",
    game_points: Mapping[int, Points] | None = None,
) -> Pairing:
    """Pair a round of teams by C.04.6 (`preference`: the colour preference type, A, B or none)."""
    if preference not in PREFERENCE_TYPES:
        raise ValueError(f"unknown colour preference type {preference!r} (known: {', '.join(PREFERENCE_TYPES)})")
    game_round = tournament.round_to_pair if round_number is None else round_number
    return _TeamRound(tournament, game_round, preference, game_points).run()


class _TeamRound(MatchRound):
    """The Double-Swiss procedure with the team criteria and Art. 4's colours."""

    def __init__(
        self, tournament: Tournament, round_number: int, kind: str, game_points: Mapping[int, Points] | None
    ) -> None:
        self.tournament = tournament
        self.views = tournament.views(round_number)
        self.match = round_number
        self.last = round_number >= tournament.total_rounds
        self.floats_count = round_number < tournament.total_rounds - 1  # [C7], [C10]: not in the last two rounds
        self.kind = kind
        numbers = sorted(self.views.to_pair())
        self.teams = {n: entrant(self.views, n, kind, game_points) for n in numbers}
        self.entrants = self.teams

    def pair_costs(self, bracket: list[int], upfloaters: set[int]) -> dict[tuple[int, int], int]:
        """[C8], then [C9], then [C10] per pair, weighted so that the totals compare lexicographically."""
        scale = len(bracket) + 1  # a total of a lower criterion never reaches one unit of the one above
        out: dict[tuple[int, int], int] = {}
        for a, b in itertools.combinations(sorted(bracket), 2):
            ta, tb = self.teams[a], self.teams[b]
            same = ta.preference is not None and ta.preference is tb.preference
            c8 = int(same)
            c9 = int(same and self.kind == "B" and ta.strong and tb.strong)
            c10 = self.floated_opponents(a, b, upfloaters)
            out[(a, b)] = (c8 * scale + c9) * scale + c10
        return out

    def colour(self, a: int, b: int) -> Board:
        """Art. 4: board 1's White by the first of the nine rules that decides."""
        ta, tb = self.teams[a], self.teams[b]
        first, other = (ta, tb) if (ta.score, ta.game_points, -a) > (tb.score, tb.game_points, -b) else (tb, ta)
        white = self._white(first, other)
        return Board(white.number, (tb if white is ta else ta).number)

    def _white(self, first: TeamEntrant, other: TeamEntrant) -> TeamEntrant:
        if not first.colours and not other.colours:  # 1
            initial = self.tournament.initial_colour or Colour.WHITE
            mine = initial if first.number % 2 else initial.opposite
            return first if mine is Colour.WHITE else other
        pf, po = first.preference, other.preference
        if (pf is None) != (po is None):  # 2
            team, wanted = (first, pf) if pf is not None else (other, po)
            return team if wanted is Colour.WHITE else (other if team is first else first)
        if pf is not None and po is not None and pf is not po:  # 3
            return first if pf is Colour.WHITE else other
        if self.kind == "B" and first.strong != other.strong:  # 4 (a strong preference is a preference)
            team = first if first.strong else other
            return team if team.preference is Colour.WHITE else (other if team is first else first)
        cd_first = sum(1 if c is Colour.WHITE else -1 for c in first.colours)
        cd_other = sum(1 if c is Colour.WHITE else -1 for c in other.colours)
        if cd_first != cd_other:  # 5
            return first if cd_first < cd_other else other
        for cf, co in zip(reversed(first.colours), reversed(other.colours), strict=False):  # 6
            if cf is not co:
                return first if cf is Colour.BLACK else other
        if pf is not None:  # 7
            return first if pf is Colour.WHITE else other
        if first.colours:  # 8
            return first if first.colours[-1] is Colour.BLACK else other
        if other.colours:  # 9
            return other if other.colours[-1] is Colour.BLACK else first
        return first


def boards(first_board_white: bool, board_count: int, pattern: str = "WB") -> list[bool]:
    """Whether the team that has White on board 1 has White on each board (TRF 352's pattern, WBWB by default)."""
    cycle = [c == "W" for c in pattern.upper()]
    colours = [cycle[i % len(cycle)] for i in range(board_count)]
    return colours if first_board_white else [not c for c in colours]
