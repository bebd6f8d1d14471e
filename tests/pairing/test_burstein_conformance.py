"""The Burstein engine against the reference corpus (bbpPairings `--burstein`), and where it leaves the FIDE text."""

from __future__ import annotations

import pytest

from pairing import checker, trf
from pairing.checker import DiscrepancyKind
from pairing.errors import NoValidPairing
from pairing.model import Board, Pairing
from pairing.systems.burstein import bye_receiver, pair
from pairing.systems.dutch import pair as dutch_pair
from tests.support.corpus import expected_lines, pair_lines
from tests.support.data import corpus

CORPUS = corpus() / "burstein"

# Identical cases (pairs, colours, board order, bye) reached so far; it may only go up.
RATCHET = 101


@pytest.mark.slow
def test_corpus_conformance(capsys: pytest.CaptureFixture[str]) -> None:
    cases = sorted(CORPUS.glob("*.trf"))
    assert len(cases) == 101
    differing = [case.stem for case in cases if pair_lines(pair, case) != expected_lines(case.with_suffix(".pairs"))]
    identical = len(cases) - len(differing)
    summary = f"burstein conformance: {identical}/{len(cases)} identical ({100 * identical / len(cases):.1f} %)"
    with capsys.disabled():
        print(f"\n{summary}; differing: {' '.join(differing) or 'none'}")
    assert identical >= RATCHET, f"{summary}, below the ratchet {RATCHET}; differing: {differing}"


# The cases worked through by hand in fide-other-systems.md §2.6 (tournaments B014 and B011).
@pytest.mark.parametrize("case", ["0089", "0090", "0091", "0092", "0072", "0073", "0074", "0013", "0047"])
def test_worked_corpus_cases(case: str) -> None:
    assert pair_lines(pair, CORPUS / f"{case}.trf") == expected_lines(CORPUS / f"{case}.pairs")


def _trf(*players: str, rounds: int = 3, extra: str = "") -> str:
    return "012 Test\n" + "".join(p + "\n" for p in players) + f"XXR {rounds}\nXXC white1\n" + extra


def _player(number: int, points: str, *games: str) -> str:
    head = f"001 {number:4d}      {f'Player {number}':<33} 2000".ljust(80) + f"{points:>4} {number:4d}"
    return head + "".join(f"  {g}" for g in games)


def _pairs(lines: list[str]) -> set[frozenset[str]]:
    return {frozenset(line.split()) for line in lines[1:]}


def test_round_one_is_accelerated_not_a_dutch_seeding_round() -> None:
    # The 2026 text pairs round 1 by Dutch (4-1, 2-5, 6-3, bye 7). The engine gives the top half an imaginary
    # point, so {1,2,3} and {4,5,6} are paired apart, each best player against the lowest it may meet.
    case = CORPUS / "0089.trf"
    assert pair_lines(pair, case) == ["4", "3 1", "2 6", "4 5", "7 0"]
    assert pair_lines(dutch_pair, case) == ["4", "4 1", "2 5", "6 3", "7 0"]


def test_an_acceleration_line_switches_the_imaginary_point_off() -> None:
    eight = _trf(*(_player(n, "0.0") for n in range(1, 9)))
    accelerated = pair(trf.parse(eight)).lines()
    assert _pairs(accelerated) == _pairs(["4", "1 4", "2 3", "5 8", "6 7"])
    plain = pair(trf.parse(eight + "XXA    1  0.0\n")).lines()
    assert _pairs(plain) == _pairs(["4", "1 8", "2 7", "3 6", "4 5"])


def test_round_four_of_b014_follows_the_engine_not_the_2026_index() -> None:
    # fide-other-systems.md §2.4: by the 2026 text (Buchholz-then-SB Index, PAB first) this round is 4-2, 6-1,
    # 7-5 with the bye to 3; the engine (SB first, one floater per group, groups merged) gives 5-1, 4-2, 7-6.
    got = pair(trf.read(str(CORPUS / "0092.trf")))
    assert got == Pairing((Board(5, 1), Board(4, 2), Board(7, 6)), 3)
    assert set(got.boards) != {Board(4, 2), Board(6, 1), Board(7, 5)}


# Round 3 of three players: 1 had a full-point bye and beat 2; 2 won against 3 by forfeit (not a meeting);
# 3 had the PAB. No acceleration.
FULL_POINT_BYE = _trf(
    _player(1, "2.0", "0000 - F", "   2 w 1"),
    _player(2, "1.0", "   3 w +", "   1 b 0"),
    _player(3, "1.0", "   2 b -", "0000 - U"),
    extra="XXA    1  0.0\n",
)


