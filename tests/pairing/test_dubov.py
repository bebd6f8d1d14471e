"""The Dubov system (C.04.4.1): the reference document's vectors, its sorting rules, and its absolute criteria
on generated events."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli import main as swissbot
from pairing import checker, generator, trf
from pairing.errors import NoValidPairing
from pairing.model import (
    Colour,
    Outcome,
    Player,
    PreferenceStrength,
    RecordKind,
    RoundRecord,
    Tournament,
    result_records,
)
from pairing.systems import dubov
from tests.support.data import corpus

BURSTEIN = corpus() / "burstein"


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("0089", "4\n4 1\n2 5\n6 3\n7 0\n"),  # §3.9 round 1: P7 takes the bye; halves by number; rule 1 colours
        ("0090", "4\n1 7\n5 2\n3 4\n6 0\n"),  # §3.9 round 2: upfloater P5 over P4 on [C7]; P6 takes the bye
    ],
)
def test_the_reference_documents_vectors(case: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert swissbot(["pair", "--system", "dubov", str(BURSTEIN / f"{case}.trf")]) == 0
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize(
    ("items", "order"),
    [("ABCDEFG", "DCEBFAG"), ("ABCDEF", "CDBEAF"), ("AB", "AB"), ("A", "A")],
)
def test_shifters_are_numbered_from_the_middle_outwards(items: str, order: str) -> None:
    numbered = dubov.middle_out([ord(c) for c in items])
    assert "".join(chr(n) for n in numbered) == order


@pytest.mark.slow
@given(seed=st.integers(1, 10_000), players=st.integers(5, 26), rounds=st.integers(3, 7))
@settings(max_examples=60, deadline=None)
def test_generated_events_meet_the_absolute_criteria(seed: int, players: int, rounds: int) -> None:
    event = generator.generate(seed, players, rounds, pair=dubov.pair)
    assert checker.check_tournament(event, None) == []  # C1 no rematch, C2 the bye, a legal round each time
    assert checker.check_tournament(event, "dubov") == []  # and the engine pairs each round the same again
    for number in range(1, event.rounds_completed + 1):
        views = event.views(number)
        for player in event.players:
            rec = player.record(number)
            if rec.is_played and rec.opponent is not None and player.number < rec.opponent:
                a, b = views.preference(player.number), views.preference(rec.opponent)
                both_absolute = a.strength is b.strength is PreferenceStrength.ABSOLUTE
                assert not (both_absolute and a.colour is b.colour), f"C3 broken in round {number}"


def test_a_player_who_has_not_played_prefers_black() -> None:
    event = generator.generate(3, 6, 3, pair=dubov.pair, stop_after=0)
    first = dubov._Round(event.views(1), [p.number for p in event.players])
    assert {p.preference for p in first.players.values()} == {Colour.BLACK}
    assert {p.strength for p in first.players.values()} == {PreferenceStrength.MILD}


def test_swissbot_check_on_a_generated_dubov_event_reports_nothing(tmp_path: Path) -> None:
    event = generator.generate(5, 15, 6, pair=partial(dubov.pair))
    path = tmp_path / "dubov.trf"
    path.write_text(trf.dumps(event), encoding="utf-8")
    assert swissbot(["check", "--system", "dubov", str(path)]) == 0


def _event(
    ratings: list[int], rounds: int, games: list[list[tuple[int, int, Outcome] | tuple[int, RecordKind]]]
) -> Tournament:
    """Players 1..n with these ratings; each round's games (white, black, White's result) and byes (player, kind)."""
    players = tuple(Player(number=n, name=f"P{n}", rating=r) for n, r in enumerate(ratings, start=1))
    event = Tournament(players=players, total_rounds=rounds, initial_colour=Colour.WHITE)
    for number, played in enumerate(games, start=1):
        records: dict[int, RoundRecord] = {}
        for entry in played:
            if len(entry) == 3:
                records.update(result_records(*entry))
            else:
                records[entry[0]] = RoundRecord(entry[1])
        event = event.with_round(number, records)
    return event


def test_a_pair_the_smaller_group_cannot_avoid_moves_one_of_its_players_across() -> None:
    """Four players, round 3 of 3: 1 and 3 drew in round 1 (2 had a half-point bye, 4 the PAB); in round 2 1 beat 4
    and 3 beat 2. Scores 1 and 3 1½, 4 1, 2 ½. The only pairing without a rematch is 1-2 / 3-4, and no one has an
    absolute colour preference ([C3]), so it is legal and the round must be paired: 1-3 have met, so the bracket
    is everyone (4 and 2 upfloat). G1 (White seekers) = {3, 4}, G2 = {1, 2}: across, only 4-2 is legal, and it
    leaves 3-1, a rematch; G1 must pair 3-4 within itself. Art. 3.2.4 step 1: when players of the smaller subgroup
    (G1 on equal sizes) must unavoidably be paired together, as many of them as there are such pairs (one) move
    to the other subgroup, and step 2 evens the sizes again; then S1 meets G2's first legal transposition.
    Colours (Art. 5): 2 (strong) keeps Black against 1 (mild), 4 (strong) has White against 3 (mild)."""
    event = _event(
        [2290, 1783, 1739, 1631],
        3,
        [
            [(3, 1, Outcome.DRAW), (2, RecordKind.HALF_BYE), (4, RecordKind.PAB)],
            [(1, 4, Outcome.WIN), (2, 3, Outcome.LOSS)],
        ],
    )
    assert dubov.pair(event).lines() == ["2", "4 3", "1 2"]


def test_the_best_upfloater_set_is_kept_when_its_bracket_must_pair_within_a_group() -> None:
    """Round 4 of 6 (8 has a half-point bye, 6 on ½ takes the PAB): 2 and 3 (2½) drew in round 2, so two upfloaters
    join them; [C6] wants the best scores, 1 and 5 (2 points each), and the bracket {1, 2, 3, 5} has a legal
    pairing, 2-5 / 1-3 (1 met 2 and 5, 2 met 3), with 4-7 left legal below. G1 (White seekers) = {2, 5}, G2 =
    {1, 3}: 2 meets nobody across, so 2-5 is unavoidable within G1 and Art. 3.2.4 moves one of them across; taking
    a 1-point upfloater instead (4 with 5) breaks [C6]."""
    event = _event(
        [1908, 1868, 1853, 1779, 1777, 1518, 1304, 1107],
        6,
        [
            [(1, 5, Outcome.WIN), (6, 2, Outcome.LOSS), (3, 7, Outcome.WIN), (8, 4, Outcome.LOSS)],
            [(4, 1, Outcome.LOSS), (2, 3, Outcome.DRAW), (5, 8, Outcome.WIN), (7, 6, Outcome.DRAW)],
            [(1, 2, Outcome.LOSS), (3, 4, Outcome.WIN), (6, 5, Outcome.LOSS), (8, 7, Outcome.LOSS)],
            [(8, RecordKind.HALF_BYE)],
        ],
    )
    assert dubov.pair(event).lines() == ["4", "2 5", "1 3", "7 4", "6 0"]


def test_players_who_all_met_cannot_be_paired() -> None:
    event = _event([2000, 1900], 3, [[(1, 2, Outcome.WIN)]])
    with pytest.raises(NoValidPairing):
        dubov.pair(event)
