"""A team round laid out as board games (bot.director.teams): line-ups from the rosters with reserves stepping
in, a team a player short defaulting a board, one with nobody sitting out, colours alternating from board 1, the
PAB to each board player."""

from __future__ import annotations

from bot.director.teams import lay_out, line_ups
from pairing.model import Player, RecordKind, RoundRecord
from pairing.team.matches import new_event
from pairing.team.model import TeamEvent, TeamRules


def _event(rosters: list[tuple[str, list[int]]], boards: int = 2) -> TeamEvent:
    players = [Player(n, f"p{n}", 2000 - 10 * n) for n in range(1, 1 + max(p for _, r in rosters for p in r))]
    return new_event(players, rosters, rounds=3, rules=TeamRules(boards=boards), by_strength=False)


def _with_round_one(event: TeamEvent, records: dict[int, RecordKind]) -> TeamEvent:
    tournament = event.tournament.with_round(1, {p: RoundRecord(kind) for p, kind in records.items()})
    return TeamEvent(tournament, event.teams, event.rules)


def test_reserves_step_in_for_a_withdrawn_player_and_a_requested_bye() -> None:
    event = _event([("A", [1, 2, 3, 4]), ("B", [5, 6]), ("C", [7, 8, 9])])
    event = _with_round_one(event, {1: RecordKind.ZERO_BYE, 3: RecordKind.HALF_BYE})
    fielded = line_ups(event, 1)
    assert fielded == {1: (2, 4), 2: (5, 6), 3: (7, 8)}  # A: 1 withdrawn, 3 on a bye: 2 and the reserve 4


def test_a_team_a_player_short_defaults_its_last_board_and_one_with_nobody_sits_out() -> None:
    event = _event([("A", [1, 2, 3]), ("B", [4, 5]), ("C", [6, 7]), ("D", [8, 9])])
    event = _with_round_one(event, {4: RecordKind.ZERO_BYE, 8: RecordKind.HALF_BYE, 9: RecordKind.ZERO_BYE})
    fielded = line_ups(event, 1)
    assert fielded[2] == (4, 5)  # B: the absent 4 stays on board 1 (roster order), 5 plays board 2
    assert 4 not in fielded  # D (team 4): nobody available
    laid, pairing = lay_out(event, 1)
    assert laid.short == ("D",) and laid.defaulted == frozenset({4})
    assert laid.boards == ((1, 4), (5, 2))  # A v B: board 1 has B's absent 4, who defaults it
    assert laid.byes == {6: RecordKind.PAB, 7: RecordKind.PAB}  # C has the PAB; 4 keeps no record of his own
    assert pairing.bye == 3


def test_colours_alternate_from_board_one_and_the_pab_reaches_every_board_player() -> None:
    event = _event([("A", [1, 2, 3, 4, 5]), ("B", [6, 7, 8, 9]), ("C", [10, 11, 12, 13])], boards=4)
    laid, pairing = lay_out(event, 1)
    assert pairing.bye is not None
    bye_team = event.team(pairing.bye)
    assert laid.byes == {p: RecordKind.PAB for p in bye_team.players[:4]}  # a reserve gets no record
    (match,) = pairing.boards
    white_team, black_team = event.team(match.white).players, event.team(match.black).players
    assert list(laid.boards) == [
        (white_team[0], black_team[0]),
        (black_team[1], white_team[1]),
        (white_team[2], black_team[2]),
        (black_team[3], white_team[3]),
    ]
