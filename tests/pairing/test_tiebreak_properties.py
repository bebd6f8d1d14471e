"""Property tests of tie-breaks and standings over random completed tournaments (independent of any engine)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from pairing.model import Outcome, Player, RecordKind, RoundRecord, Tournament, result_records
from pairing.standings.ranking import compute_standings
from pairing.tiebreaks.calculator import KNOWN_TIEBREAKS, TiebreakCalculator, parse_tiebreak

_RESULTS = ["1-0", "0-1", "1/2", "1-0", "0-1", "1/2", "+-", "-+", "--"]
_ABSENCES = [RecordKind.HALF_BYE, RecordKind.ZERO_BYE, RecordKind.NOT_PAIRED, RecordKind.FULL_BYE]
_CODES = [
    "BH",
    "BH/C1",
    "BH/C2",
    "BH/M1",
    "FB",
    "SB",
    "SB/C1",
    "PS",
    "DE",
    "WIN",
    "WON",
    "BPG",
    "BWG",
    "REP",
    "ARO",
    "ARO/C1",
    "TPR",
    "PTP",
    "KS",
    "STD",
    "AOB",
]


@st.composite
def tournaments(draw: st.DrawFn) -> Tournament:
    """A completed tournament: each round some players are absent, an odd one out gets the PAB, the rest play."""
    count = draw(st.integers(min_value=2, max_value=10))
    rounds = draw(st.integers(min_value=1, max_value=6))
    ratings = draw(st.lists(st.sampled_from([0, 1400, 1650, 1800, 2000, 2200, 2450]), min_size=count, max_size=count))
    t = Tournament(
        players=tuple(Player(n, name=f"P{n}", rating=ratings[n - 1]) for n in range(1, count + 1)),
        total_rounds=rounds,
    )
    for r in range(1, rounds + 1):
        order = draw(st.permutations(range(1, count + 1)))
        absent = draw(st.integers(min_value=0, max_value=min(2, count - 2)))
        records: dict[int, RoundRecord] = {}
        for number in order[:absent]:
            records[number] = RoundRecord.bye(draw(st.sampled_from(_ABSENCES)))
        present = list(order[absent:])
        if len(present) % 2:
            records[present.pop()] = RoundRecord.bye(RecordKind.PAB)
        for white, black in zip(present[::2], present[1::2], strict=True):
            result = draw(st.sampled_from(_RESULTS))
            outcome = {"1-0": Outcome.WIN, "0-1": Outcome.LOSS, "+-": Outcome.WIN}.get(result, Outcome.LOSS)
            if result == "1/2":
                outcome = Outcome.DRAW
            records.update(
                result_records(white, black, outcome, forfeit=result in ("+-", "-+"), double_forfeit=result == "--")
            )
        t = t.with_round(r, records)
    return t


editions = st.sampled_from(["2026", "2024"])


@settings(max_examples=150, deadline=None)
@given(tournaments(), editions)
def test_cuts_never_exceed_the_full_value(t: Tournament, edition: str) -> None:
    calc = TiebreakCalculator(t, edition="2024" if edition == "2024" else "2026")
    for p in t.players:
        n = p.number
        bh, c1, c2, m1 = (calc.value(code, n) for code in ("BH", "BH/C1", "BH/C2", "BH/M1"))
        assert 0 <= c2 <= c1 <= bh
        assert m1 <= c1
        assert calc.value("SB/C1", n) <= calc.value("SB", n)


@settings(max_examples=150, deadline=None)
@given(tournaments(), editions)
def test_sb_never_exceeds_bh_with_one_half_zero_scoring(t: Tournament, edition: str) -> None:
    calc = TiebreakCalculator(t, edition="2024" if edition == "2024" else "2026")
    for p in t.players:
        assert 0 <= calc.value("SB", p.number) <= calc.value("BH", p.number)


@settings(max_examples=100, deadline=None)
@given(tournaments())
def test_the_2026_dummy_cap_only_lowers_buchholz(t: Tournament) -> None:
    new, old = TiebreakCalculator(t, edition="2026"), TiebreakCalculator(t, edition="2024")
    for p in t.players:
        assert new.value("BH", p.number) <= old.value("BH", p.number)
        assert new.value("SB", p.number) <= old.value("SB", p.number)


@settings(max_examples=100, deadline=None)
@given(tournaments())
def test_scores_and_counts_are_consistent(t: Tournament) -> None:
    calc = TiebreakCalculator(t)
    rounds = calc.rounds
    for p in t.players:
        n = p.number
        assert calc.value("WON", n) <= calc.value("WIN", n) <= rounds
        assert calc.value("BWG", n) <= min(calc.value("BPG", n), calc.value("WON", n))
        assert calc.value("REP", n) <= rounds
        assert calc.value("PS", n) <= calc.score(n) * rounds
        assert calc.value("STD", n) == calc.score(n)  # 1/½/0 scoring: STD is the score itself


@settings(max_examples=150, deadline=None)
@given(
    tournaments(),
    st.lists(st.sampled_from(_CODES), max_size=4),
    st.sampled_from(_CODES),
    st.booleans(),
)
def test_adding_a_tiebreak_never_reorders_players_already_apart(
    t: Tournament, codes: list[str], extra: str, exclude_first: bool
) -> None:
    exclude = [1] if exclude_first and len(t.players) > 2 else []
    before = compute_standings(t, codes, exclude=exclude)
    after = compute_standings(t, [*codes, extra], exclude=exclude)
    rank_before = {r.number: r.rank for r in before}
    position_after = {r.number: i for i, r in enumerate(after)}
    for a in rank_before:
        for b in rank_before:
            if rank_before[a] < rank_before[b]:
                assert position_after[a] < position_after[b]
    # a tie-break can only split ranks: every rank before is the first position of its group after
    assert all(r.rank >= rank_before[r.number] for r in after)


@settings(max_examples=150, deadline=None)
@given(tournaments(), st.lists(st.sampled_from(_CODES), max_size=5), st.data())
def test_standings_are_a_ranked_permutation(t: Tournament, codes: list[str], data: st.DataObject) -> None:
    numbers = [p.number for p in t.players]
    exclude = data.draw(st.lists(st.sampled_from(numbers), max_size=len(numbers) - 1, unique=True))
    rows = compute_standings(t, codes, exclude=exclude)
    assert sorted(r.number for r in rows) == sorted(set(numbers) - set(exclude))
    for position, row in enumerate(rows):
        if position == 0 or row.rank != rows[position - 1].rank:
            assert row.rank == position + 1
        else:
            previous = rows[position - 1]
            assert previous.number < row.number
            assert previous.points == row.points
            plain = [parse_tiebreak(c).code for c in codes if parse_tiebreak(c).name != "DE"]
            assert all(previous.tiebreaks[c] == row.tiebreaks[c] for c in plain)
    points = [r.points for r in rows]
    assert points == sorted(points, reverse=True)
    # excluding players changes nobody's values
    full = {r.number: r for r in compute_standings(t, codes)}
    for row in rows:
        kept = {c: v for c, v in row.tiebreaks.items() if not c.startswith("DE")}
        assert kept == {c: v for c, v in full[row.number].tiebreaks.items() if not c.startswith("DE")}
        assert row.points == full[row.number].points


@settings(max_examples=60, deadline=None)
@given(tournaments())
def test_every_code_computes_and_values_are_exact(t: Tournament) -> None:
    calc = TiebreakCalculator(t)
    for code in KNOWN_TIEBREAKS:
        if code == "DE":
            continue
        for p in t.players:
            assert isinstance(calc.value(code, p.number), Fraction)