def test_a_full_point_bye_does_not_block_the_pab() -> None:
    # The pre-2025 eligibility the engine uses: only a PAB or a forfeit win blocks it. The current rule (C.04.1
    # Art. 4, used by Dutch and the 2026 Burstein text) also excludes 1, so nobody could get the bye.
    t = trf.parse(FULL_POINT_BYE)
    got = pair(t)
    assert got == Pairing((Board(2, 3),), 1)
    assert checker.check_round(t, 3, got, "burstein") == []
    assert [d.kind for d in checker.check_round(t, 3, got, "dutch")] == [DiscrepancyKind.PAB_INELIGIBLE]
    with pytest.raises(NoValidPairing):
        dutch_pair(t)


def test_when_the_pab_leaves_the_rest_unpairable_the_next_eligible_player_takes_it() -> None:
    # Round 2: 2 beat 1, 3 had a full-point bye. With the imaginary point 1 ranks above 3, so the reference engine
    # gives the bye to 3 without looking ahead, and 1-2 would be a rematch: it stops the event, although 2-3
    # (bye 1) and 1-3 (bye 2) are legal. Here the bye goes up the list to the next eligible player whose absence
    # leaves a pairing, 1 (the 2026 text also takes the PAB player among those only).
    t = trf.parse(_trf(_player(1, "0.0", "   2 w 0"), _player(2, "1.0", "   1 b 1"), _player(3, "1.0", "0000 - F")))
    assert bye_receiver(t) == 3
    got = pair(t)
    assert got.bye == 1 and {frozenset((b.white, b.black)) for b in got.boards} == {frozenset((2, 3))}
    assert checker.check_round(t, 2, got, "burstein") == []


def test_nobody_to_pair_gives_an_empty_pairing() -> None:
    t = trf.parse(_trf(_player(1, "1.0", "   2 w 1", "0000 - H"), _player(2, "0.0", "   1 b 0", "0000 - H")))
    assert pair(t, 2) == Pairing(())


def test_one_player_to_pair_gets_the_bye() -> None:
    t = trf.parse(_trf(_player(1, "1.0", "   2 w 1"), _player(2, "0.0", "   1 b 0", "0000 - H")))
    assert pair(t) == Pairing((), 1)


# Round 2 of a generated event where the group of the floater 9 (1 point) and 8, 11, 14 (0) is ordered by a
# comparator that is not transitive (the floater's Buchholz is weighed by its own score): 14 > 8 > 9 > 14. The
# reference sorts with libstdc++'s std::list::sort; its answer (bbpPairings --burstein on this file) is the test.
NON_TRANSITIVE_GROUP = """012 swissbot RTG seed 72
001    1      Player0001, Rtg                   2221                             1.0    1     7 w 1
001    2      Player0002, Rtg                   2140                             1.0    2     6 b 1
001    3      Player0003, Rtg                   2121                             0.0    3     5 w 0
001    4      Player0004, Rtg                   2009                             1.0    4    14 b 1
001    5      Player0005, Rtg                   1779                             1.0    5     3 b 1
001    6      Player0006, Rtg                   1765                             0.0    6     2 w 0
001    7      Player0007, Rtg                   1712                             0.0    7     1 b 0
001    8      Player0008, Rtg                   1708                             0.0    8    13 b 0
001    9      Player0009, Rtg                   1706                             1.0    9    12 w 1
001   10      Player0010, Rtg                   1493                             1.0   10    11 b 1
001   11      Player0011, Rtg                   1474                             0.0   11    10 w 0
001   12      Player0012, Rtg                   1439                             0.0   12     9 b 0
001   13      Player0013, Rtg                   1269                             1.0   13     8 w 1
001   14      Player0014, Rtg                   1244                             0.0   14     4 w 0
001   15      Player0015, Rtg                   1022                             1.0   15  0000 - U
XXR 12
XXC white1
"""


def test_a_group_ordered_by_a_non_transitive_comparator_is_sorted_as_the_reference_sorts_it() -> None:
    from pairing import trf
    from pairing.systems.burstein import pair

    got = pair(trf.parse(NON_TRANSITIVE_GROUP)).lines()
    assert got == ["8", "4 1", "2 5", "11 9", "10 6", "7 13", "15 3", "8 14", "12 0"]
