"""Record 162 (the scoring system) in the columns the TRF format gives it, byte for byte."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairing import trf
from pairing.model import Scoring
from tests.support.data import corpus
from tests.support.paths import SHARED

REFERENCE = SHARED / "reference" / "fide-swiss.md"
FILES_WITH_162 = sorted(
    path for path in corpus().glob("*/*.trf") if re.search(rb"^162", path.read_bytes(), re.MULTILINE)
)
PLAYERS = "XXR 3\n001    1      Alder, Anna                       1500                             0.0    1\n"


def _lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


def _record_162(text: str) -> str:
    found = [line for line in _lines(text) if line.startswith("162")]
    assert len(found) == 1, found
    return found[0]


def _read_by_columns(line: str) -> dict[str, Fraction]:
    """Record 162 read strictly as the format lays it out: letter at column 6 + 9k, value in the next 4 columns."""
    values: dict[str, Fraction] = {}
    assert line[:5] == "162  "
    for start in range(5, len(line), 9):
        letter, value = line[start], line[start + 1 : start + 5]
        assert re.fullmatch(r" *-?\d+\.\d", value), (line, value)
        assert start + 5 == len(line) or line[start + 5 : start + 9] == "    ", line
        values[letter] = Fraction(value.strip())
    return values


def test_the_reference_example_comes_out_byte_for_byte() -> None:
    text = REFERENCE.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| 162"))
    assert "result letter at columns 6, 15, 24" in row
    example = re.search(r"e\.g\. `(162[^`]*)`", row)
    assert example is not None
    line = example.group(1)
    assert (line[5], line[14]) == ("W", "D")  # columns 6 and 15
    t = trf.parse(f"{line}\n{PLAYERS}")
    assert (t.scoring.win, t.scoring.draw) == (Fraction(3), Fraction(1))
    assert _record_162(trf.dumps(t)) == line


@pytest.mark.parametrize("path", FILES_WITH_162, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_record_162_comes_out_identical(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    written = trf.dumps(trf.parse(text))
    assert _record_162(written) == _record_162(text)


def test_corpus_carries_162() -> None:
    assert len([p for p in FILES_WITH_162 if p.parent.name == "dutch"]) >= 40


def test_every_letter_at_its_column() -> None:
    scoring = Scoring(
        win=Fraction(2),
        draw=Fraction(1),
        loss=Fraction(1, 2),
        zero_bye=Fraction(1, 2),
        forfeit_loss=Fraction(1, 2),
        pab=Fraction(10),
    )
    line = trf.format_scoring_162(scoring)
    assert line == "162  W 2.0    D 1.0    L 0.5    A 0.5    P10.0"
    assert [line[column - 1] for column in (6, 15, 24, 33, 42)] == ["W", "D", "L", "A", "P"]
    assert _read_by_columns(line) == {"W": 2, "D": 1, "L": Fraction(1, 2), "A": Fraction(1, 2), "P": 10}
    t = trf.parse(f"{line}\n{PLAYERS}")
    assert t.scoring == scoring


def test_only_values_that_differ_from_the_default_are_written() -> None:
    assert trf.format_scoring_162(Scoring()) is None
    assert trf.format_scoring_162(Scoring(draw=Fraction(0))) == "162  D 0.0"
    assert trf.format_scoring_162(Scoring(loss=Fraction(-1))) == "162  L-1.0"
    assert trf.format_scoring_162(Scoring(half_bye=Fraction(0))) is None
    written = trf.dumps(trf.parse(f"XXS HPB=0\n{PLAYERS}"))
    assert not any(line.startswith("162") for line in _lines(written))
    assert "XXS HPB=0.0" in _lines(written)


def test_a_forfeit_loss_apart_from_the_zero_bye_goes_to_xxs() -> None:
    scoring = Scoring(win=Fraction(3), draw=Fraction(1), forfeit_loss=Fraction(-1))
    written = trf.dumps(trf.parse(f"{trf.format_scoring_162(scoring)}\nXXS FL=-1\n{PLAYERS}"))
    assert _record_162(written) == "162  W 3.0    D 1.0    A 0.0"
    assert trf.parse(written).scoring == scoring


@pytest.mark.parametrize("value", [Fraction(100), Fraction(1, 3), Fraction(-10)])
def test_a_value_the_field_cannot_hold_is_refused(value: Fraction) -> None:
    with pytest.raises(ValueError, match=r"dd\.d"):
        trf.format_scoring_162(Scoring(win=value))


@pytest.mark.parametrize(
    "line",
    [
        "162  W 3.0    D 1.0",  # the format's layout
        "162  W  3.0  D  1.0",  # what this project wrote before
        "162 W3 D1",
        "162  w 3.0    d 1.0    X 1.0",  # lower case; X (adjourned) changes nothing
        "162  W 3.0    D 1.0   ",
    ],
)
def test_the_reader_takes_any_spacing(line: str) -> None:
    t = trf.parse(f"{line}\n{PLAYERS}")
    assert (t.scoring.win, t.scoring.draw, t.scoring.loss, t.scoring.pab_points) == tuple(map(Fraction, (3, 1, 0, 3)))


def test_z_reads_as_the_absence_letter() -> None:
    # bbpPairings reads Z where the format writes A.
    for letter in "AZ":
        t = trf.parse(f"162  W 3.0    {letter}-1.0\n{PLAYERS}")
        assert (t.scoring.zero_bye, t.scoring.forfeit_loss) == (Fraction(-1), Fraction(-1))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("162  W 3.0    D", "line 1: record 162: expected a letter and its points at column 15"),
        ("162  W 3.0  ; D 1.0", "line 1: record 162: expected a letter and its points at column 13"),
        ("162  Q 3.0", "line 1: unknown scoring letter 'Q'"),
        ("162", "line 1: scoring record 162 lists no values"),
    ],
)
def test_a_broken_record_names_the_line(line: str, message: str) -> None:
    with pytest.raises(trf.TrfError, match=re.escape(message)):
        trf.parse(f"{line}\n{PLAYERS}")


tenths = st.integers(min_value=0, max_value=999).map(lambda n: Fraction(n, 10))


@settings(max_examples=200, deadline=None)
@given(win=tenths, draw=tenths, loss=tenths, absent=tenths, pab=st.none() | tenths)
def test_any_scoring_is_written_in_columns_and_read_back(
    win: Fraction, draw: Fraction, loss: Fraction, absent: Fraction, pab: Fraction | None
) -> None:
    scoring = Scoring(win=win, draw=draw, loss=loss, zero_bye=absent, forfeit_loss=absent, pab=pab)
    line = trf.format_scoring_162(scoring)
    if line is None:
        assert scoring.is_default
        return
    default = Scoring()
    expected = {
        letter: value
        for letter, value, written in [
            ("W", win, win != default.win),
            ("D", draw, draw != default.draw),
            ("L", loss, loss != default.loss),
            ("A", absent, absent != 0),
            ("P", pab, pab is not None),
        ]
        if written
    }
    assert _read_by_columns(line) == expected
    assert trf.parse(f"{line}\n{PLAYERS}").scoring == scoring
