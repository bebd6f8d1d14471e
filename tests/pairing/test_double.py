"""The Double-Swiss system (C.04.5): the reference document's worked example, its match rules, and generated events
that the checker passes."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairing import checker, generator, systems, trf
from pairing.errors import NoValidPairing
from pairing.model import Board, Colour, Outcome, Pairing, Player, RecordKind, RoundRecord, Tournament, result_records
from pairing.systems import double
from tests.support.paths import ROOT


def six(extra: int = 0, matches: int = 5) -> Tournament:
    """Six players (TPN 1-6) and `extra` more, initial colour White, `matches` two-game matches."""
    players = tuple(Player(number=n, name=f"P{n}", rating=2100 - n) for n in range(1, 7 + extra))
    return Tournament(players=players, total_rounds=2 * matches, initial_colour=Colour.WHITE)


def play(event: Tournament, game_round: int, games: list[tuple[int, int, Outcome]]) -> Tournament:
    records: dict[int, RoundRecord] = {}
    for white, black, outcome in games:
        records.update(result_records(white, black, outcome))
    return event.with_round(game_round, records)


def after_match_one() -> Tournament:
    """§5.7: 1-4 2-0, 5-2 ½-1½, 3-6 1-1 (first named White in game 1, colours reversed in game 2)."""
    event = play(six(), 1, [(1, 4, Outcome.WIN), (5, 2, Outcome.DRAW), (3, 6, Outcome.DRAW)])
    return play(event, 2, [(4, 1, Outcome.LOSS), (2, 5, Outcome.WIN), (6, 3, Outcome.DRAW)])


def test_worked_example_round_one() -> None:
    assert double.pair(six()).lines() == ["3", "1 4", "5 2", "3 6"]


def test_worked_example_round_one_with_a_seventh_player_gives_him_the_bye() -> None:
    assert double.pair(six(extra=1)).lines() == ["4", "1 4", "5 2", "3 6", "7 0"]


def test_the_second_game_of_a_match_reverses_the_colours() -> None:
    event = play(six(), 1, [(1, 4, Outcome.WIN), (5, 2, Outcome.DRAW), (3, 6, Outcome.DRAW)])
    assert double.pair(event).lines() == ["3", "4 1", "2 5", "6 3"]


def test_worked_example_round_two() -> None:
    event = after_match_one()
    views = event.views(3)
    assert [views.score(n) for n in range(1, 7)] == [2, 1.5, 1, 0, 0.5, 1]
    # Brackets {1,2} (one upfloater, the best score) and {3,6} + {4,5} (3-6 met): 3-5, 4-6; colours by Art. 4.
    assert double.pair(event).lines() == ["3", "2 1", "5 3", "6 4"]


def test_a_match_where_a_player_forfeited_both_games_is_no_meeting_and_wins_the_other_no_bye() -> None:
    event = six(matches=3)
    records: dict[int, RoundRecord] = {}
    for game_round in (1, 2):
        records = {}
        for white, black in ((1, 4), (2, 5), (3, 6)) if game_round == 1 else ((4, 1), (5, 2), (6, 3)):
            records.update(result_records(white, black, Outcome.DRAW))
        # 6 never came: both games lost by forfeit to 3.
        records.update(result_records(3, 6, Outcome.WIN, forfeit=True))
        event = event.with_round(game_round, records)
    views = event.views(3)
    three = double.entrant(views, 3, 2)
    assert 6 not in three.met and not three.pab_eligible  # a match won by forfeit blocks the PAB ([C2])
    assert 1 in double.entrant(views, 4, 2).met


def test_a_match_one_player_forfeited_with_a_double_forfeit_second_game_is_no_meeting_from_either_side() -> None:
    """C.04.5: a match counts as forfeited, and so as no meeting ([C1]), when at least one player forfeits both
    games. 2 lost game 1 by forfeit and game 2 was a double forfeit: 2 forfeited both games, so 1 and 2 have not
    met whichever player's records are read (1's show a forfeit win and a forfeit loss), and 1-2, the only
    pairing of match 2, is legal. 1 won that match by forfeit, so 1 may not have a PAB ([C2]); 2 may."""
    event = Tournament(players=six().players[:2], total_rounds=4, initial_colour=Colour.WHITE)
    event = event.with_round(1, result_records(1, 2, Outcome.WIN, forfeit=True))
    event = event.with_round(2, result_records(2, 1, Outcome.LOSS, double_forfeit=True))
    views = event.views(3)
    winner, loser = double.entrant(views, 1, 2), double.entrant(views, 2, 2)
    assert 2 not in winner.met and 1 not in loser.met
    assert not winner.pab_eligible and loser.pab_eligible
    pairing = double.pair(event)
    assert {frozenset((b.white, b.black)) for b in pairing.boards} == {frozenset((1, 2))}
    assert checker.check_round(event, 3, pairing, "double") == []
    assert checker.legal_pairing(event, 3, "double") is not None


def test_one_forfeited_game_leaves_the_match_a_meeting() -> None:
    event = play(six(matches=3), 1, [(1, 4, Outcome.WIN), (2, 5, Outcome.DRAW), (3, 6, Outcome.DRAW)])
    records = dict(result_records(4, 1, Outcome.LOSS, forfeit=True))
    records.update(result_records(5, 2, Outcome.DRAW))
    records.update(result_records(6, 3, Outcome.DRAW))
    event = event.with_round(2, records)
    assert 4 in double.entrant(event.views(3), 1, 2).met


def test_a_match_where_each_player_forfeited_one_game_is_a_meeting_for_the_legality_oracle_too() -> None:
    # No game was played over the board, but nobody forfeited both games: the match counts as played ([C1]).
    event = Tournament(players=six().players[:2], total_rounds=4, initial_colour=Colour.WHITE)
    event = event.with_round(1, result_records(1, 2, Outcome.WIN, forfeit=True))
    event = event.with_round(2, result_records(2, 1, Outcome.WIN, forfeit=True))
    assert 2 in double.entrant(event.views(3), 1, 2).met
    assert checker.legal_pairing(event, 3, "double") is None
    with pytest.raises(NoValidPairing):
        double.pair(event)


def test_no_pairing_is_a_clear_error() -> None:
    event = play(Tournament(players=six().players[:2], total_rounds=4), 1, [(1, 2, Outcome.WIN)])
    event = play(event, 2, [(2, 1, Outcome.WIN)])
    with pytest.raises(NoValidPairing):
        double.pair(event)


def test_double_swiss_is_an_events_system_of_two_game_matches() -> None:
    double_swiss = systems.named("double")
    assert double_swiss.two_game_matches and not double_swiss.team and not double_swiss.accelerable
    assert "double" in systems.choices()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(3, 24), matches=st.integers(1, 5))
def test_generated_double_swiss_events_pass_the_checker(seed: int, players: int, matches: int) -> None:
    event = generator.generate(seed, players, 2 * matches, pair=double.pair, two_game_matches=True)
    assert event.rounds_completed % 2 == 0
    for game_round in range(2, event.rounds_completed + 1, 2):
        for player in event.players:
            first, second = player.record(game_round - 1), player.record(game_round)
            if first.opponent is not None and first.is_played and second.is_played:
                assert second.opponent == first.opponent and second.colour is not first.colour
            if first.kind is RecordKind.PAB:
                assert second.kind is RecordKind.HALF_BYE  # the PAB: a game won and one drawn
    assert checker.check_tournament(event, "double") == []


def test_swissbot_generate_and_check_a_double_swiss_event(tmp_path: Path) -> None:
    path = tmp_path / "double.trf"
    run = [sys.executable, "-m", "bot.cli"]
    made = subprocess.run(
        [*run, "generate", "--system", "double", "--players", "11", "--rounds", "4", "-o", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    assert trf.read(str(path)).rounds_completed == 8  # two game columns a match
    checked = subprocess.run([*run, "check", "--system", "double", str(path)], cwd=ROOT, capture_output=True, text=True)
    assert checked.returncode == 0 and "no discrepancy" in checked.stderr, checked.stdout + checked.stderr


def test_swissbot_pair_gives_the_worked_example(tmp_path: Path) -> None:
    path = tmp_path / "round2.trf"
    path.write_text(trf.dumps(after_match_one()))
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "pair", "--system", "double", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3", "2", "1", "5", "3", "6", "4"]


def test_the_checker_flags_a_rematch_and_a_second_game_that_is_not_the_first_reversed() -> None:
    event = after_match_one()
    rematch = Pairing((Board(4, 1), Board(2, 5), Board(3, 6)), None)
    kinds = {d.kind for d in checker.check_round(event, 3, rematch, "double")}
    assert kinds == {checker.DiscrepancyKind.REMATCH}
    first = play(six(), 1, [(1, 4, Outcome.WIN), (5, 2, Outcome.DRAW), (3, 6, Outcome.DRAW)])
    same_colours = Pairing((Board(1, 4), Board(2, 5), Board(6, 3)), None)
    found = checker.check_round(first, 2, same_colours, "double")
    assert [d.message for d in found] == ["1-4 is not the first game of its match (1) with colours reversed"]
    assert checker.check_round(first, 2, double.pair(first), "double") == []


def test_upfloater_sets_come_in_the_texts_order() -> None:
    # 3.5.4's example: 2, 6, 8 on 3 points and 1, 3, 5 on 2½; two upfloaters with 3 and one with 2½.
    from types import SimpleNamespace

    three, two_half = Fraction(3), Fraction(5, 2)
    scores = {2: three, 6: three, 8: three, 1: two_half, 3: two_half, 5: two_half}
    bracket = double.MatchRound.__new__(double.MatchRound)
    bracket.entrants = {n: SimpleNamespace(score=s) for n, s in scores.items()}
    sets = list(bracket._sets(sorted(scores), (three, three, two_half)))
    assert sets == [(2, 6, 1), (2, 6, 3), (2, 6, 5), (2, 8, 1), (2, 8, 3), (2, 8, 5), (6, 8, 1), (6, 8, 3), (6, 8, 5)]


def test_a_first_game_forfeit_written_without_colours_still_has_its_second_game() -> None:
    event = six(matches=2)
    records = dict(result_records(1, 4, Outcome.WIN, forfeit=True))
    records = {n: replace(r, colour=None) for n, r in records.items()}  # as other programs write a forfeit
    records.update(result_records(5, 2, Outcome.DRAW))
    records.update(result_records(3, 6, Outcome.DRAW))
    event = event.with_round(1, records)
    second = double.pair(event)
    assert {frozenset((b.white, b.black)) for b in second.boards} == {frozenset(p) for p in ((1, 4), (2, 5), (3, 6))}
