"""TRF reading and writing."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from pairing import trf
from pairing.model import Colour, Outcome, Player, RecordKind, RoundRecord, Tournament, result_records
from pairing.systems.dutch import pair
from tests.support.data import corpus
from tests.support.paths import SHARED

EXAMPLE = SHARED / "reference" / "fide-examples" / "example_trf16.trf"
CORPUS_FILES = sorted(corpus().glob("*/*.trf"))


def _engine_view(t: Tournament) -> Tournament:
    return replace(t, players=tuple(replace(p, declared_points=None) for p in t.players), header=())


def test_example_reads_every_field() -> None:
    t = trf.read(str(EXAMPLE))
    assert t.total_rounds == 4
    assert t.initial_colour is Colour.WHITE
    alder = t.player(1)
    assert (alder.name, alder.rating, alder.title, alder.federation) == ("Alder, Anna", 2150, "WFM", "NOR")
    assert alder.rounds[0].opponent == 3 and alder.rounds[0].colour is Colour.WHITE
    assert alder.rounds[2].outcome is Outcome.DRAW
    assert t.player(2).rounds[2].kind is RecordKind.FORFEIT_LOSS
    assert t.player(3).rounds[2].kind is RecordKind.FORFEIT_WIN
    assert t.player(3).rounds[1].kind is RecordKind.HALF_BYE
    assert t.player(5).rounds[0].kind is RecordKind.PAB


def test_example_writes_back_byte_for_byte() -> None:
    text = EXAMPLE.read_text()
    assert trf.dumps(trf.parse(text)) == text


@pytest.mark.slow
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_round_trip_keeps_what_the_engine_uses(path: Path) -> None:
    t = trf.read(str(path))
    again = trf.parse(trf.dumps(t))
    assert _engine_view(again) == _engine_view(t)


@pytest.mark.parametrize("ending", ["\n", "\r", "\r\n"])
def test_line_ends(ending: str) -> None:
    text = EXAMPLE.read_text().replace("\n", ending)
    assert _engine_view(trf.parse(text)) == _engine_view(trf.read(str(EXAMPLE)))


def _line(number: int, rounds: str = "") -> str:
    return f"001 {number:4d}      {'Player':<33} 1500                             0.0 {number:4d}{rounds}"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", None, "no player records"),
        (f"XXR 3\n{_line(1, '     9 w 1')}\n", 2, "opponent 9"),
        (f"XXR 3\n{_line(1)}\n{_line(1)}\n", 3, "appears twice"),
        ("XXR x\n", 1, "whole number"),
        (f"XXR 3\n{_line(1, '     2 q 1')}\n{_line(2, '     1 b 0')}\n", 2, "colour"),
        (f"XXR 3\n{_line(1, '     2 w 1')}\n{_line(2, '     1 w 0')}\n", 2, "disagree"),
        (f"XXR 3\n{_line(1, '     2 w  ')}\n{_line(2, '     1 b 0')}\n", 2, "no result"),
        ("hello world\n", 1, "not a TRF record"),
    ],
)
def test_malformed_input_names_the_line(text: str, line: int | None, words: str) -> None:
    with pytest.raises(trf.TrfError) as err:
        trf.parse(text)
    assert err.value.line == line
    assert words in str(err.value)


def test_missing_round_count_is_an_error_only_when_required() -> None:
    text = "001    1      A                                                      0.0    1\n"
    with pytest.raises(trf.TrfError, match="number of rounds"):
        trf.parse(text)
    assert trf.parse(text, require_rounds=False).total_rounds == 1


def test_acceleration_records_250_and_xxa_agree() -> None:
    by_250 = trf.parse(
        "XXR 4\n250       1.0 001 001 0001 0002\n250       0.5 002 002 0001 0002\n"
        "001    1      A                          0.0    1\n001    2      B                          0.0    2\n"
    )
    assert by_250.virtual_points(1, 1) == 1 and by_250.virtual_points(2, 2) == 0.5
    assert by_250.virtual_points(1, 3) == 0
    again = trf.parse(trf.dumps(by_250))
    assert again.acceleration == by_250.acceleration


def test_scoring_162_round_trips() -> None:
    t = trf.parse("162  W 3.0    D 1.0\nXXR 2\n001    1      A                          0.0    1\n")
    assert (t.scoring.win, t.scoring.draw, t.scoring.pab_points) == (Fraction(3), Fraction(1), Fraction(3))
    assert trf.parse(trf.dumps(t)).scoring == t.scoring


DUTCH_CORPUS = sorted((corpus() / "dutch").glob("*.trf"))


def _without_initial_colour(text: str) -> str:
    return "\n".join(line for line in re.split(r"\r\n|\r|\n", text) if not line.startswith(("XXC", "152"))) + "\n"


@pytest.mark.parametrize("initial", [Colour.WHITE, Colour.BLACK])
def test_initial_colour_counts_ranks_among_players_taking_part(initial: Colour) -> None:
    # Player 1 is absent in round 1; 2, 3, 4, 5 take part and are ranked 1 to 4 among them. Rule 5 gives the
    # initial colour to 2 (odd rank) and the other one to 3 (even rank): 2-4 and 5-3 under white1, 4-2 and
    # 3-5 under black1. (Starting-number parity would read the opposite colour from player 2's board.)
    w, b = ("w", "b") if initial is Colour.WHITE else ("b", "w")
    text = "XXR 5\n" + "\n".join(
        [
            _line(1, "  0000 - Z"),
            _line(2, f"     4 {w} 1"),
            _line(3, f"     5 {b} 1"),
            _line(4, f"     2 {b} 0"),
            _line(5, f"     3 {w} 0"),
        ]
    )
    assert trf.parse(text).initial_colour is initial


@pytest.mark.parametrize("initial", [Colour.WHITE, Colour.BLACK])
def test_initial_colour_from_the_first_round_with_colours(initial: Colour) -> None:
    # Round 1 has only byes and a forfeit without colours (4 wins against 3). In round 2, 2 (0.5 points) meets
    # 4 (1 point): among the players taking part (2, 3, 4) they are first and third, both odd, so the higher
    # ranked one, 4 with the better score, had the initial colour.
    w, b = ("w", "b") if initial is Colour.WHITE else ("b", "w")
    text = "XXR 5\n" + "\n".join(
        [
            _line(1, "  0000 - Z  0000 - Z"),
            _line(2, f"  0000 - H     4 {b} 1"),
            _line(3, "     4 - -  0000 - Z"),
            _line(4, f"     3 - +     2 {w} 0"),
        ]
    )
    assert trf.parse(text).initial_colour is initial


@pytest.mark.parametrize("initial", [Colour.WHITE, Colour.BLACK])
def test_initial_colour_of_an_engine_paired_round_without_the_top_seed(initial: Colour) -> None:
    # The top seed is absent and nine players are paired (one PAB); the engine pairs round 1 under `initial`.
    entrants = tuple(Player(number=n, name=f"P{n}", rating=2000 - n) for n in range(1, 11))
    absent = {1: RoundRecord(RecordKind.ZERO_BYE)}
    state = Tournament(players=entrants, total_rounds=5, initial_colour=initial).with_round(1, absent)
    pairing = pair(state)
    results: dict[int, RoundRecord] = {}
    for board in pairing.boards:
        results.update(result_records(board.white, board.black, Outcome.DRAW))
    assert pairing.bye is not None
    results[pairing.bye] = RoundRecord(RecordKind.PAB)
    played = state.with_round(1, results)
    text = _without_initial_colour(trf.dumps(played))
    assert "XXC" not in text
    assert trf.parse(text).initial_colour is initial


def test_initial_colour_is_white_without_a_game() -> None:
    text = f"XXR 3\n{_line(1)}\n{_line(2)}\n"
    assert trf.parse(text).initial_colour is Colour.WHITE


def test_corpus_without_the_initial_colour_record_infers_the_declared_one() -> None:
    checked = 0
    for path in DUTCH_CORPUS:
        text = path.read_text()
        declared = trf.parse(text)
        if declared.rounds_completed == 0:
            continue  # round 1: nothing to infer from
        inferred = trf.parse(_without_initial_colour(text))
        assert inferred.initial_colour is declared.initial_colour, path.name
        checked += 1
    assert checked > 300


@pytest.mark.slow
def test_corpus_without_the_initial_colour_record_gets_the_reference_pairs() -> None:
    differing = []
    for path in DUTCH_CORPUS:
        tournament = trf.parse(_without_initial_colour(path.read_text()))
        if tournament.rounds_completed == 0:
            continue
        expected = [line.strip() for line in path.with_suffix(".pairs").read_text().splitlines() if line.strip()]
        if pair(tournament).lines() != expected:
            differing.append(path.stem)
    assert differing == []


def test_negative_points_round_trip() -> None:
    t = trf.parse("XXS FL=-0.5\nXXR 2\n001    1      A                          0.0    1\n")
    assert t.scoring.forfeit_loss == Fraction(-1, 2)
    assert trf.parse(trf.dumps(t)).scoring == t.scoring


def test_the_manual_round_record_round_trips_and_is_read_for_the_checker() -> None:
    player = "001    1      A" + " " * 62 + "0.0    1"
    text = f"012 Club\n{trf.manual_record([3, 1])}\n{player}\nXXR 3\n"
    tournament = trf.parse(text)
    assert trf.manual_record([3, 1]) == "XXM 1 3"
    assert trf.manual_rounds(tournament) == frozenset({1, 3})
    assert "XXM 1 3" in trf.dumps(tournament).splitlines()
    with pytest.raises(trf.TrfError, match="XXM takes round numbers"):
        trf.manual_rounds(trf.parse(text.replace("XXM 1 3", "XXM one")))
