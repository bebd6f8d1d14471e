"""The TRF form the Fast Swiss reference engine reads: `XXW` ids wider than 4 digits, `BBW`/`BBD` points."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from pairing import trf
from pairing.model import Colour, Outcome, Player, RecordKind, RoundRecord, Tournament
from tests.support.data import corpus

WIDE_CASES = sorted(p for p in (corpus() / "fast").glob("*.trf") if p.read_text().startswith("XXW"))


def _line(number: str, games: str = "") -> str:
    return f"001 {number}      {'Player':<33} 1500".ljust(76 + len(number)) + f" 0.0    1{games}"


def test_xxw_shifts_every_column_after_the_id() -> None:
    text = (
        "XXW 7\nXXR 3\n"
        + f"001 {12345:7d}      {'Wide, One':<33} 2100".ljust(83)
        + f"{'1.0':>4} {1:4d}  {67890:7d} w 1  0000000 - H\n"
        + f"001 {67890:7d}      {'Wide, Two':<33} 2000".ljust(83)
        + f"{'0.5':>4} {2:4d}  {12345:7d} b 0  0000000 - U\n"
    )
    t = trf.parse(text)
    one, two = t.player(12345), t.player(67890)
    assert (one.name, one.rating, one.declared_points, one.rank) == ("Wide, One", 2100, Fraction(1), 1)
    assert one.rounds[0] == RoundRecord.played(67890, Colour.WHITE, Outcome.WIN)
    assert one.rounds[1].kind is RecordKind.HALF_BYE
    assert two.rounds[1].kind is RecordKind.PAB
    assert _same_engine_view(t)


def _players(t: Tournament) -> tuple[Player, ...]:
    return tuple(replace(p, declared_points=None) for p in t.players)


def _same_engine_view(t: Tournament) -> bool:
    again = trf.parse(trf.dumps(t))
    return _players(again) == _players(t) and again.scoring == t.scoring and again.total_rounds == t.total_rounds


def test_writer_uses_xxw_only_for_ids_above_9999() -> None:
    small = Tournament(players=(Player(9999), Player(1)), total_rounds=2)
    assert not any(line.startswith("XXW") for line in trf.dumps(small).splitlines())
    big = Tournament(
        players=(
            Player(1, rounds=(RoundRecord.played(10000, Colour.WHITE, Outcome.DRAW),)),
            Player(10000, rounds=(RoundRecord.played(1, Colour.BLACK, Outcome.DRAW),)),
        ),
        total_rounds=2,
    )
    text = trf.dumps(big)
    lines = text.splitlines()
    assert "XXW 7" in lines
    assert lines.index("XXW 7") < min(i for i, line in enumerate(lines) if line.startswith("001"))
    assert f"  {10000:7d} w =" in text and f"  {1:7d} b =" in text
    assert _same_engine_view(trf.parse(text))
    assert trf.parse(text).player(10000).rounds == big.player(10000).rounds


@pytest.mark.slow
@pytest.mark.parametrize("path", WIDE_CASES, ids=lambda p: p.stem)
def test_wide_corpus_files_round_trip(path: Path) -> None:
    # Written back, a 7-wide corpus file keeps XXW when it needs it (ids up to 9999 go back to 4 wide).
    t = trf.read(str(path))
    if max(p.number for p in t.players) > 9999:
        assert "XXW 7" in trf.dumps(t).splitlines()
    assert _same_engine_view(t)


def test_wide_id_without_xxw_is_an_error_naming_the_line() -> None:
    text = "XXR 3\n" + _line("   1") + "\n" + _line("12345") + "\n"
    with pytest.raises(trf.TrfError) as err:
        trf.parse(text)
    assert err.value.line == 3
    assert "XXW" in str(err.value)


def test_xxw_after_the_players_is_an_error() -> None:
    with pytest.raises(trf.TrfError) as err:
        trf.parse("XXR 3\n" + _line("   1") + "\nXXW 7\n")
    assert err.value.line == 3


@pytest.mark.parametrize("value", ["x", "3", "12"])
def test_xxw_width_must_be_sensible(value: str) -> None:
    with pytest.raises(trf.TrfError) as err:
        trf.parse(f"XXW {value}\nXXR 3\n" + _line("   1") + "\n")
    assert err.value.line == 1


def test_bbw_and_bbd_set_the_points() -> None:
    t = trf.parse("XXR 3\nBBW  3.0\nBBD  1.0\n" + _line("   1") + "\n")
    assert (t.scoring.win, t.scoring.draw, t.scoring.pab_points) == (Fraction(3), Fraction(1), Fraction(3))
    assert trf.parse(trf.dumps(t)).scoring == t.scoring


def test_bbp_form_writes_points_as_bb_lines() -> None:
    t = trf.parse("XXR 3\n162  W 3.0    D 1.0\n" + _line("   1") + "\n")
    text = trf.dumps_bbp(t)
    assert not any(line.startswith(("162", "XXS")) for line in text.splitlines())
    assert "BBW  3.0" in text.splitlines() and "BBD  1.0" in text.splitlines()
    assert trf.parse(text).scoring == t.scoring
    plain = trf.parse("XXR 3\n" + _line("   1") + "\n")
    assert not any(line.startswith("BB") for line in trf.dumps_bbp(plain).splitlines())


def test_bbp_form_refuses_what_it_cannot_say() -> None:
    t = trf.parse("XXR 3\nXXS HPB=0\n" + _line("   1") + "\n")
    with pytest.raises(ValueError, match="half-point byes"):
        trf.dumps_bbp(t)
