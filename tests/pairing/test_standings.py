"""Standings (ranking by points then tie-breaks per tied subgroup), value formatting and the crosstable."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pairing import trf
from pairing.model import Colour, RecordKind, Tournament
from pairing.standings.crosstable import crosstable, format_crosstable
from pairing.standings.ranking import compute_standings, format_standings, format_value
from pairing.tiebreaks.calculator import DEFAULT_TIEBREAKS, UnknownTiebreak
from tests.pairing.tiebreak_fixtures import EXAMPLE16, build

F = Fraction


@pytest.fixture(scope="module")
def example() -> Tournament:
    return trf.read(str(EXAMPLE16))


def test_example_ranking_with_the_default_list(example: Tournament) -> None:
    rows = compute_standings(example)
    assert [(r.rank, r.number, r.points) for r in rows] == [
        (1, 1, F(7, 2)),
        (2, 5, F(3)),
        (3, 3, F(2)),
        (4, 4, F(3, 2)),
        (5, 2, F(3, 2)),
    ]
    assert list(rows[0].tiebreaks) == list(DEFAULT_TIEBREAKS)
    assert rows[3].tiebreaks["BH/C1"] == 8 and rows[4].tiebreaks["BH/C1"] == F(13, 2)
    assert rows[0].name == "Alder, Anna"


def test_players_tied_on_everything_share_a_rank(example: Tournament) -> None:
    rows = compute_standings(example, [])
    assert [(r.rank, r.number) for r in rows] == [(1, 1), (2, 5), (3, 3), (4, 2), (4, 4)]
    rows = compute_standings(example, ["SB"])  # P2 and P4 tie on SB (2.25)
    assert [(r.rank, r.number) for r in rows][3:] == [(4, 2), (4, 4)]


def test_later_tiebreaks_only_split_the_still_tied(example: Tournament) -> None:
    # SB ties P2/P4; PS then favours P4 (4.0 vs 3.0)
    rows = compute_standings(example, ["SB", "PS"])
    assert [(r.rank, r.number) for r in rows][3:] == [(4, 4), (5, 2)]
    # TPN prefers the lower starting number
    rows = compute_standings(example, ["SB", "TPN"])
    assert [(r.rank, r.number) for r in rows][3:] == [(4, 2), (5, 4)]


def test_direct_encounter_in_the_list() -> None:
    # 1 and 2 both finish on 1.5; 2 won their game
    t = build(
        4,
        [
            [(1, 2, "0-1"), (3, 4, "1/2")],
            [(1, 3, "1-0"), (2, 4, "0-1")],
            [(4, 1, "1/2"), (3, 2, "1/2")],
        ],
    )
    rows = compute_standings(t, ["DE"])
    assert [(r.rank, r.number, r.points, r.tiebreaks["DE"]) for r in rows] == [
        (1, 4, F(2), F(0)),  # not tied: DE is 0
        (2, 2, F(3, 2), F(1)),
        (3, 1, F(3, 2), F(0)),
        (4, 3, F(1), F(0)),
    ]


def test_excluded_player_is_left_out_without_changing_anyone_else(example: Tournament) -> None:
    full = {r.number: r for r in compute_standings(example)}
    rows = compute_standings(example, exclude=[1])
    assert [r.number for r in rows] == [5, 3, 4, 2]
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    for row in rows:
        assert row.points == full[row.number].points
        assert row.tiebreaks == full[row.number].tiebreaks
    with pytest.raises(ValueError, match="no such starting number"):
        compute_standings(example, exclude=[9])


def test_standings_after_an_earlier_round(example: Tournament) -> None:
    rows = compute_standings(example, ["WIN"], through_round=2)
    assert [(r.number, r.points) for r in rows] == [(1, 2), (5, 2), (2, F(1, 2)), (3, F(1, 2)), (4, F(1, 2))]
    assert rows[0].rank == rows[1].rank == 1  # both two wins (P5's PAB counts as a win)


def test_edition_and_lichess_option_change_values(example: Tournament) -> None:
    v2026 = {r.number: r.tiebreaks["BH"] for r in compute_standings(example, ["BH"])}
    v2024 = {r.number: r.tiebreaks["BH"] for r in compute_standings(example, ["BH"], edition="2024")}
    assert (v2026[5], v2024[5]) == (F(9), F(10))
    lichess = {r.number: r.tiebreaks["SB"] for r in compute_standings(example, ["SB"], lichess_sb=True)}
    # P5: PAB in round 1 -> virtual opponent 0 + 0 + 3 x 0.5; beat P4 (1.5); drew P1 (3.5) and P3 (2.0)
    assert lichess[5] == F(3, 2) + F(3, 2) + F(7, 4) + 1


def test_unknown_code_is_a_typed_error(example: Tournament) -> None:
    with pytest.raises(UnknownTiebreak):
        compute_standings(example, ["BH", "NOPE"])


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (F(8), 0, "8"),
        (F(8), 1, "8.0"),
        (F(9, 4), 1, "2.25"),
        (F(13, 2), 0, "6.5"),
        (F(1, 3), 1, "0.33"),
        (F(-3, 2), 1, "-1.5"),
        (F(1959), 0, "1959"),
    ],
)
def test_format_value(value: Fraction, decimals: int, text: str) -> None:
    assert format_value(value, decimals) == text


def test_format_standings_shows_shared_ranks_once(example: Tournament) -> None:
    text = format_standings(compute_standings(example, ["SB"]), ["SB"])
    lines = text.splitlines()
    assert lines[0].split() == ["Rk", "No", "Name", "Pts", "SB"]
    assert lines[4].split()[:2] == ["4", "2"]
    assert lines[5].split()[0] == "4"  # the second P2/P4 line has no rank: it starts with the number
    assert "2.25" in lines[5]


def test_crosstable_of_the_example(example: Tournament) -> None:
    rows = crosstable(example)
    assert [r.number for r in rows] == [1, 5, 3, 4, 2]
    carla = rows[2]
    assert [c.text for c in carla.cells] == ["1b0", "H", "2+", "5w½"]
    assert [c.kind for c in carla.cells] == [
        RecordKind.PLAYED,
        RecordKind.HALF_BYE,
        RecordKind.FORFEIT_WIN,
        RecordKind.PLAYED,
    ]
    assert [c.points for c in carla.cells] == [0, F(1, 2), 1, F(1, 2)]
    assert carla.cells[3].colour is Colour.WHITE and carla.cells[3].opponent == 5
    assert rows[1].cells[0].text == "U" and rows[4].cells[2].text == "3-"
    text = format_crosstable(rows)
    assert text.splitlines()[0].split() == ["Rk", "No", "Name", "Rtg", "R1", "R2", "R3", "R4", "Pts"]
    assert len(text.splitlines()) == 6


def test_crosstable_follows_given_standings(example: Tournament) -> None:
    rows = crosstable(example, compute_standings(example, [], exclude=[5]))
    assert [r.number for r in rows] == [1, 3, 2, 4]
    assert [r.rank for r in rows] == [1, 2, 3, 3]
