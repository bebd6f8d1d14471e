"""The Fast Swiss engine against the reference corpus (cyanfish's bbpPairings `--fast`) and the worked examples."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pairing import trf
from pairing.errors import NoValidPairing
from pairing.systems.fast import pair
from tests.support.corpus import expected_lines, pair_lines
from tests.support.data import corpus

CORPUS = corpus() / "fast"
CASES = sorted(CORPUS.glob("*.trf"))


def test_the_corpus_is_complete() -> None:
    with (CORPUS / "manifest.tsv").open() as handle:
        listed = {row["case"] for row in csv.DictReader(handle, delimiter="\t")}
    assert len(CASES) == 150
    assert {case.stem for case in CASES} == listed


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_corpus_case_is_reproduced_exactly(case: Path) -> None:
    # Pairs, colours, the published board order and the bye, line for line.
    assert pair_lines(pair, case) == expected_lines(case.with_suffix(".pairs"))


def _line(number: int, rating: int, points: str, rank: int, games: str) -> str:
    name = f"Test{number:04d} Player{number:04d}"
    return f"001 {number:4d}      {name:<33}{rating:>4}".ljust(80) + f"{points:>4} {rank:4d}{games}"


# fide-other-systems.md §7.10, test vector F1 (12 players, pair round 3 of 5).
F1_PLAYERS = [
    (1, 2624, "1.0", 1, "     6 w 1     2 b 0"),
    (2, 2601, "2.0", 2, "     5 b 1     1 w 1"),
    (3, 2557, "1.0", 3, "     4 w =     5 b ="),
    (4, 2517, "0.5", 5, "     3 b =     6 w 0"),
    (5, 2464, "0.5", 6, "     2 w 0     3 w ="),
    (6, 2443, "1.0", 4, "     1 b 0     4 b 1"),
    (7, 2419, "1.0", 9, "    12 w =     8 b ="),
    (8, 2217, "0.5", 11, "    11 b 0     7 w ="),
    (9, 2184, "0.0", 12, "    10 w 0    12 b 0"),
    (10, 2180, "2.0", 10, "     9 b 1    11 w 1"),
    (11, 2152, "1.0", 7, "     8 w 1    10 b 0"),
    (12, 2148, "1.5", 8, "     7 b =     9 w 1"),
]
F1 = "012 F1\nXXR 5\nXXC white1\n" + "".join(_line(*p) + "\n" for p in F1_PLAYERS)
F1_PAIRS = ["6", "10 2", "1 12", "7 3", "6 11", "8 5", "9 4"]

# Test vector F2 (10 players, pair round 3 of 7): the greedy stage gets stuck and backtracks.
F2 = "012 F2\nXXR 7\nXXC white1\n" + "".join(
    _line(*p) + "\n"
    for p in [
        (1, 2346, "1.5", 3, "     5 w =     2 b 1"),
        (2, 2286, "1.0", 1, "     4 b 1     1 w 0"),
        (3, 2279, "1.5", 2, "     6 w =     5 b 1"),
        (4, 2235, "1.0", 4, "     2 w 0    10 b 1"),
        (5, 2077, "0.5", 6, "     1 b =     3 w 0"),
        (6, 1994, "1.0", 5, "     3 b =     9 w ="),
        (7, 1861, "0.0", 8, "    10 w 0     8 b -"),
        (8, 1860, "1.0", 9, "     9 b 0     7 w +"),
        (9, 1820, "1.5", 7, "     8 w 1     6 b ="),
        (10, 1762, "1.0", 10, "     7 b 1     4 w 0"),
    ]
)


def test_worked_example_f1() -> None:
    assert pair(trf.parse(F1)).lines() == F1_PAIRS


def test_worked_example_f1_with_seven_digit_ids() -> None:
    # The same file in the XXW 7 form: ids and opponents 7 wide, every later column 3 to the right.
    wide = []
    for number, rating, points, rank, games in F1_PLAYERS:
        blocks = [games[i : i + 10] for i in range(0, len(games), 10)]
        wide_games = "".join(f"  {int(b[2:6]):7d} {b[7]} {b[9]}" for b in blocks)
        name = f"Test{number:04d} Player{number:04d}"
        wide.append(f"001 {number:7d}      {name:<33}{rating:>4}".ljust(83) + f"{points:>4} {rank:4d}{wide_games}")
    text = "XXW 7\n012 F1\nXXR 5\nXXC white1\n" + "".join(line + "\n" for line in wide)
    assert pair(trf.parse(text)).lines() == F1_PAIRS


def test_worked_example_f2_backtracks() -> None:
    assert pair(trf.parse(F2)).lines() == ["5", "1 9", "3 2", "8 6", "10 5", "4 7"]


def test_round_one_folds_each_accelerated_half() -> None:
    # §7.9: 12 players in round 1; the default acceleration splits them into 1-6 and 7-12, each paired top
    # against bottom, colours by rank parity.
    text = "012 R1\nXXR 5\nXXC white1\n" + "".join(_line(n, 2500 - n, "0.0", n, "") + "\n" for n in range(1, 13))
    assert pair(trf.parse(text)).lines() == ["6", "1 6", "5 2", "3 4", "7 12", "11 8", "9 10"]


def test_an_xxa_line_switches_the_default_acceleration_off() -> None:
    # Without acceleration round 1 is one group of 12, paired top against bottom: 1-12, 2-11, ...
    text = "012 R1\nXXR 5\nXXC white1\nXXA    1  0.0\n" + "".join(
        _line(n, 2500 - n, "0.0", n, "") + "\n" for n in range(1, 13)
    )
    assert pair(trf.parse(text)).lines() == ["6", "1 12", "11 2", "3 10", "9 4", "5 8", "7 6"]


def test_no_eligible_player_for_the_bye() -> None:
    # Three players, each with a PAB or a forfeit win already: the fork stops with "no player is eligible".
    rows = [
        (1, 2000, "1.0", 1, "     2 w +     3 b -"),
        (2, 1900, "1.0", 2, "     1 b -  0000 - U"),
        (3, 1800, "2.0", 3, "  0000 - U     1 w +"),
    ]
    text = "XXR 3\nXXC white1\n" + "".join(_line(*r) + "\n" for r in rows)
    with pytest.raises(NoValidPairing, match="eligible"):
        pair(trf.parse(text))


def test_players_who_all_met_cannot_be_paired() -> None:
    text = (
        "XXR 3\nXXC white1\n" + _line(1, 2000, "1.0", 1, "     2 w 1") + "\n" + _line(2, 1900, "0.0", 2, "     1 b 0")
    )
    with pytest.raises(NoValidPairing):
        pair(trf.parse(text + "\n"))


def test_worked_example_f1_as_lichess_writes_it() -> None:
    # F1 plus Lichess's markers: P12 absent from the round to pair (0000, no colour, '-'), and a 13th player
    # who joined late (round 1: no opponent, no colour, 'H'; round 2: absent). P12 is not paired, P13 is, on 0.5.
    number, rating, points, rank, games = F1_PLAYERS[11]
    rows = [
        *F1_PLAYERS[:11],
        (number, rating, points, rank, games + "  0000   -"),
        (13, 2100, "0.5", 13, " " * 9 + "H" + " " * 9 + "-"),
    ]
    text = "012 F1\nXXR 5\nXXC white1\n" + "".join(_line(*p) + "\n" for p in rows)
    assert sorted(pair(trf.parse(text)).lines()[1:]) == sorted(["10 2", "1 3", "6 7", "11 5", "13 8", "9 4"])


# Backtracking undid every pair, then the PAB (the fork keeps it as a pair of the bye player with himself): the
# bye player joins the window twice and the matching gives him the bye again. bbpPairings --fast on this file
# (cyanfish's fork, built from its source) answers 4-2, 1-3, 5-10 and the bye to 7.
LOCAL_CASES = Path(__file__).parent / "cases"


def test_an_undone_pab_goes_back_into_the_window_as_the_fork_does() -> None:
    from pairing import trf
    from pairing.systems import fast

    assert fast.pair(trf.read(str(LOCAL_CASES / "fast-pab-undone.trf"))).lines() == ["4", "4 2", "1 3", "5 10", "7 0"]


def test_where_the_fork_would_place_the_bye_player_twice_the_rules_win() -> None:
    # Three players: the fork's matching puts the bye player 3 on two boards ("1 3", "3 2"), which no rule
    # allows; the engine gives the bye anew by its rule and pairs the rest (a deliberate difference).
    from pairing import checker, trf
    from pairing.systems import fast

    state = trf.read(str(LOCAL_CASES / "fast-pab-twice.trf"))
    pairing = fast.pair(state)
    assert pairing.players() == frozenset({1, 2, 3}) and len(pairing.boards) == 1
    assert checker.check_round(state, 2, pairing, "fast") == []
