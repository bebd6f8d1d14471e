"""The Dutch engine's fast paths (the natural pairing, the transposition search) give what the matching gives."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairing import generator
from pairing.colours import ColourState
from pairing.errors import NoValidPairing
from pairing.model import (
    Colour,
    Outcome,
    Pairing,
    Player,
    PreferenceStrength,
    RecordKind,
    RoundRecord,
    Scoring,
    Tournament,
)
from pairing.systems import dutch


def _outcome(tournament: Tournament, *, fast: bool) -> Pairing | str:
    try:
        return dutch._pair(tournament, fast=fast)
    except NoValidPairing:
        return "no valid pairing"


def _assert_same(tournament: Tournament) -> None:
    assert _outcome(tournament, fast=True) == _outcome(tournament, fast=False)


@st.composite
def first_rounds(draw: st.DrawFn) -> Tournament:
    """Round 1 of an event: any size, with or without forbidden pairs, pre-assigned byes, acceleration."""
    size = draw(st.integers(min_value=2, max_value=40))
    rounds = draw(st.integers(min_value=1, max_value=11))
    numbers = list(range(1, size + 1))
    byes = draw(st.lists(st.sampled_from(numbers), max_size=3, unique=True))
    kinds = (RecordKind.HALF_BYE, RecordKind.ZERO_BYE, RecordKind.FULL_BYE)
    players = tuple(
        Player(n, rating=2600 - 10 * n, rounds=(RoundRecord.bye(draw(st.sampled_from(kinds))),) if n in byes else ())
        for n in numbers
    )
    pairs = st.lists(st.sampled_from(numbers), min_size=2, max_size=3, unique=True).map(frozenset)
    forbidden = tuple(draw(st.lists(pairs, max_size=3)))
    scoring = draw(st.sampled_from([Scoring(), Scoring(win=Fraction(3), draw=Fraction(1))]))
    acceleration = generator.baku_acceleration(size, rounds, Scoring()) if draw(st.booleans()) else {}
    initial = draw(st.sampled_from([None, Colour.WHITE, Colour.BLACK]))
    return Tournament(players, rounds, scoring, initial, acceleration, forbidden)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first_rounds())
def test_round_one_fast_path_equals_general_matching(tournament: Tournament) -> None:
    _assert_same(tournament)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=10**6),
    size=st.integers(min_value=4, max_value=30),
    played=st.integers(min_value=1, max_value=6),
    extra=st.integers(min_value=1, max_value=4),
    accelerated=st.booleans(),
)
def test_later_round_fast_path_equals_general_matching(
    seed: int, size: int, played: int, extra: int, accelerated: bool
) -> None:
    # Generated histories: score groups, colour preferences, floats, byes, forfeits, withdrawals, topscorers.
    event = generator.generate(seed, size, played + extra, stop_after=played, accelerated=accelerated)
    _assert_same(event)


def test_round_one_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # With the general matching made unusable, a plain round 1 still pairs S1[i] against S2[i], the last gets the PAB.
    def refuse(*args: object) -> None:
        raise AssertionError("the general matching was used")

    monkeypatch.setattr(dutch._Bracket, "__init__", refuse)
    players = tuple(Player(n, rating=2600 - n) for n in range(1, 102))
    got = dutch.pair(Tournament(players, 9, initial_colour=Colour.WHITE))
    pairs = {frozenset((b.white, b.black)) for b in got.boards}
    assert pairs == {frozenset((k, k + 50)) for k in range(1, 51)}
    assert got.bye == 101
    # Rule 5: the higher-ranked player of board k gets the initial colour when k is odd.
    assert all((b.white < b.black) == (min(b.white, b.black) % 2 == 1) for b in got.boards)


def _count_general_matchings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    solve = dutch._Bracket.solve

    def counted(self: dutch._Bracket) -> tuple[list[tuple[int, int]], list[int]]:
        calls.append(1)
        return solve(self)

    monkeypatch.setattr(dutch._Bracket, "solve", counted)
    return calls


def test_forbidden_pair_takes_the_next_transposition(monkeypatch: pytest.MonkeyPatch) -> None:
    players = tuple(Player(n, rating=2600 - n) for n in range(1, 9))
    tournament = Tournament(players, 5, initial_colour=Colour.WHITE, forbidden=(frozenset({1, 5}),))
    calls = _count_general_matchings(monkeypatch)
    got = dutch.pair(tournament)
    assert not calls, "the first transposition meeting every bound needs no matching"
    pairs = {frozenset((b.white, b.black)) for b in got.boards}
    # S1 = 1..4, S2 = 5..8 and 1-5 is forbidden: the next transposition of S2 swaps 5 and 6.
    assert pairs == {frozenset(p) for p in ((1, 6), (2, 5), (3, 7), (4, 8))}
    _assert_same(tournament)


def test_bracket_no_transposition_can_pair_falls_back_to_the_general_matching(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    players = tuple(Player(n, rating=2600 - n) for n in range(1, 5))
    # S1 = 1, 2 and S2 = 3, 4, but 1 may meet neither 3 nor 4: only an exchange pairs the bracket.
    tournament = Tournament(players, 5, initial_colour=Colour.WHITE, forbidden=(frozenset({1, 3}), frozenset({1, 4})))
    calls = _count_general_matchings(monkeypatch)
    got = dutch.pair(tournament)
    assert calls, "a bracket that needs an exchange goes to the general matching"
    assert {frozenset((b.white, b.black)) for b in got.boards} == {frozenset((1, 2)), frozenset((3, 4))}


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=10**6),
    size=st.integers(min_value=30, max_value=70),
    played=st.integers(min_value=2, max_value=8),
)
def test_larger_later_round_fast_paths_equal_general_matching(seed: int, size: int, played: int) -> None:
    # More score groups, odd brackets with floaters, heterogeneous brackets whose remainder is searched.
    event = generator.generate(seed, size, played + 1, stop_after=played)
    _assert_same(event)


def _bracket_residents(monkeypatch: pytest.MonkeyPatch) -> list[set[int]]:
    """The players (by starting number) of every bracket that goes to the general matching."""
    built: list[set[int]] = []
    init = dutch._Bracket.__init__

    def recorded(
        self: dutch._Bracket, rnd: dutch._Round, mdps: list[int], residents: list[int], *rest: list[int]
    ) -> None:
        built.append({rnd.players[i].number for i in residents})
        init(self, rnd, mdps, residents, *rest)

    monkeypatch.setattr(dutch._Bracket, "__init__", recorded)
    return built


def test_odd_bracket_above_others_floats_without_the_matching(monkeypatch: pytest.MonkeyPatch) -> None:
    # Round 1: 1-5, 2-6, 3-7 won by White, 4-8 drawn. Round 2's top bracket {1, 2, 3} is odd: S1 = {1}, S2 = {2, 3};
    # 1-2 is its first transposition, and 3 (no float, a stranger to 4 and 8) can float into {4, 8} as well as
    # anyone ([C8]: one of 4, 8 is left over and pairs below), so no matching is needed for it.
    win, draw, loss = Outcome.WIN, Outcome.DRAW, Outcome.LOSS
    games = {
        1: (5, win),
        2: (6, win),
        3: (7, win),
        4: (8, draw),
        5: (1, loss),
        6: (2, loss),
        7: (3, loss),
        8: (4, draw),
    }
    players = tuple(
        Player(
            n, rating=2600 - n, rounds=(RoundRecord.played(opponent, Colour.WHITE if n <= 4 else Colour.BLACK, got),)
        )
        for n, (opponent, got) in games.items()
    )
    tournament = Tournament(players, 5, initial_colour=Colour.WHITE)
    built = _bracket_residents(monkeypatch)
    got = dutch.pair(tournament)
    assert {1, 2, 3} not in built
    assert frozenset((1, 2)) in {frozenset((b.white, b.black)) for b in got.boards}
    monkeypatch.undo()
    _assert_same(tournament)


def test_least_strong_clashes_counts_what_any_pairing_must_make() -> None:
    def state(colour: Colour | None, strength: PreferenceStrength) -> ColourState:
        return ColourState(1, 0, 1, (), colour, strength)

    white, black = Colour.WHITE, Colour.BLACK
    strong, absolute, mild = PreferenceStrength.STRONG, PreferenceStrength.ABSOLUTE, PreferenceStrength.MILD
    # Four strong White preferences among six players: two meet the other two players, two meet each other.
    assert dutch._least_strong_clashes([state(white, strong)] * 4 + [state(black, mild)] * 2) == 1
    # Two of them absolute: those two may meet each other, which is no [C13] clash.
    assert (
        dutch._least_strong_clashes([state(white, strong)] * 2 + [state(white, absolute)] * 2 + [state(None, mild)] * 2)
        == 0
    )
    # Odd: the one left out can be a strong White, so three strong Whites among five clash nowhere.
    assert dutch._least_strong_clashes([state(white, strong)] * 3 + [state(black, strong)] * 2) == 0
    assert dutch._least_strong_clashes([state(white, strong)] * 5) == 2
