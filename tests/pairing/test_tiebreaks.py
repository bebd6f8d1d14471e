"""FIDE C.07 tie-breaks: the worked example of fide-swiss.md §5.6, Article 16 rules, Lichess's SB, the codes."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from pairing import trf
from pairing.model import Colour, Outcome, Player, RecordKind, RoundRecord, Scoring, Tournament, result_records
from pairing.tiebreaks.calculator import (
    DEFAULT_TIEBREAKS,
    KNOWN_TIEBREAKS,
    TiebreakCalculator,
    UnknownTiebreak,
    parse_tiebreak,
    parse_tiebreaks,
    tiebreak_values,
)
from pairing.tiebreaks.encounter import direct_encounter, mini_table
from pairing.tiebreaks.unplayed import UnplayedCategory, categories, score_sheet
from tests.pairing.tiebreak_fixtures import EXAMPLE16, build

F = Fraction


@pytest.fixture(scope="module")
def example() -> Tournament:
    return trf.read(str(EXAMPLE16))


def _values(t: Tournament, code: str, edition: str = "2026", **kw: bool) -> list[Fraction]:
    calc = TiebreakCalculator(t, edition="2024" if edition == "2024" else "2026", **kw)
    return [calc.value(code, n) for n in (1, 2, 3, 4, 5)]


def _f(*values: float) -> list[Fraction]:
    return [F(v) for v in values]


# §5.6, players P1..P5 in starting-number order.
EXAMPLE_BOTH_EDITIONS = {
    "PS": _f(9.0, 3.0, 4.0, 4.0, 8.5),
    "WIN": _f(3, 1, 1, 1, 2),
    "WON": _f(3, 0, 0, 0, 1),
    "BPG": _f(2, 1, 1, 1, 2),
    "BWG": _f(2, 0, 0, 0, 0),
    "REP": _f(4, 3, 3, 4, 4),
    "ARO": _f(1959, 2030, 2000, 2027, 2018),
    "ARO/C1": _f(1995, 2150, 2150, 2115, 2073),
    "KS": _f(1.5, 0, 0.5, 0, 1.0),
}
EXAMPLE_2026 = {
    "BH": _f(8.0, 8.0, 10.0, 9.5, 9.0),
    "BH/C1": _f(6.5, 6.5, 8.0, 8.0, 7.5),
    "SB": _f(6.5, 2.25, 4.0, 2.25, 6.25),
    "BH/M1": _f(3.5, 3.0, 4.5, 4.5, 4.0),
    "BH/C2": _f(5.0, 5.0, 6.5, 6.5, 5.5),
    "FB": _f(8.5, 8.0, 9.5, 9.5, 9.0),
}
EXAMPLE_2024 = {
    "BH": _f(8.0, 8.0, 10.5, 9.5, 10.0),
    "BH/C1": _f(6.5, 6.5, 8.5, 8.0, 8.5),
    "SB": _f(6.5, 2.25, 4.5, 2.25, 7.25),
}


@pytest.mark.parametrize("edition", ["2026", "2024"])
@pytest.mark.parametrize("code", sorted(EXAMPLE_BOTH_EDITIONS))
def test_example_values_in_both_editions(example: Tournament, code: str, edition: str) -> None:
    assert _values(example, code, edition) == EXAMPLE_BOTH_EDITIONS[code]


@pytest.mark.parametrize("code", sorted(EXAMPLE_2026))
def test_example_values_2026(example: Tournament, code: str) -> None:
    assert _values(example, code, "2026") == EXAMPLE_2026[code]


@pytest.mark.parametrize("code", sorted(EXAMPLE_2024))
def test_example_values_2024(example: Tournament, code: str) -> None:
    assert _values(example, code, "2024") == EXAMPLE_2024[code]


def test_example_sb_cut1_takes_the_lowest_scoring_opponent_and_the_vur_exception(example: Tournament) -> None:
    sb_c1_2026 = _values(example, "SB/C1", "2026")
    # P4: lowest-scoring opponent P2 (product 0.75) is cut, not the zero against P5 or P1.
    assert sb_c1_2026[3] == F(3, 2)
    # P3: the VUR product (1.0) is below the least significant value (1.5), so the latter is cut.
    assert sb_c1_2026[2] == F(5, 2)
    assert _values(example, "SB/C1", "2024")[2] == F(7, 2)


def test_example_categories_and_adjusted_scores(example: Tournament) -> None:
    sheet = score_sheet(example, 4, "2026")
    assert sheet.categories[3] == (None, UnplayedCategory.REQUESTED_BYE, UnplayedCategory.FORFEIT_WIN, None)
    assert sheet.categories[2] == (None, None, UnplayedCategory.FORFEIT_LOSS, UnplayedCategory.BYE_WIN)
    assert sheet.scores == sheet.adjusted
    assert sheet.dummy_score(3, 3) == F(3, 2)  # capped by the forfeiting opponent's adjusted score
    assert sheet.dummy_score(5, 1) == F(2)  # capped at draw x rounds
    assert score_sheet(example, 4, "2024").dummy_score(5, 1) == F(3)


def test_withdrawal_counts_as_draws_for_the_opponents_but_not_for_the_player() -> None:
    # P2 withdraws after round 2: his round 3 is category .5, seen by his opponents as a draw.
    t = build(
        4,
        [
            [(1, 2, "1-0"), (3, 4, "1/2")],
            [(1, 3, "1/2"), (2, 4, "1-0")],
            [(1, 4, "1-0"), (3, "PAB")],
        ],
    )
    sheet = score_sheet(t, 3, "2026")
    assert sheet.categories[2][2] is UnplayedCategory.LATE_BYE
    assert (sheet.scores[2], sheet.adjusted[2]) == (F(1), F(3, 2))
    calc = TiebreakCalculator(t)
    assert calc.value("BH", 1) == F(3, 2) + 2 + F(1, 2)
    assert calc.value("SB", 1) == F(3, 2) + 1 + F(1, 2)
    assert calc.value("BH", 2) == F(5, 2) + F(1, 2) + 1  # own dummy = own score 1.0 (cap 1.5)
    # P3's PAB dummy: own 2.0 in 2024, capped at 0.5 x 3 rounds in 2026.
    assert calc.value("BH", 3) == F(1, 2) + F(5, 2) + F(3, 2)
    assert TiebreakCalculator(t, edition="2024").value("BH", 3) == F(1, 2) + F(5, 2) + 2


def test_requested_bye_before_a_played_round_is_category_3_and_last_round_bye_category_5() -> None:
    recs = build(2, [[(1, "H")], [(1, 2, "1/2")], [(1, "Z")], [(1, 2, "-+")]]).player(1).rounds
    assert categories(recs) == (
        UnplayedCategory.REQUESTED_BYE,
        None,
        UnplayedCategory.LATE_BYE,  # only followed by a forfeit loss (a VUR)
        UnplayedCategory.FORFEIT_LOSS,
    )


def test_cut_removes_the_voluntary_unplayed_round_first() -> None:
    # P1: HPB in round 1 (a VUR followed by games), then wins against P2 and P3.
    t = build(3, [[(1, "H"), (2, 3, "1-0")], [(1, 2, "1-0"), (3, "PAB")], [(3, 1, "0-1"), (2, "PAB")]])
    calc = TiebreakCalculator(t)
    # opponents: P2 2.0, P3 1.0; dummy = min(own 2.5, 0.5 x 3) = 1.5 (the VUR) -> cut it, not P3's 1.0
    assert calc.value("BH", 1) == F(2) + F(1) + F(3, 2)
    assert calc.value("BH/C1", 1) == F(3)
    assert calc.value("BH/M1", 1) == F(1)  # VUR cut first, then the highest (P2's 2.0)


def test_forfeits_played_modifier_uses_the_scheduled_opponent() -> None:
    t = build(2, [[(1, 2, "+-")], [(2, 1, "1/2")]])
    calc = TiebreakCalculator(t)
    # P1: 1.5 points; own forfeit win: dummy = min(1.5, adjusted of P2 = 0.5)
    assert calc.value("BH", 1) == F(1, 2) + F(1, 2)
    assert calc.value("BH/P", 1) == F(1, 2) + F(1, 2)
    assert calc.value("BH", 2) == F(3, 2) + F(1, 2)  # forfeit loss dummy: min(0.5, 1.5)
    assert calc.value("BH/P", 2) == F(3, 2) + F(3, 2)


# --- Lichess (lichess-api.md §4.7, lila SwissScoringTest) --------------------------------------


def _lichess(t: Tournament) -> dict[int, tuple[Fraction, Fraction]]:
    calc = TiebreakCalculator(t, lichess_sb=True)
    return {p.number: (calc.score(p.number), calc.value("SB", p.number)) for p in t.players}


def test_lichess_sb_one_draw() -> None:
    assert _lichess(build(2, [[(1, 2, "1/2")]])) == {1: (F(1, 2), F(1, 4)), 2: (F(1, 2), F(1, 4))}


def test_lichess_sb_win_then_draw() -> None:
    t = build(2, [[(1, 2, "1-0")], [(2, 1, "1/2")]])
    assert _lichess(t) == {1: (F(3, 2), F(3, 4)), 2: (F(1, 2), F(3, 4))}


def test_lichess_sb_with_a_bye_uses_a_virtual_opponent() -> None:
    a, b, c = 1, 2, 3
    t = build(3, [[(a, b, "1-0"), (c, "PAB")], [(c, a, "1-0")], [(b, c, "1-0")]])
    assert _lichess(t) == {a: (F(1), F(1)), b: (F(1), F(2)), c: (F(2), F(2))}
    # FIDE differs: a's round-3 absence counts as a draw for his opponents (adjusted 1.5), and c's PAB
    # dummy is capped at 0.5 x 3 in 2026 (own 2.0 in 2024)
    assert TiebreakCalculator(t).value("SB", c) == F(3, 2) + F(3, 2)
    assert TiebreakCalculator(t, edition="2024").value("SB", c) == F(2) + F(3, 2)


# --- direct encounter --------------------------------------------------------------------


def test_de_all_met_ranks_by_the_mini_table() -> None:
    t = build(3, [[(1, 2, "0-1"), (3, "PAB")], [(2, 3, "1/2"), (1, "PAB")], [(3, 1, "0-1"), (2, "PAB")]])
    sheet = score_sheet(t, 3)
    assert mini_table(sheet, [1, 2, 3]) == {1: F(1), 2: F(3, 2), 3: F(1, 2)}
    assert direct_encounter(sheet, [1, 2, 3]) == [[2], [1], [3]]


def test_de_swiss_procedure_places_a_player_ahead_whatever_the_missing_games() -> None:
    # 1 beat 2 and 3; 2 and 3 never met: 1 is first, 2 and 3 stay tied.
    t = build(4, [[(1, 2, "1-0"), (3, 4, "1-0")], [(3, 1, "0-1"), (2, 4, "1-0")]])
    sheet = score_sheet(t, 2)
    assert direct_encounter(sheet, [1, 2, 3]) == [[1], [2, 3]]
    # a pair that met is decided by its game
    assert direct_encounter(sheet, [2, 4]) == [[2], [4]]
    # not all met and no one safely ahead: the group stays tied
    assert direct_encounter(sheet, [1, 4]) == [[1, 4]]


def test_de_averages_repeated_meetings() -> None:
    t = build(2, [[(1, 2, "1-0")], [(2, 1, "1/2")]])
    assert mini_table(score_sheet(t, 2), [1, 2]) == {1: F(3, 4), 2: F(1, 4)}


def test_de_ignores_forfeits_unless_p() -> None:
    t = build(2, [[(1, 2, "+-")]])
    sheet = score_sheet(t, 1)
    assert direct_encounter(sheet, [1, 2]) == [[1, 2]]
    assert direct_encounter(sheet, [1, 2], forfeits_played=True) == [[1], [2]]


# --- codes -----------------------------------------------------------------------------


def test_codes_are_canonicalised() -> None:
    assert parse_tiebreaks("bh/c1, BH-C1 ,sb,de/p,ks/l+1,aob/f, GE") == (
        "BH/C1",
        "BH/C1",
        "SB",
        "DE/P",
        "KS/L+1",
        "AOB/F",
        "REP",
    )
    assert parse_tiebreaks("PTS,BH/C1,BH") == ("BH/C1", "BH")
    assert parse_tiebreaks(["SB"]) == ("SB",)
    assert parse_tiebreaks(DEFAULT_TIEBREAKS) == DEFAULT_TIEBREAKS
    spec = parse_tiebreak("SB/M2")
    assert (spec.name, spec.low, spec.high) == ("SB", 2, 2)


@pytest.mark.parametrize("code", ["XYZ", "BH/C3", "WIN/C1", "ARO/P", "BH:MP", "", "OTHER_MINE", "BH/C1/C2"])
def test_bad_codes_raise_a_readable_error(code: str) -> None:
    with pytest.raises(UnknownTiebreak) as info:
        parse_tiebreak(code)
    assert "BH" in str(info.value) and "ARO" in str(info.value)
    assert info.value.known == KNOWN_TIEBREAKS


def test_every_known_code_computes_on_the_example(example: Tournament) -> None:
    codes = [c for c in KNOWN_TIEBREAKS if c != "DE"]
    values = tiebreak_values(example, codes)
    assert set(values) == {1, 2, 3, 4, 5}
    assert all(set(v) == set(codes) for v in values.values())
    assert [values[n]["TPN"] for n in (1, 2, 3)] == [1, 2, 3]
    assert values[1]["RTNG"] == 2150


def test_rating_performance_values(example: Tournament) -> None:
    calc = TiebreakCalculator(example)
    # P1: 3.5 / 4 against 1995, 2080, 1850, 1910 -> ARO 1959, p 0.875 -> 0.88 -> dp 336
    assert calc.value("TPR", 1) == 1959 + 336
    # PTP is the lowest rating whose expected score reaches the result
    from pairing.tiebreaks.rating_tables import expected

    ptp = int(calc.value("PTP", 1))
    ratings = [1995, 2080, 1850, 1910]
    assert sum(expected(ptp - r) for r in ratings) >= F(7, 2)
    assert sum(expected(ptp - 1 - r) for r in ratings) < F(7, 2)
    # P2 scored 0.5 / 2 over the board against 1910 and 2150
    assert calc.value("TPR", 2) == 2030 - 193


def test_through_round_uses_only_earlier_rounds(example: Tournament) -> None:
    calc = TiebreakCalculator(example, through_round=2)
    assert [calc.score(n) for n in (1, 2, 3, 4, 5)] == _f(2, 0.5, 0.5, 0.5, 2)
    assert calc.value("WIN", 5) == 2
    assert calc.sheet.categories[3][1] is UnplayedCategory.LATE_BYE  # the last round considered
    assert example.player(3).rounds[1].kind is RecordKind.HALF_BYE


# --- the official Article 16 examples (fide-swiss.md §5.6, after the table) ---------------------
# Only each player's own record and the opponents' final scores are published, so each event is rebuilt
# around that player: opponent j meets the player once and plays a filler of its own in the other rounds,
# with results that give it the published (or, when only a sum is published, a matching) final score.


def _focus_event(plan: list[tuple[str, float]]) -> Tournament:
    """Player 1's rounds: ("1" | "=" | "0" | "+" | "-", opponent's final score) or ("H" | "Z", 0)."""
    rounds = len(plan)
    players = [Player(1, name="Focus")]
    records: dict[int, list[RoundRecord]] = {1: []}
    for r, (code, _) in enumerate(plan, start=1):
        if code in ("H", "Z"):
            records[1].append(RoundRecord.bye(RecordKind.HALF_BYE if code == "H" else RecordKind.ZERO_BYE))
            continue
        opp, filler = 1 + r, 1 + rounds + r
        players += [Player(opp, name=f"Opponent {r}"), Player(filler, name=f"Filler {r}")]
        records[opp], records[filler] = [], []
    for r, (code, target) in enumerate(plan, start=1):
        opp, filler = 1 + r, 1 + rounds + r
        if code in ("H", "Z"):
            continue
        if code in "+-":
            mine = RoundRecord.forfeit(opp, Colour.WHITE, won=code == "+")
            theirs = RoundRecord.forfeit(1, Colour.BLACK, won=code == "-")
        else:
            outcome = {"1": Outcome.WIN, "=": Outcome.DRAW, "0": Outcome.LOSS}[code]
            pair = result_records(1, opp, outcome)
            mine, theirs = pair[1], pair[opp]
        records[1].append(mine)
        need = F(target) - Scoring().points(theirs)
        assert 0 <= need <= rounds - 1 and (2 * need).denominator == 1
        for other in range(1, rounds + 1):
            if other == r:
                records[opp].append(theirs)
                records[filler].append(RoundRecord(RecordKind.NOT_PAIRED))
                continue
            outcome = Outcome.WIN if need >= 1 else Outcome.DRAW if need > 0 else Outcome.LOSS
            need -= Scoring().points(RoundRecord.played(filler, Colour.WHITE, outcome))
            pair = result_records(opp, filler, outcome)
            records[opp].append(pair[opp])
            records[filler].append(pair[filler])
    return Tournament(
        players=tuple(replace(p, rounds=tuple(records[p.number])) for p in players),
        total_rounds=rounds,
    )


OFFICIAL = {
    # "Laxman": 7.0/10, one voluntary unplayed round (R4): BH 57 -> 55, BH-C1 50 in both editions
    "laxman": (
        [("1", 5), ("1", 5.5), ("=", 6), ("H", 0), ("1", 5), ("1", 6), ("0", 7), ("1", 5.5), ("=", 5), ("=", 5)],
        (57, 55),
        (50, 50),
    ),
    # forfeit win, 7.0/9, scheduled opponent adjusted 5.5: BH 51 -> 49.5
    "forfeit win": (
        [("+", 5.5), *[("1", 5.5)] * 5, ("=", 5.5), ("=", 5.5), ("0", 5.5)],
        (51, 49.5),
        None,
    ),
    # forfeit loss then withdrawal, 6.5/10: BH 64.5 -> 63
    "forfeit loss and withdrawal": (
        [*[("1", 6.5)] * 6, ("=", 6.5), ("0", 6), ("-", 7), ("Z", 0)],
        (64.5, 63),
        None,
    ),
    # round-1 forfeit win, 9.5/10, opponent adjusted 4.5: BH 74 -> 69
    "round-1 forfeit win": (
        [("+", 4.5), *[("1", 7)] * 7, ("1", 7.5), ("=", 8)],
        (74, 69),
        None,
    ),
    # TEC exercise: 3.5/5 with a half-point bye in R2: BH 15.0 (2023) -> 14.0 (2026)
    "TEC exercise": ([("1", 2.5), ("H", 0), ("1", 3), ("=", 3), ("=", 3)], (15, 14), None),
}


OFFICIAL_SCORES = {
    "laxman": F(7),
    "forfeit win": F(7),
    "forfeit loss and withdrawal": F(13, 2),
    "round-1 forfeit win": F(19, 2),
    "TEC exercise": F(7, 2),
}


@pytest.mark.parametrize("name", sorted(OFFICIAL))
def test_official_article16_examples(name: str) -> None:
    plan, (bh_2024, bh_2026), cut = OFFICIAL[name]
    t = _focus_event(plan)
    old, new = TiebreakCalculator(t, edition="2024"), TiebreakCalculator(t, edition="2026")
    assert new.score(1) == OFFICIAL_SCORES[name]
    for r, (code, target) in enumerate(plan, start=1):
        if code not in "HZ":
            assert new.sheet.adjusted[1 + r] == F(target)
    assert [old.value("BH", 1), new.value("BH", 1)] == [F(bh_2024), F(bh_2026)]
    if cut is not None:
        assert [old.value("BH/C1", 1), new.value("BH/C1", 1)] == [F(cut[0]), F(cut[1])]
