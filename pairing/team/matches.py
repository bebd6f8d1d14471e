"""Building a team event and writing its matches: board colours, match results, strength order, results."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from pairing.errors import TeamError
from pairing.model import (
    Colour,
    Outcome,
    Player,
    Points,
    RecordKind,
    RoundRecord,
    Tournament,
    exact_sum,
    result_records,
)
from pairing.team.model import Team, TeamEvent, TeamRules


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
