"""TRF reading and writing."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from pairing import trf
from pairing.model import Colour, Outcome, RecordKind, Tournament

SHARED = Path(__file__).resolve().parents[2] / "shared"
EXAMPLE = SHARED / "reference" / "fide-examples" / "example_trf16.trf"
CORPUS_FILES = sorted((SHARED / "corpus").glob("*/*.trf"))


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
